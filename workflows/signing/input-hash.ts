import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';
import { utf8 } from './ssh-wire';

/**
 * JSON with every object's keys sorted and `undefined` left out, as it crosses Temporal: the same value
 * gives the same text on the CLI that signs it and in the workflow that checks it.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The hex SHA-256 of a runbook's input as signed: its canonical JSON without the signature itself. */
export function inputHash(input: object): string {
  const { signedStart: _signature, ...signed } = input as { signedStart?: unknown };
  return bytesToHex(sha256(utf8(canonicalJson(signed))));
}
