import type { MeshConfig } from './load';

export const REDACTED = '[redacted]';

/** Keys whose values are credentials wherever they appear (paths to credential files stay visible). */
const SECRET_KEY = /api[-_]?key|password|passphrase|secret|token|authorization|cookie|credential|KeyData$/i;

/** 24+ characters, no spaces, not a path: mixed-case letters with digits (API keys, JWTs), or long hex. */
export function looksLikeToken(value: string): boolean {
  if (/^(bearer|basic|token)\s+\S/i.test(value)) return true;
  if (value.length < 24 || value.startsWith('/') || !/^[A-Za-z0-9._~+/=:-]+$/.test(value)) return false;
  if (/^[0-9a-f]{32,}$/i.test(value)) return true;
  return /[A-Z]/.test(value) && /[a-z]/.test(value) && /\d/.test(value);
}

/** A URL with its user info, query values and token-like path segments redacted. */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return looksLikeToken(raw) ? REDACTED : raw;
  }
  if (url.username) url.username = 'redacted';
  if (url.password) url.password = 'redacted';
  for (const key of [...url.searchParams.keys()]) url.searchParams.set(key, 'redacted');
  url.pathname = url.pathname
    .split('/')
    .map((segment) => (looksLikeToken(decodeURIComponent(segment)) ? 'redacted' : segment))
    .join('/');
  return url.toString();
}

/** Every string under a secret-named key, every token-like string, and every header value, redacted. */
function redactValue(value: unknown, key: string, everyValue: boolean): unknown {
  if (typeof value === 'string') {
    if (everyValue || SECRET_KEY.test(key) || looksLikeToken(value)) return REDACTED;
    return /^[a-z]+:\/\//i.test(value) ? redactUrl(value) : value;
  }
  if (Array.isArray(value)) return value.map((item) => redactValue(item, key, everyValue));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, redactValue(v, k, everyValue || WHOLE_VALUES.has(k))]),
    );
  }
  return value;
}

/** Maps whose every value may be a credential: HTTP headers, gRPC metadata, a command's environment. */
const WHOLE_VALUES = new Set(['headers', 'grpcMeta', 'env']);

/** The effective config as `mesh config` shows it: nothing in it can authenticate anyone. */
export function redactConfig(config: MeshConfig): MeshConfig {
  return redactValue(config, '', false) as MeshConfig;
}
