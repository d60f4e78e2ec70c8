/**
 * The SSH wire encoding (RFC 4251 §5) and base64, on Uint8Array alone: what an SSH signature is made of,
 * readable inside the workflow sandbox (no Buffer, no Node built-ins).
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const VALUE = new Map([...ALPHABET].map((ch, i) => [ch, i]));

/** Standard base64 (padding optional) to bytes; undefined for anything else. */
export function fromBase64(text: string): Uint8Array | undefined {
  const clean = text.replace(/=+$/, '');
  if (clean.length % 4 === 1) return undefined;
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0;
  let value = 0;
  let at = 0;
  for (const ch of clean) {
    const digit = VALUE.get(ch);
    if (digit === undefined) return undefined;
    value = (value << 6) | digit;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (value >> bits) & 0xff;
    }
  }
  return out;
}

/** Bytes to standard base64, without padding when `pad` is false (as SSH fingerprints are). */
export function toBase64(bytes: Uint8Array, pad = true): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const [a = 0, b = 0, c = 0] = [bytes[i], bytes[i + 1], bytes[i + 2]];
    const chunk = (a << 16) | (b << 8) | c;
    const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
    for (let k = 0; k < chars; k++) text += ALPHABET[(chunk >> (18 - 6 * k)) & 63];
  }
  return pad ? text.padEnd(Math.ceil(text.length / 4) * 4, '=') : text;
}

export const utf8 = (text: string) => new TextEncoder().encode(text);

/** An SSH `string`: a 32-bit big-endian length, then the bytes. */
export function sshString(bytes: Uint8Array | string): Uint8Array {
  const body = typeof bytes === 'string' ? utf8(bytes) : bytes;
  const out = new Uint8Array(4 + body.length);
  new DataView(out.buffer).setUint32(0, body.length);
  out.set(body, 4);
  return out;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Reads SSH wire fields in order; every read past the end throws `WireError`. */
export class WireReader {
  private at = 0;
  constructor(private readonly bytes: Uint8Array) {}

  raw(length: number): Uint8Array {
    if (this.at + length > this.bytes.length) throw new WireError('it ends early');
    const out = this.bytes.subarray(this.at, this.at + length);
    this.at += length;
    return out;
  }

  uint32(): number {
    const raw = this.raw(4);
    return new DataView(raw.buffer, raw.byteOffset, 4).getUint32(0);
  }

  string(): Uint8Array {
    return this.raw(this.uint32());
  }

  text(): string {
    return new TextDecoder('utf-8', { fatal: true }).decode(this.string());
  }

  get done(): boolean {
    return this.at === this.bytes.length;
  }
}

export class WireError extends Error {}
