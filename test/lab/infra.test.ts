import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { BASE_IMAGE, DockerEngine } from '../../docker/engine';
import { runProgram, succeeded } from '../support/compose';
import { Lab } from '../support/lab';
import { freePort } from '../support/runbooks';

/**
 * The production-shaped lab as scripts/lab/up.sh leaves it running, read from its lab.json: Temporal's
 * frontend on PostgreSQL, and three hosts, each a network namespace with its own Docker engine and disk.
 * Every assertion asks the real part (the frontend, PostgreSQL's rows, each engine); this file never
 * starts or stops the lab.
 */

const WAIT_MS = 180_000;

async function temporalCli(lab: Lab, args: string[]): Promise<string> {
  const outcome = await runProgram('temporal', [...args, '--address', lab.temporal.address]);
  return succeeded(outcome, `temporal ${args.join(' ')}`).stdout;
}

/** One value from PostgreSQL, asked as Temporal's own role over TCP with the lab's password file. */
async function pgValue(lab: Lab, database: string, sql: string): Promise<string> {
  const password = readFileSync(lab.postgres.passwordFile, 'utf8').trim();
  const result = succeeded(
    await runProgram(
      'psql',
      [
        '-X',
        '-A',
        '-t',
        '-h',
        lab.postgres.host,
        '-p',
        String(lab.postgres.port),
        '-U',
        lab.postgres.user,
        '-d',
        database,
        '-c',
        sql,
      ],
      { env: { ...process.env, PGPASSWORD: password } },
    ),
    `psql ${database}`,
  );
  return result.stdout.trim();
}

describe('the production-shaped lab (scripts/lab/up.sh)', () => {
  let lab: Lab;

  before(async () => {
    lab = await Lab.ready();
  });

  it('has a SERVING frontend whose persistence and visibility are PostgreSQL', async () => {
    assert.match(await temporalCli(lab, ['operator', 'cluster', 'health']), /SERVING/);
    const cluster = JSON.parse(
      await temporalCli(lab, ['operator', 'cluster', 'describe', '--output', 'json']),
    ) as { persistenceStore?: string; visibilityStore?: string };
    assert.equal(cluster.persistenceStore, 'postgres12');
    assert.equal(cluster.visibilityStore, 'postgres12');
  });

  it(
    'lists a workflow started in the mesh namespace, from rows in temporal_visibility',
    { timeout: 600_000 },
    async () => {
      const connection = await Connection.connect({ address: lab.temporal.address });
      const client = new Client({ connection, namespace: lab.temporal.namespace });
      const workflowId = `lab-infra-${randomBytes(4).toString('hex')}`;
      try {
        // No worker serves this queue: the workflow only has to exist.
        await client.workflow.start('LabInfraProbe', { taskQueue: workflowId, workflowId });
        const deadline = Date.now() + WAIT_MS;
        let listed = 0;
        while (listed === 0 && Date.now() < deadline) {
          for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
            if (execution.workflowId === workflowId) listed++;
          }
          if (listed === 0) await delay(250);
        }
        assert.equal(listed, 1, 'visibility lists the workflow');
        const rows = await pgValue(
          lab,
          'temporal_visibility',
          `SELECT count(*) FROM executions_visibility WHERE workflow_id = '${workflowId}' AND status = 1`,
        );
        assert.equal(rows, '1', 'one running execution in executions_visibility');
      } finally {
        await client.workflow
          .getHandle(workflowId)
          .terminate('lab-infra test cleanup')
          .catch(() => undefined);
        await connection.close();
      }
    },
  );

  it('gives each host its own engine, none of them the main engine', async () => {
    const ids = new Map<string, string>();
    ids.set('main', (await new DockerEngine().docker.info()).ID as string);
    for (const host of lab.hosts)
      ids.set(host.name, (await lab.engine(host.name).docker.info()).ID as string);
    assert.equal(new Set(ids.values()).size, lab.hosts.length + 1, `engine ids: ${JSON.stringify([...ids])}`);
  });

  it(
    'serves a host-network container on novox at its address and name only, seen by no other engine',
    { timeout: 600_000 },
    async () => {
      const novox = lab.host('novox');
      const engine = lab.engine('novox');
      const token = randomBytes(8).toString('hex');
      const port = await freePort();
      const container = await engine.docker.createContainer({
        name: `lab-infra-${token}`,
        Image: BASE_IMAGE,
        Cmd: ['sh', '-c', `echo ${token} > /www/index.html && exec httpd -f -p ${port} -h /www`],
        HostConfig: { NetworkMode: 'host' },
      });
      try {
        await container.start();
        const body = async (url: string) => {
          const deadline = Date.now() + WAIT_MS;
          for (;;) {
            try {
              return (await (await fetch(url)).text()).trim();
            } catch (error) {
              if (Date.now() > deadline) throw error;
              await delay(100);
            }
          }
        };
        assert.equal(await body(`http://${novox.ip}:${port}/`), token);
        assert.equal(await body(`http://${novox.hostname}:${port}/`), token);
        await assert.rejects(fetch(`http://127.0.0.1:${port}/`), 'nothing serves it in the root namespace');
        const others: [string, DockerEngine][] = [
          ['main', new DockerEngine()],
          ...lab.hosts
            .filter((h) => h.name !== novox.name)
            .map((h): [string, DockerEngine] => [h.name, lab.engine(h.name)]),
        ];
        for (const [name, other] of others) {
          const seen = (await other.docker.listContainers({ all: true })).filter(
            (c) => c.Id === container.id,
          );
          assert.deepEqual(seen, [], `the ${name} engine does not see novox's container`);
        }
      } finally {
        await container.remove({ force: true });
      }
    },
  );

  it('gives every host its own machine id on its own disk', () => {
    const ids = lab.hosts.map((host) => readFileSync(join(host.root, 'etc', 'machine-id'), 'utf8').trim());
    for (const [i, id] of ids.entries()) {
      assert.match(id, /^[0-9a-f]{32}$/);
      assert.equal(id, lab.hosts[i]?.machineId, 'lab.json says the same id');
    }
    assert.equal(new Set(ids).size, lab.hosts.length);
  });
});
