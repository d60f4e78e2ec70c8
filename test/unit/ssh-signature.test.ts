import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  parseAllowedSigners,
  principalsOf,
  type AllowedSigner,
} from '../../workflows/signing/allowed-signers';
import { parseSignature, verifySignature, type SshSignature } from '../../workflows/signing/ssh-signature';

/** Keys made by ssh-keygen here, signatures made by `ssh-keygen -Y sign`: the verifier meets real ones. */
describe('SSH signatures (keys and signatures made by ssh-keygen in the test)', () => {
  let dir: string;
  const keygen = (...args: string[]) => execFileSync('ssh-keygen', args, { cwd: dir, encoding: 'utf8' });
  const pub = (name: string) => readFileSync(join(dir, `${name}.pub`), 'utf8').trim();
  const message = new TextEncoder().encode(
    'approve approve-stop-predecessor of runbook-edge1, evidence 0123456789',
  );

  /** `ssh-keygen -Y sign` of `text` with key `name` in `namespace`: the armored signature. */
  function sign(name: string, text: Uint8Array, namespace = 'mesh-runbook'): string {
    writeFileSync(join(dir, 'message'), text);
    rmSync(join(dir, 'message.sig'), { force: true });
    keygen('-q', '-Y', 'sign', '-n', namespace, '-f', name, 'message');
    return readFileSync(join(dir, 'message.sig'), 'utf8');
  }

  function parsed(armored: string): SshSignature {
    const signature = parseSignature(armored);
    assert.ok(typeof signature !== 'string', String(signature));
    return signature;
  }

  function signers(text: string): AllowedSigner[] {
    const file = parseAllowedSigners(text);
    assert.ok('signers' in file, 'problem' in file ? file.problem : '');
    return file.signers;
  }

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mesh-sshsig-'));
    for (const name of ['carol', 'dave']) keygen('-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', name);
    keygen('-q', '-t', 'ecdsa', '-N', '', '-C', 'erin', '-f', 'erin');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('verifies what ssh-keygen signed, with the fingerprint ssh-keygen -l prints', () => {
    const signature = parsed(sign('carol', message));
    assert.equal(verifySignature(signature, message), undefined);
    assert.equal(
      signature.publicKey.fingerprint,
      keygen('-l', '-E', 'sha256', '-f', 'carol.pub').split(' ')[1],
    );
    assert.equal(signature.namespace, 'mesh-runbook');
    assert.equal(signature.hashAlgorithm, 'sha512');
  });

  it('refuses another message, another namespace and a bit flipped in the signature, each with a sentence', () => {
    const armored = sign('carol', message);
    const other = new TextEncoder().encode(
      'approve approve-stop-predecessor of runbook-edge2, evidence 0123456789',
    );
    assert.match(
      verifySignature(parsed(armored), other) ?? '',
      /^the signature does not match what it claims to sign \(key SHA256:/,
    );
    assert.equal(
      verifySignature(parsed(sign('carol', message, 'git')), message),
      'the signature is for namespace "git", not "mesh-runbook"',
    );
    const signature = parsed(armored);
    const flipped = { ...signature, signature: signature.signature.map((b, i) => (i === 5 ? b ^ 1 : b)) };
    assert.match(verifySignature(flipped, message) ?? '', /does not match/);
    assert.equal(
      parseSignature('hello'),
      'the signature is not an armored SSH signature (-----BEGIN SSH SIGNATURE-----)',
    );
    assert.match(
      String(parseSignature(armored.replace(/[A-Za-z](?=[^\n]*\n-----END)/, '!'))),
      /^the signature is/,
    );
  });

  it('refuses a key type other than ed25519 instead of verifying it', () => {
    assert.equal(
      parseSignature(sign('erin', message)),
      "the signature's key is ecdsa-sha2-nistp256, and only ssh-ed25519 keys are accepted",
    );
  });

  it("reads an allowed_signers file ssh-keygen -Y verify accepts too, and finds the key's principals", () => {
    const file = [
      '# who may sign runbook decisions',
      `carol,carol@example.net ${pub('carol')}`,
      `dave namespaces="git" ${pub('dave')}`,
      '',
    ].join('\n');
    writeFileSync(join(dir, 'allowed_signers'), file);
    const armored = sign('carol', message);
    const verify = [
      '-Y',
      'verify',
      '-f',
      'allowed_signers',
      '-I',
      'carol',
      '-n',
      'mesh-runbook',
      '-s',
      'message.sig',
    ];
    execFileSync('ssh-keygen', verify, { cwd: dir, input: message });
    const all = signers(file);
    assert.deepEqual(principalsOf(all, parsed(armored)), ['carol', 'carol@example.net']);
    assert.deepEqual(principalsOf(all, parsed(sign('dave', message))), [], 'dave may sign for git only');
    assert.deepEqual(principalsOf(signers(`carol ${pub('dave')}`), parsed(armored)), [], 'not her key');
  });

  it('refuses an allowed_signers line it cannot honour, naming the line', () => {
    const problem = (text: string) => {
      const file = parseAllowedSigners(text);
      return 'problem' in file ? file.problem : 'taken';
    };
    assert.equal(
      problem(`\ncarol cert-authority ${pub('carol')}`),
      'line 2: the option cert-authority is not supported here (only namespaces="…")',
    );
    assert.equal(
      problem(`*@example.net ${pub('carol')}`),
      'line 1: "*@example.net" is not a principal this check takes (no patterns; letters, digits and ._@+-)',
    );
    assert.equal(
      problem(`erin ${pub('erin')}`),
      'line 1: the key is ecdsa-sha2-nistp256, and only ssh-ed25519 keys are accepted',
    );
    assert.equal(problem('carol ssh-ed25519 @@@'), 'line 1: the key is not base64');
  });
});
