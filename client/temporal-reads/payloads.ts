import type { temporal } from '@temporalio/proto';

type Payload = temporal.api.common.v1.IPayload;

/** A payload as Temporal's default converter wrote it; any other encoding is an error naming it. */
export function fromPayload(payload: Payload | null | undefined): unknown {
  if (!payload) return undefined;
  const encoding = text(payload.metadata?.encoding);
  if (encoding === 'binary/null') return undefined;
  if (encoding === 'json/plain') return JSON.parse(text(payload.data));
  if (encoding === 'binary/plain') return payload.data ?? new Uint8Array();
  throw new Error(`a payload in encoding ${encoding || '(none)'}, which mesh does not read`);
}

const text = (bytes: Uint8Array | null | undefined) => (bytes ? Buffer.from(bytes).toString('utf8') : '');

/** The first payload's value, or undefined when there is none or it does not decode. */
export function firstValue(payloads: temporal.api.common.v1.IPayloads | null | undefined): unknown {
  try {
    return fromPayload(payloads?.payloads?.[0]);
  } catch {
    return undefined;
  }
}

/** Search attributes by name, each decoded (a keyword is a string); one that does not decode is left out. */
export function searchAttributes(
  attributes: temporal.api.common.v1.ISearchAttributes | null | undefined,
): Record<string, unknown> {
  const decoded: Record<string, unknown> = {};
  for (const [name, payload] of Object.entries(attributes?.indexedFields ?? {})) {
    try {
      decoded[name] = fromPayload(payload);
    } catch {
      continue;
    }
  }
  return decoded;
}
