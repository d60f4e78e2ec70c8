import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { stringify } from 'yaml';
import { connectionOptionsOf, loadConfig } from '../../config';
import { RunbookStatus, runbookWorkflowId } from '../../workflows/contracts';
import { removeNodeContainers } from '../support/docker';
import { edgeFlipArgs, seedEdgeFlipIn } from '../support/edge-flip-seed';
import { statusWhen, waitingAt } from '../support/runbooks';
import { Scratch } from '../support/scratch';
import { harnessTarget } from '../support/temporal';
import {
  makeCertificates,
  SERVER_NAME,
  startTlsTerminator,
  type TestCertificates,
  type TlsTerminator,
} from '../support/tls';
import { MeshWorker, meshCli, type Outcome } from '../support/tls-cli';

/** Exit 2 (or the worker's 1), nothing on stdout, and the diagnosis as the first line on stderr. */
function assertRefused(outcome: Outcome, code: number, sentence: RegExp): void {
  assert.equal(outcome.code, code, outcome.stderr);
  assert.equal(outcome.stdout, '');
  assert.match(outcome.stderr.split('\n')[0] ?? '', sentence);
}

describe('mTLS to Temporal through a Node TLS terminator that requires client certificates (the dev server has no TLS flags)', () => {
  const scratch = new Scratch();
  const taskQueue = `mtls-${randomBytes(4).toString('hex')}`;
  const workers: MeshWorker[] = [];
  let dir: string;
  let certs: TestCertificates;
  let terminator: TlsTerminator;

  /** A config file naming only the terminator; `tls` replaces the TLS settings with the client cert. */
  async function configFile(name: string, tls: Record<string, unknown> = {}): Promise<string> {
    const path = join(dir, `${name}.yaml`);
    const config = {
      temporal: {
        address: terminator.address,
        namespace: harnessTarget().namespace,
        tls: {
          serverCaCertPath: certs.caCert,
          serverName: SERVER_NAME,
          clientCertPath: certs.clientCert,
          clientKeyPath: certs.clientKey,
          ...tls,
        },
      },
      mesh: { adapter: 'local', localState: join(dir, 'local') },
    };
    await writeFile(path, stringify(config));
    return path;
  }

  before(async () => {
    dir = await scratch.dir('mesh-mtls-');
    certs = await makeCertificates(dir);
    const port = Number(harnessTarget().address.split(':').pop());
    terminator = await startTlsTerminator(certs, { host: '127.0.0.1', port });
  });

  after(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    await terminator?.close();
    await scratch.cleanup();
  });

  it('the CLI and a worker both connect with the client certificate from the config, and a runbook runs through it', async (t) => {
    const config = await configFile('mtls');
    const env = { MESH_CONFIG: config, MESH_TASK_QUEUE: taskQueue };
    const worker = MeshWorker.start(env);
    workers.push(worker);
    const ready = await worker.ready();
    assert.deepEqual([ready.address, ready.taskQueue], [terminator.address, taskQueue]);

    // A node of the worker's local mesh, as an edge flip needs it (start refuses what preflight would).
    const node = `mtls${randomBytes(3).toString('hex')}`;
    const flip = edgeFlipArgs(await seedEdgeFlipIn(join(dir, 'local'), node));
    t.after(() => removeNodeContainers([node]));
    const started = await meshCli(env, 'runbook', 'start', ...flip, '--as', 'alice', '--detach', '--json');
    assert.equal(started.code, 0, started.stderr);

    // The same options the CLI builds, in this process, to follow the runbook the worker runs.
    const connection = await Connection.connect(
      connectionOptionsOf(loadConfig({ file: config, env: {} }).temporal),
    );
    try {
      const handle = new Client({ connection, namespace: harnessTarget().namespace }).workflow.getHandle(
        runbookWorkflowId(node),
      );
      // The flip goes as far as it may alone and waits for the approval.
      await statusWhen(handle, waitingAt('approve-stop-predecessor'));
      const status = await meshCli(env, 'runbook', 'status', node, '--json');
      assert.equal(status.code, 3, status.stderr);
      const waiting = RunbookStatus.parse(JSON.parse(status.stdout)).waiting;
      assert.equal(waiting?.gate, 'approve-stop-predecessor');
      const aborted = await meshCli(env, 'runbook', 'abort', node, '--as', 'bob');
      assert.equal(aborted.code, 0, aborted.stderr);
      assert.equal((await handle.describe()).status.name, 'CANCELLED');
    } finally {
      await connection.close();
    }
    assert.ok(
      terminator.accepted >= 3,
      `the worker and the CLI connected through the terminator (${terminator.accepted})`,
    );
    assert.equal(terminator.refused, 0);
  });

  it('without the client certificate the CLI and the worker are refused with one sentence and a suggestion', async () => {
    const refusedBefore = terminator.refused;
    const env = {
      MESH_CONFIG: await configFile('no-client-cert', {
        clientCertPath: undefined,
        clientKeyPath: undefined,
      }),
    };
    const mtlsRequired = /requires a client certificate \(mTLS\), and this config has none\.$/;

    const list = await meshCli(env, 'runbook', 'list');
    assertRefused(list, 2, mtlsRequired);
    assert.match(list.stderr.split('\n')[1] ?? '', /^Set temporal\.tls\.clientCertPath and clientKeyPath/);

    const worker = MeshWorker.start({ ...env, MESH_TASK_QUEUE: taskQueue });
    workers.push(worker);
    assert.equal(await worker.exit(), 1, worker.output);
    assert.match(
      worker.output,
      /error: Temporal at 127\.0\.0\.1:\d+ requires a client certificate \(mTLS\), and this config has none\. Set temporal\.tls/,
    );

    const rogue = {
      MESH_CONFIG: await configFile('rogue', {
        clientCertPath: certs.rogueCert,
        clientKeyPath: certs.rogueKey,
      }),
    };
    assertRefused(await meshCli(rogue, 'runbook', 'list'), 2, /refused this config's client certificate/);

    const wrongName = { MESH_CONFIG: await configFile('wrong-name', { serverName: 'other.test' }) };
    assertRefused(
      await meshCli(wrongName, 'runbook', 'list'),
      2,
      /is not issued for the name this config checks/,
    );
    assert.ok(terminator.refused > refusedBefore, 'the terminator itself turned the clients down');
  });
});
