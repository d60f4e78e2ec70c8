import { parsePublicKey, SIGNATURE_NAMESPACE, type SshPublicKey, type SshSignature } from './ssh-signature';

/**
 * An `allowed_signers` file as `ssh-keygen -Y verify` reads it (ssh-keygen(1), ALLOWED SIGNERS): one
 * signer a line, `principals [options] keytype key [comment]`. Of the options, `namespaces="…"` is
 * honoured; `cert-authority`, `valid-after` and `valid-before` are refused by line, never ignored.
 */

export interface AllowedSigner {
  principals: string[];
  /** Absent: every namespace. */
  namespaces?: string[];
  key: SshPublicKey;
  line: number;
}

export type AllowedSigners = { signers: AllowedSigner[] } | { problem: string };

const PRINCIPAL = /^[A-Za-z0-9._@+-]+$/;

/** Whitespace-separated fields, a double-quoted stretch kept whole (`namespaces="a,b"`). */
function fieldsOf(line: string): string[] {
  return line.match(/(?:[^\s"]+|"[^"]*")+/g) ?? [];
}

function optionsOf(field: string, line: number): { namespaces?: string[] } | string {
  const parsed: { namespaces?: string[] } = {};
  for (const option of field.match(/(?:[^,"]+|"[^"]*")+/g) ?? []) {
    const [name, quoted] = option.split(/=(.*)/s) as [string, string | undefined];
    if (name.toLowerCase() === 'namespaces' && quoted !== undefined)
      parsed.namespaces = quoted.replace(/^"|"$/g, '').split(',');
    else return `line ${line}: the option ${name} is not supported here (only namespaces="…")`;
  }
  return parsed;
}

function signerOf(text: string, line: number): AllowedSigner | string {
  const fields = fieldsOf(text);
  const [principalField = '', second = '', ...rest] = fields;
  const hasOptions = !second.startsWith('ssh-') && !second.startsWith('ecdsa-') && !second.startsWith('sk-');
  const [type = '', base64 = ''] = hasOptions ? rest : [second, ...rest];
  const principals = principalField.split(',');
  const bad = principals.find((p) => !PRINCIPAL.test(p));
  if (bad !== undefined)
    return `line ${line}: "${bad}" is not a principal this check takes (no patterns; letters, digits and ._@+-)`;
  const options = hasOptions ? optionsOf(second, line) : {};
  if (typeof options === 'string') return options;
  const key = parsePublicKey(type, base64);
  if (typeof key === 'string') return `line ${line}: ${key}`;
  return { principals, ...options, key, line };
}

/** The file's signers, or the first line it cannot take, as one sentence. */
export function parseAllowedSigners(text: string): AllowedSigners {
  const signers: AllowedSigner[] = [];
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const signer = signerOf(line, index + 1);
    if (typeof signer === 'string') return { problem: signer };
    signers.push(signer);
  }
  return { signers };
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The principals the signature's key stands for in `namespace`; empty when no signer has that key. */
export function principalsOf(
  signers: readonly AllowedSigner[],
  signature: SshSignature,
  namespace: string = SIGNATURE_NAMESPACE,
): string[] {
  return signers
    .filter((s) => sameBytes(s.key.blob, signature.publicKey.blob))
    .filter((s) => s.namespaces === undefined || s.namespaces.includes(namespace))
    .flatMap((s) => s.principals);
}
