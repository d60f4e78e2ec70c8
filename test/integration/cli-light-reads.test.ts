import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { WorkflowFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { TemporalReads } from '../../client/temporal-reads/reads';
import { edgeFlip } from '../../workflows';
import { runbookWorkflowId, statusQuery } from '../../workflows/contracts';
import { nodeMarkId } from '../../workflows/node-mark-contracts';
import { MESH_NODE } from '../../workflows/search-attributes';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { MESH } from '../support/mesh-cli';
import { decide, endedStatus, statusWhen, waitingAt } from '../support/runbooks';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { Scratch } from '../support/scratch';
import { harnessTarget } from '../support/temporal';

const run = promisify(execFile);

/** What `status` and `list` must not load: Temporal's client and workflow SDKs, their gRPC and protobuf root. */
const SDK = ['@temporalio/client', '@temporalio/workflow', '@temporalio/proto', '@grpc/grpc-js'];

/** zod's locales but English, which its entry loads: 63 modules mesh never uses (see bin/lazy-zod-locales.js). */
const OTHER_ZOD_LOCALE = /\/node_modules\/zod\/v4\/locales\/(?!en\.cjs$|index\.cjs$)[^/]+$/;

/** Written before the CLI runs (node --require): on exit, every module file the process loaded. */
const RECORDER = `process.on('exit', () => require('node:fs').writeFileSync(process.env.MESH_TEST_LOADED_TO, JSON.stringify(Object.keys(require.cache))));\n`;

/** An edge flip on a node with the incident's leftovers: it waits at gate-apply, held. */
async function heldAtGateApply(world: RunbookWorld) {
  const input = await seedEdgeFlip(world, { leftovers: true });
  const handle = await world.start(edgeFlip, input);
  await statusWhen(handle, waitingAt('gate-apply'));
  return { input, handle };
}

/** Stands in for a world's stopped worker: whatever task the server hands its queue's poller comes here. */
/**
 * Polls the runbooks' queue as a worker would, without answering. What concerns `workflowId` is what a
 * reader caused; the queue's other workflows (the lock keeper, a node's mark) have tasks of their own.
 */
function standInWorker(world: RunbookWorld, workflowId: string) {
  const polling = new AbortController();
  const { connection, workflowService } = world.client;
  const pollOnce = () =>
    connection.withAbortSignal(polling.signal, () =>
      connection.withDeadline(Date.now() + 60_000, () =>
        workflowService.pollWorkflowTaskQueue({
          namespace: harnessTarget().namespace,
          taskQueue: {
            name: world.taskQueue,
            kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL,
          },
          identity: 'stand-in worker (test)',
        }),
      ),
    );
  const handed = (async () => {
    for (;;) {
      try {
        const task = await pollOnce();
        if (task.workflowExecution?.workflowId !== workflowId) continue;
        return task.query ? `a query of ${task.query.queryType ?? '?'}` : 'a workflow task';
      } catch (error) {
        return polling.signal.aborted ? 'nothing' : `a failed poll: ${String(error)}`;
      }
    }
  })();
  return {
    /** What it was handed for `workflowId` by a second from now: 'nothing', a query or a workflow task. */
    handedSoon: () => Promise.race([handed, new Promise((resolve) => setTimeout(resolve, 1_000, 'nothing'))]),
    stop: () => polling.abort(),
  };
}

describe('status and list read Temporal without its client SDK (real server, worker and Docker)', () => {
  const scratch = new Scratch();
  let recorder: string;
  after(() => scratch.cleanup());
  before(async () => {
    recorder = join(await scratch.dir('mesh-light-reads-'), 'record-loaded.js');
    await writeFile(recorder, RECORDER);
  });

  async function meshLoading(env: NodeJS.ProcessEnv, ...args: string[]) {
    const loadedTo = `${recorder}.${args.join('-')}.json`;
    const childEnv: NodeJS.ProcessEnv = {
      ...process.env,
      ...env,
      MESH_TEST_LOADED_TO: loadedTo,
      NO_COLOR: '1',
    };
    delete childEnv.MESH_CONFIG;
    let outcome: { code: number; stdout: string; stderr: string };
    try {
      const { stdout, stderr } = await run(
        process.execPath,
        ['--require', recorder, MESH, 'runbook', ...args],
        {
          env: childEnv,
        },
      );
      outcome = { code: 0, stdout, stderr };
    } catch (error) {
      outcome = error as { code: number; stdout: string; stderr: string };
    }
    const files = JSON.parse(await readFile(loadedTo, 'utf8')) as string[];
    const packages = new Set(
      files.flatMap((file) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1] ?? []),
    );
    const zodLocales = files.filter((file) => OTHER_ZOD_LOCALE.test(file)).length;
    return { ...outcome, sdk: SDK.filter((name) => packages.has(name)), zodLocales };
  }

  it(
    "shows a waiting runbook in status and list, loading none of the SDK nor zod's other locales",
    { timeout: 600_000 },
    async () => {
      await using world = await runbookWorld();
      const { input } = await heldAtGateApply(world);
      const env = { MESH_TASK_QUEUE: world.taskQueue };

      const status = await meshLoading(env, 'status', input.node);
      assert.equal(status.code, 3, `waiting is exit 3; stderr: ${status.stderr}`);
      assert.match(status.stdout, /gate-apply/);
      assert.deepEqual(status.sdk, [], 'status loaded the SDK');
      assert.equal(status.zodLocales, 0, "status loaded zod's locales");

      const list = await meshLoading(env, 'list');
      assert.equal(list.code, 0, list.stderr);
      const row = list.stdout.split('\n').find((line) => line.startsWith(runbookWorkflowId(input.node)));
      assert.match(row ?? '', /edge-flip\s+\S+\s+waiting\s+gate-apply/, list.stdout);
      assert.deepEqual(list.sdk, [], 'list loaded the SDK');
      assert.equal(list.zodLocales, 0, "list loaded zod's locales");
    },
  );

  /** A flip on a fresh node, approved or aborted at the approval, run to its end; then its workers stop. */
  async function endedFlip(world: RunbookWorld, action: 'approve' | 'abort') {
    const input = await seedEdgeFlip(world);
    const handle = await world.start(edgeFlip, input);
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    await decide(handle, action);
    const final = await endedStatus(handle);
    // The node's in-flight mark closes once it has read how the flip ended: then nothing is left to run.
    await world.client.workflow.getHandle(nodeMarkId(input.node)).result();
    await world.stopWorkers();
    return { input, final };
  }

  for (const [action, exit, ending] of [
    ['approve', 0, 'a completed runbook from its result'],
    ['abort', 5, "an aborted runbook from its failure's details"],
  ] as const)
    it(
      `shows ${ending}: a stand-in worker polling its queue is handed no query to replay`,
      { timeout: 600_000 },
      async () => {
        await using world = await runbookWorld();
        const { input, final } = await endedFlip(world, action);
        const worker = standInWorker(world, runbookWorkflowId(input.node));
        try {
          const status = await meshLoading({ MESH_TASK_QUEUE: world.taskQueue }, 'status', input.node);
          assert.equal(status.code, exit, status.stderr);
          assert.match(status.stdout, new RegExp(final.phase));
          assert.ok(final.steps.length > 5);
          for (const step of final.steps)
            assert.match(status.stdout, new RegExp(`${step.name}\\s+${step.state}`));
          assert.equal(await worker.handedSoon(), 'nothing', 'status asked a worker to replay the runbook');
        } finally {
          worker.stop();
        }
      },
    );

  it(
    'reads a run as the SDK reads it: description, search attributes, query, input and end',
    { timeout: 600_000 },
    async () => {
      await using world = await runbookWorld();
      const { input, handle } = await heldAtGateApply(world);
      const { address, namespace } = harnessTarget();
      const reads = new TemporalReads({ address }, namespace);
      try {
        const sdk = await handle.describe();
        const light = await reads.describe(handle.workflowId);
        assert.deepEqual(
          { ...light, pendingActivities: undefined },
          {
            workflowId: sdk.workflowId,
            runId: sdk.runId,
            type: sdk.type,
            taskQueue: sdk.taskQueue,
            status: sdk.status.name,
            startTime: sdk.startTime,
            searchAttributes: light.searchAttributes,
            pendingActivities: undefined,
          },
        );
        assert.equal(light.searchAttributes[MESH_NODE.name], sdk.typedSearchAttributes.get(MESH_NODE));
        assert.deepEqual(
          await reads.query(handle.workflowId, '', statusQuery.name, 5_000),
          await handle.query(statusQuery),
        );
        assert.deepEqual(await reads.input(handle.workflowId, sdk.runId), JSON.parse(JSON.stringify(input)));
        assert.equal(await reads.ending(handle.workflowId), undefined, 'a running run has no end');

        await handle.terminate('the operator gave up');
        const sdkEnd = await handle.result().catch((error: unknown) => error);
        assert.ok(sdkEnd instanceof WorkflowFailedError);
        assert.deepEqual(await reads.ending(handle.workflowId), {
          closed: 'terminated',
          message: sdkEnd.cause?.message,
        });
        assert.equal((await reads.describe(handle.workflowId)).status, 'TERMINATED');
      } finally {
        reads.close();
      }
    },
  );

  it('says a run does not exist, and opens a new connection after the last one closed', async () => {
    const { address, namespace } = harnessTarget();
    const reads = new TemporalReads({ address }, namespace);
    try {
      await assert.rejects(reads.describe(runbookWorkflowId('nobody-here')), { name: 'RunNotFound' });
      reads.close();
      // A server restart closes the session as this does; the next read must not fail on the dead one.
      assert.equal(await reads.pollers(`nobody-polls-${Date.now()}`), 0);
    } finally {
      reads.close();
    }
  });
});
