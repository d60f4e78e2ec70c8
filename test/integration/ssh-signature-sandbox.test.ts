import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { checksSignatures, signedUpdate } from '../fixtures/signing-workflows';
import { fixtureWorker } from '../support/fixture-worker';
import { connectHarnessClient } from '../support/temporal';

/** `ssh-keygen -Y sign -n mesh-runbook` of `message` with a fresh key of `dir`; its armored signature. */
function signed(dir: string, key: string, message: string): string {
  writeFileSync(join(dir, 'message'), message);
  rmSync(join(dir, 'message.sig'), { force: true });
  execFileSync('ssh-keygen', ['-q', '-Y', 'sign', '-n', 'mesh-runbook', '-f', key, 'message'], { cwd: dir });
  return readFileSync(join(dir, 'message.sig'), 'utf8');
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (error: unknown) =>
      error instanceof WorkflowUpdateFailedError ? (error.cause?.message ?? error.message) : String(error),
  );

describe('SSH signatures verified in the workflow sandbox (real dev server, keys made by ssh-keygen)', () => {
  it("an Update's validator accepts a signature of an allowed signer and refuses a forged or unknown one before it is accepted", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mesh-sshsig-wf-'));
    const taskQueue = `sshsig-${randomBytes(4).toString('hex')}`;
    const worker = await fixtureWorker(require.resolve('../fixtures/signing-workflows'), taskQueue);
    const { client, connection: clientConnection } = await connectHarnessClient();
    try {
      for (const name of ['carol', 'mallory'])
        execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', name], { cwd: dir });
      const allowed = `carol ${readFileSync(join(dir, 'carol.pub'), 'utf8')}`;
      const handle = await client.workflow.start(checksSignatures, {
        taskQueue,
        workflowId: `${taskQueue}-wf`,
        args: [allowed],
      });
      const message = 'approve approve-stop-predecessor of runbook-edge1, evidence 0123456789';
      const good = signed(dir, 'carol', message);
      const forged = await refusal(
        handle.executeUpdate(signedUpdate, {
          args: [{ message: message.replace('edge1', 'edge2'), signature: good }],
        }),
      );
      assert.match(forged, /^the signature does not match what it claims to sign \(key SHA256:/);
      const stranger = await refusal(
        handle.executeUpdate(signedUpdate, {
          args: [{ message, signature: signed(dir, 'mallory', message) }],
        }),
      );
      assert.match(stranger, /^key SHA256:\S+ is not among the signers$/);
      assert.deepEqual(await handle.executeUpdate(signedUpdate, { args: [{ message, signature: good }] }), [
        'carol',
      ]);
      const history = await handle.fetchHistory();
      const accepted = history.events?.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length;
      assert.equal(accepted, 1, 'the refused ones never reached the history');
      await handle.terminate('test over');
    } finally {
      await worker.stop();
      await clientConnection.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
