import { ed25519 } from '@noble/curves/ed25519';
import { sha256, sha512 } from '@noble/hashes/sha2';
import { concat, fromBase64, sshString, toBase64, utf8, WireError, WireReader } from './ssh-wire';

/**
 * SSH signatures as `ssh-keygen -Y sign` makes them (OpenSSH's PROTOCOL.sshsig), verified in pure
 * JavaScript (noble's ed25519 and SHA-2), so the workflow sandbox can verify one in an Update's validator.
 * Ed25519 keys only: a signature or key of another type is refused with a sentence, never accepted.
 */

/** The namespace every decision is signed in (`ssh-keygen -Y sign -n mesh-runbook`). */
export const SIGNATURE_NAMESPACE = 'mesh-runbook';

const KEY_TYPE = 'ssh-ed25519';
const MAGIC = utf8('SSHSIG');
const ARMOR = /^-----BEGIN SSH SIGNATURE-----\s+([A-Za-z0-9+/=\s]+?)\s*-----END SSH SIGNATURE-----\s*$/;

export interface SshPublicKey {
  /** The key's wire blob (type and key bytes): what fingerprints and allowed_signers compare. */
  blob: Uint8Array;
  key: Uint8Array;
  /** As `ssh-keygen -l` prints it: `SHA256:` and the unpadded base64 of the blob's SHA-256. */
  fingerprint: string;
}

export interface SshSignature {
  publicKey: SshPublicKey;
  namespace: string;
  hashAlgorithm: 'sha256' | 'sha512';
  signature: Uint8Array;
}

export function fingerprintOf(blob: Uint8Array): string {
  return `SHA256:${toBase64(sha256(blob), false)}`;
}

function keyFromBlob(blob: Uint8Array): SshPublicKey | string {
  try {
    const wire = new WireReader(blob);
    const type = wire.text();
    if (type !== KEY_TYPE) return `its key is ${type}, and only ${KEY_TYPE} keys are accepted`;
    const key = wire.string();
    if (key.length !== 32 || !wire.done) return `its ${KEY_TYPE} key is malformed`;
    return { blob, key, fingerprint: fingerprintOf(blob) };
  } catch {
    return 'its key is malformed';
  }
}

/** `ssh-ed25519 AAAA… [comment]` (a .pub file's line, an allowed_signers key) to its key, or why not. */
export function parsePublicKey(type: string, base64: string): SshPublicKey | string {
  if (type !== KEY_TYPE) return `the key is ${type}, and only ${KEY_TYPE} keys are accepted`;
  const blob = fromBase64(base64);
  if (!blob) return 'the key is not base64';
  const key = keyFromBlob(blob);
  return typeof key === 'string' ? key.replace(/^its /, 'the ') : key;
}

/** An armored SSH signature (`-----BEGIN SSH SIGNATURE-----` …) to its parts, or the sentence why not. */
export function parseSignature(armored: string): SshSignature | string {
  const body = ARMOR.exec(armored.trim())?.[1];
  const bytes = body === undefined ? undefined : fromBase64(body.replace(/\s+/g, ''));
  if (!bytes) return 'the signature is not an armored SSH signature (-----BEGIN SSH SIGNATURE-----)';
  try {
    const wire = new WireReader(bytes);
    if (!wire.raw(MAGIC.length).every((b, i) => b === MAGIC[i])) return 'the signature is not an SSHSIG';
    const version = wire.uint32();
    if (version !== 1) return `the signature is SSHSIG version ${version}, and only version 1 is known`;
    const publicKey = keyFromBlob(wire.string());
    if (typeof publicKey === 'string') return `the signature's ${publicKey.replace(/^its /, '')}`;
    const namespace = wire.text();
    wire.string(); // reserved
    const hashAlgorithm = wire.text();
    if (hashAlgorithm !== 'sha256' && hashAlgorithm !== 'sha512')
      return `the signature hashes with ${hashAlgorithm}, not sha256 or sha512`;
    const inner = new WireReader(wire.string());
    if (inner.text() !== KEY_TYPE) return `the signature is not an ${KEY_TYPE} signature`;
    const signature = inner.string();
    if (signature.length !== 64 || !inner.done || !wire.done) return 'the signature is malformed';
    return { publicKey, namespace, hashAlgorithm, signature };
  } catch (error) {
    if (error instanceof WireError || error instanceof TypeError) return 'the signature is malformed';
    throw error;
  }
}

/** What the key signed: PROTOCOL.sshsig's blob over the message's hash. */
function signedData(signature: SshSignature, message: Uint8Array): Uint8Array {
  const hash = signature.hashAlgorithm === 'sha512' ? sha512(message) : sha256(message);
  return concat(
    MAGIC,
    sshString(signature.namespace),
    sshString(new Uint8Array()),
    sshString(signature.hashAlgorithm),
    sshString(hash),
  );
}

/** Undefined when `signature` signs `message` in `namespace` with its own key; else the sentence why not. */
export function verifySignature(
  signature: SshSignature,
  message: Uint8Array,
  namespace: string = SIGNATURE_NAMESPACE,
): string | undefined {
  if (signature.namespace !== namespace)
    return `the signature is for namespace "${signature.namespace}", not "${namespace}"`;
  const valid = (() => {
    try {
      return ed25519.verify(signature.signature, signedData(signature, message), signature.publicKey.key);
    } catch {
      return false;
    }
  })();
  return valid
    ? undefined
    : `the signature does not match what it claims to sign (key ${signature.publicKey.fingerprint})`;
}
