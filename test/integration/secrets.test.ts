import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { stringify } from 'yaml';
import { startRunbook } from '../../client/start-runbook';
import { connectionOptionsOf, loadConfig } from '../../config';
import { edgeFlip } from '../../workflows';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { statusWhen, waitingAt } from '../support/runbooks';
import { harnessTarget } from '../support/temporal';
import { makeCertificates, SERVER_NAME, startTlsTerminator, type TlsTerminator } from '../support/tls';
import { MeshWorker, meshCli, type Outcome } from '../support/tls-cli';

const SECRET = `MESH-SECRET-${randomBytes(8).toString('hex')}`;

/** The exported history (proto JSON) as text, every payload's base64 `data` decoded so a search can see it. */
function historyText(history: unknown): string {
  return JSON.stringify(history, (key, value: unknown) =>
    key === 'data' && typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : value,
  );
}

/** A webhook receiver that answers 204 and keeps each request's headers and body. */
async function webhookReceiver(): Promise<{
  url: string;
  received: { headers: IncomingHttpHeaders; body: string }[];
  server: Server;
}> {
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, server };
}

describe('secrets in the config stay out of workflow history, worker logs and CLI output (edge flip over mTLS)', () => {
  let world: RunbookWorld;
  let temporalFrontend: TlsTerminator;
  let dockerFrontend: TlsTerminator;
  let webhook: Awaited<ReturnType<typeof webhookReceiver>>;
  let worker: MeshWorker | undefined;
  let connection: Connection | undefined;

  before(async () => {
    // The worker runs as `mesh runbook worker` from the config below, on the world's task queue.
    world = await runbookWorld({ worker: 'none' });
    webhook = await webhookReceiver();
  });

  after(async () => {
    await worker?.stop();
    await connection?.close();
    await temporalFrontend?.close();
    await dockerFrontend?.close();
    webhook?.server.close();
    await world?.[Symbol.asyncDispose]();
  });

  it('plants a secret as the Temporal API key, a webhook token and a Docker TLS key, runs a runbook, finds it nowhere', async () => {
    const dir = world.stateDir;
    const certs = await makeCertificates(dir);
    temporalFrontend = await startTlsTerminator(certs, {
      port: Number(harnessTarget().address.split(':').pop()),
    });
    dockerFrontend = await startTlsTerminator(certs, { path: '/var/run/docker.sock' }, 'docker');
    // PEM readers skip text before -----BEGIN: the Docker client key file itself carries the secret.
    const dockerKey = join(dir, 'docker-client.key');
    await writeFile(dockerKey, `${SECRET}-docker-key\n${await readFile(certs.clientKey, 'utf8')}`);

    const node = world.nodeName();
    const { taskQueue } = world;
    const configPath = join(dir, 'mesh.yaml');
    const dockerPort = Number(dockerFrontend.address.split(':').pop());
    await writeFile(
      configPath,
      stringify({
        temporal: {
          address: temporalFrontend.address,
          namespace: harnessTarget().namespace,
          apiKey: `${SECRET}-api-key`,
          tls: {
            serverCaCertPath: certs.caCert,
            serverName: SERVER_NAME,
            clientCertPath: certs.clientCert,
            clientKeyPath: certs.clientKey,
          },
        },
        mesh: { adapter: 'local', localState: world.stateDir },
        nodes: {
          [node]: {
            tcp: {
              host: '127.0.0.1',
              port: dockerPort,
              ca: certs.caCert,
              cert: certs.clientCert,
              key: dockerKey,
            },
          },
        },
        policy: {
          reminders: { after: '1s', every: '2s' },
          timings: { least: { stabilityWindow: 0, recheckEvery: 0, lockAskAgain: 0 } },
        },
        notifier: { webhook: { url: webhook.url, headers: { Authorization: `Bearer ${SECRET}-webhook` } } },
        log: { level: 'debug' },
      }),
    );
    const env = { MESH_CONFIG: configPath, MESH_TASK_QUEUE: taskQueue };
    worker = MeshWorker.start(env);
    await worker.ready();

    const input = await seedEdgeFlip(world, { node });
    connection = await Connection.connect(
      connectionOptionsOf(loadConfig({ file: configPath, env: {} }).temporal),
    );
    const client = new Client({ connection, namespace: harnessTarget().namespace });
    const handle = await startRunbook(client, edgeFlip, input, { taskQueue });

    await statusWhen(handle, waitingAt('approve-stop-predecessor'), 120_000);
    await statusWhen(handle, (status) => (status.waiting?.reminders ?? 0) >= 1);
    const reminder = webhook.received[0];
    assert.equal(
      reminder?.headers.authorization,
      `Bearer ${SECRET}-webhook`,
      'the webhook got the configured token',
    );
    assert.equal(JSON.parse(reminder?.body ?? '{}').gate, 'approve-stop-predecessor');

    const outputs: [string, Outcome][] = [
      ['status --json', await meshCli(env, 'runbook', 'status', node, '--json')],
      ['config', await meshCli(env, 'config')],
      ['config --json', await meshCli(env, 'config', '--json')],
      ['approve', await meshCli(env, 'runbook', 'approve', node, 'approve-stop-predecessor', '--as', 'bob')],
    ];
    assert.deepEqual(
      outputs.map(([name, outcome]) => [name, outcome.code]),
      [
        ['status --json', 3],
        ['config', 0],
        ['config --json', 0],
        ['approve', 0],
      ],
      outputs.map(([, outcome]) => outcome.stderr).join('\n'),
    );
    assert.equal((await handle.result()).phase, 'completed');
    await worker.stop();

    // The secrets were really used: the Docker inspection went through the TLS key, the runbook through mTLS.
    assert.ok(
      dockerFrontend.accepted > 0,
      'the worker reached the node’s Docker engine with the planted key',
    );
    assert.ok(temporalFrontend.accepted > 0);

    const history = historyText(await handle.fetchHistory());
    // The check can see inside payloads: the reminder result and the policy are there as text.
    assert.ok(
      history.includes(`sent to webhook ${new URL(webhook.url).origin}`),
      'activity results are decoded, the webhook named by its origin',
    );
    assert.equal(history.includes(webhook.url), false, "the webhook's path is in the workflow history");
    assert.ok(/afterMs\\":1000\b/.test(history), 'the policy the runbook ran under is in its history');
    assert.equal(history.includes(SECRET), false, 'a secret in the workflow history');

    const logLines = worker.output.split('\n').filter((line) => line.startsWith('{"level"'));
    assert.ok(logLines.length >= 10, `the worker's debug log lines were captured:\n${worker.output}`);
    assert.equal(worker.output.includes(SECRET), false, `a secret in the worker's output:\n${worker.output}`);
    for (const [name, outcome] of outputs) {
      assert.equal(`${outcome.stdout}${outcome.stderr}`.includes(SECRET), false, `a secret in mesh ${name}`);
    }
    const shown = JSON.parse(outputs[2]?.[1].stdout ?? '{}') as { temporal: { apiKey: string } };
    assert.equal(shown.temporal.apiKey, '[redacted]');
  });
});
