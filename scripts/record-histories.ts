import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import {
  Client,
  WorkflowContinuedAsNewError,
  type WorkflowHandle,
  type WorkflowHandleWithFirstExecutionRunId,
} from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { hostRootFromMesh } from '../activities';
import { dockerResolver } from '../docker/endpoints';
import { startRunbook } from '../client/start-runbook';
import { BASE_IMAGE, DockerEngine, LABEL } from '../docker/engine';
import { hostPathOnNode } from '../docker/placement';
import { acquireLock, LocalMesh } from '../mesh/local';
import { seedEdgeScenario } from '../mesh/local/scenarios/edge-flip-incident';
import { seedEdgeFleet } from '../mesh/local/scenarios/edge-fleet';
import { seedForgeScenario } from '../mesh/local/scenarios/forge-move';
import { startDataPathMoveFleet, startEdgeFlipFleet } from '../client/start-fleet';
import { seedStoreFleet } from '../mesh/local/scenarios/store-fleet';
import { removeImages } from '../test/support/docker';
import { decide, freePort, statusWhen, waitingAt } from '../test/support/runbooks';
import { createRunbookWorker } from '../worker/create-worker';
import { workflowsFromSource } from '../worker/workflow-code';
import { clearNode, dataPathMove, dataPathMoveFleet, edgeFlip, edgeFlipFleet } from '../workflows';
import { runbookWorkflowId, statusQuery } from '../workflows/contracts';
import { lockKeeperId, releaseLocks } from '../workflows/lock';
import { nodeMarkId, runbookEndedSignal } from '../workflows/node-mark-contracts';
import { startClearance } from '../client/start-clearance';
import { taskPoints } from '../test/support/reset';
import { RunbookPolicy } from '../workflows/policy';
import { testPolicy } from '../test/support/test-policy';
import type { DataPathMoveInputArg, EdgeFlipInputArg, RunbookStatus } from '../workflows/contracts';
import { ephemeralDevServer } from '../worker/ephemeral-dev-server';
import type { temporal } from '@temporalio/proto';

type ResetRequest = temporal.api.workflowservice.v1.IResetWorkflowExecutionRequest;

/**
 * Records the runbook histories that test/integration/edge-flip-replay.test.ts replays on every run: the
 * edge flip's happy path and incident (held → take → approve), and the data-path move's incident
 * (unrecreated-volume → recreate → remove), each run to completion on a dev server of
 * its own, by a production-built worker over a real local mesh; and the long-lived workflows beside them
 * (test/integration/lock-keeper-replay.test.ts): the lock keeper, node marks and a clearance, as real
 * runbooks drive them. Re-record after an intended,
 * `patched()`-guarded change to the workflow, and commit the JSON with it.
 *
 *   npx tsx scripts/record-histories.ts                          # every story
 *   npx tsx scripts/record-histories.ts edge-flip-fleet.json     # only the stories named by file
 */

const root = join(__dirname, '..');
const OUT = join(root, 'test', 'histories');
const TASK_QUEUE = 'record-histories';

/** Short waits keep the histories small: fewer rechecks, fewer events. */
const TIMINGS = {
  applyReportMs: 30_000,
  healthDeadlineMs: 30_000,
  stabilityWindowMs: 1_500,
  recheckEveryMs: 1_000,
  probeDeadlineMs: 10_000,
};

interface Story {
  file: string;
  /** Fixed, so a re-recording differs from the last one only in ports, paths and times. */
  node: string;
  start(client: Client, mesh: LocalMesh, node: string): Promise<WorkflowHandle>;
  /**
   * Resolves to other runs the story recorded (file → workflow id and run, the latest run without one); a
   * file named here is taken from that run, the story's own file included.
   */
  drive(handle: WorkflowHandle, client: Client, mesh: LocalMesh): Promise<void | Runs>;
  /** Other runs the story started (a fleet's nodes) whose histories are recorded too: file → workflow id. */
  children?: Record<string, string>;
  /** The file the story's first run goes to when it continued as new (the story's file gets the last run). */
  firstRun?: string;
  /** The nodes the story seeds besides `node`, whose containers go after it. */
  nodes?: string[];
  /** The phase the runbook ends in; completed unless said. */
  ends?: 'aborted' | 'failed' | 'terminated';
}

/** Recorded runs: file → workflow id and run id (the latest run without one). */
type Runs = Record<string, [string, string?]>;

/** Reminders within a second, so the recorded waits hold reminder timers and activities too. */
const REMINDING_SOON = RunbookPolicy.parse({ reminders: { afterMs: 1_000, everyMs: 1_000 } });

const FORGE_IMAGE = 'mesh-local/record-histories-forge:latest';

async function startEdgeFlip(
  client: Client,
  mesh: LocalMesh,
  node: string,
  leftovers: boolean,
  beforeStart: () => Promise<void> = async () => undefined,
) {
  const seeded = await seedEdgeScenario(mesh, {
    node,
    predecessor: 'caddy',
    successor: 'route-proxy',
    publicPort: await freePort(),
    stagingPort: await freePort(),
    leftovers,
  });
  const input: EdgeFlipInputArg = {
    node,
    module: 'route-proxy',
    predecessor: 'caddy',
    ...seeded,
    startedBy: 'recorder',
    timings: TIMINGS,
  };
  await beforeStart();
  return startRunbook(client, edgeFlip, input, { taskQueue: TASK_QUEUE });
}

/** An edge flip on a node without leftovers, decided by a reviewer when it asks for the approval. */
function decidedAtApproval(file: string, node: string, action: 'approve' | 'abort'): Story {
  return {
    file,
    node,
    ...(action === 'abort' ? { ends: 'aborted' as const } : {}),
    start: (client, mesh, n) => startEdgeFlip(client, mesh, n, false),
    async drive(handle) {
      await statusWhen(handle, waitingAt('approve-stop-predecessor'), 120_000);
      await decide(handle, action, undefined, 'reviewer');
    },
  };
}

const STORIES: Story[] = [
  decidedAtApproval('edge-flip-happy.json', 'hist-happy', 'approve'),
  {
    file: 'edge-flip-incident-take.json',
    node: 'hist-incident',
    start: (client, mesh, node) => startEdgeFlip(client, mesh, node, true),
    async drive(handle) {
      const held = await statusWhen(handle, waitingAt('gate-apply'), 120_000);
      if (held.waiting?.verdict !== 'held') throw new Error(`expected a hold, got ${held.waiting?.verdict}`);
      await decide(handle, 'take', undefined, 'recorder');
      await statusWhen(handle, waitingAt('approve-stop-predecessor'), 120_000);
      await statusWhen(handle, (s) => (s.waiting?.reminders ?? 0) >= 2, 120_000);
      // Refused (four eyes) and kept on record: the replay covers a refusal too.
      await decide(handle, 'approve', undefined, 'recorder').catch(() => undefined);
      await decide(handle, 'approve', undefined, 'reviewer');
    },
  },
  {
    // The successor killed while the approval waits: the watch ends the ask, recheck-successor waits (a
    // reminder at once) and watches, the successor started again: it says ok now; recheck, the approval
    // asked anew and approved.
    file: 'edge-flip-approval-changed.json',
    node: 'hist-changed',
    start: (client, mesh, node) => startEdgeFlip(client, mesh, node, false),
    async drive(handle) {
      await statusWhen(handle, waitingAt('approve-stop-predecessor'), 120_000);
      const edge = new DockerEngine().docker.getContainer('hist-changed.route-proxy.edge');
      await edge.kill();
      await statusWhen(handle, waitingAt('recheck-successor'), 120_000);
      await edge.start();
      // The watched gate sees it run, then turn healthy, and waits for a recheck saying so.
      await statusWhen(
        handle,
        (s) => waitingAt('recheck-successor')(s) && s.waiting?.verdict === 'ok',
        120_000,
      );
      await decide(handle, 'recheck', undefined, 'recorder');
      await statusWhen(handle, waitingAt('approve-stop-predecessor'), 120_000);
      await decide(handle, 'approve', undefined, 'reviewer');
    },
  },
  // Aborted at the approval: the successor comes off again and the runbook fails, carrying its status.
  decidedAtApproval('edge-flip-aborted.json', 'hist-aborted', 'abort'),
  {
    // A fleet of two: the canary approved on itself, then the held node taken and approved on itself.
    file: 'edge-flip-fleet.json',
    node: 'hist-fleet-canary',
    nodes: ['hist-fleet-held'],
    children: { 'edge-flip-fleet-child-held.json': runbookWorkflowId('hist-fleet-held') },
    async start(client, mesh, node) {
      const runbooks = await fleetRunbooks(mesh, [node, 'hist-fleet-held'], 'hist-fleet-held');
      const input = { module: 'route-proxy', runbooks, waveSize: 1, startedBy: 'recorder' };
      return startEdgeFlipFleet(client, edgeFlipFleet, input, { taskQueue: TASK_QUEUE });
    },
    async drive(fleet, client) {
      const onNode = (node: string) => client.workflow.getHandle(runbookWorkflowId(node));
      await statusWhen(fleet, waitingAt('hist-fleet-canary'), 120_000);
      const canary = onNode('hist-fleet-canary');
      await statusWhen(canary, waitingAt('approve-stop-predecessor'), 120_000);
      await decide(canary, 'approve', undefined, 'reviewer');
      const held = await statusWhen(fleet, waitingAt('hist-fleet-held'), 120_000);
      if (held.waiting?.verdict !== 'held') throw new Error(`expected a hold, got ${held.waiting?.verdict}`);
      const node = onNode('hist-fleet-held');
      await decide(node, 'take', undefined, 'recorder');
      await statusWhen(node, waitingAt('approve-stop-predecessor'), 120_000);
      await decide(node, 'approve', undefined, 'reviewer');
    },
  },
  {
    // canary-then-waves, a wave of two one at a time: the canary approved on itself, the waves once at the
    // fleet; the clean node stops its predecessor on that, the held one is taken and approved on itself.
    file: 'edge-flip-fleet-waves.json',
    node: 'hist-waves-canary',
    nodes: ['hist-waves-clean', 'hist-waves-held'],
    children: { 'edge-flip-fleet-child-waves.json': runbookWorkflowId('hist-waves-clean') },
    async start(client, mesh, node) {
      const nodes = [node, 'hist-waves-clean', 'hist-waves-held'];
      const runbooks = await fleetRunbooks(mesh, nodes, 'hist-waves-held');
      const input = {
        module: 'route-proxy',
        runbooks,
        waveSize: 2,
        maxParallel: 1,
        approvals: 'canary-then-waves' as const,
        startedBy: 'recorder',
      };
      return startEdgeFlipFleet(client, edgeFlipFleet, input, { taskQueue: TASK_QUEUE });
    },
    async drive(fleet, client) {
      const onNode = (node: string) => client.workflow.getHandle(runbookWorkflowId(node));
      await statusWhen(fleet, waitingAt('hist-waves-canary'), 120_000);
      const canary = onNode('hist-waves-canary');
      await statusWhen(canary, waitingAt('approve-stop-predecessor'), 120_000);
      await decide(canary, 'approve', undefined, 'reviewer');
      await statusWhen(fleet, waitingAt('approve-waves'), 120_000);
      await decide(fleet, 'approve', undefined, 'reviewer');
      await statusWhen(fleet, waitingAt('hist-waves-held'), 120_000);
      const held = onNode('hist-waves-held');
      await decide(held, 'take', undefined, 'recorder');
      await statusWhen(held, waitingAt('approve-stop-predecessor'), 120_000);
      await decide(held, 'approve', undefined, 'reviewer');
    },
  },
  {
    // canary-then-waves past a history bound of 100 events: the canary and the waves' approval fill half of
    // the first run, which continues as new before the first later node; the last run flips the two others.
    file: 'edge-flip-fleet-continued.json',
    firstRun: 'edge-flip-fleet-continued.first-run.json',
    node: 'hist-bound-canary',
    nodes: ['hist-bound-b', 'hist-bound-c'],
    async start(client, mesh, node) {
      const runbooks = await fleetRunbooks(mesh, [node, 'hist-bound-b', 'hist-bound-c'], undefined);
      const input = {
        module: 'route-proxy',
        runbooks,
        approvals: 'canary-then-waves' as const,
        historyBound: 100,
        startedBy: 'recorder',
      };
      return startEdgeFlipFleet(client, edgeFlipFleet, input, { taskQueue: TASK_QUEUE });
    },
    async drive(fleet, client) {
      await statusWhen(fleet, waitingAt('hist-bound-canary'), 120_000);
      const canary = client.workflow.getHandle(runbookWorkflowId('hist-bound-canary'));
      await statusWhen(canary, waitingAt('approve-stop-predecessor'), 120_000);
      await decide(canary, 'approve', undefined, 'reviewer');
      await statusWhen(fleet, waitingAt('approve-waves'), 120_000);
      await decide(fleet, 'approve', undefined, 'reviewer');
    },
  },
  {
    // The edge flip of a node whose predecessor does not run: refused at preflight, it ends there.
    file: 'edge-flip-refused.json',
    node: 'hist-refused',
    ends: 'failed',
    start: (client, mesh, node) =>
      startEdgeFlip(client, mesh, node, false, () => new DockerEngine().stop(`${node}.caddy.edge`, 1)),
    async drive() {
      // Nothing to decide: the runbook ends by itself.
    },
  },
  {
    // The forge incident: the push leaves the container on A; recreate catches up and recreates it on B.
    file: 'data-path-move-recreate.json',
    node: 'hist-forge',
    start: startForgeMove,
    async drive(handle) {
      await recreateAtGateApply(handle);
      await statusWhen(handle, waitingAt('approve-remove-old-data'), 120_000);
      await decide(handle, 'remove', undefined, 'reviewer');
    },
  },
  {
    // The forge incident, and a user of A that starts while the approval to remove A waits: its watch
    // ends the ask, which is asked anew without remove; once the user is gone, asked anew with remove.
    file: 'data-path-move-old-data-user.json',
    node: 'hist-forge-user',
    start: startForgeMove,
    async drive(handle, _client, mesh) {
      await recreateAtGateApply(handle);
      const asked = await statusWhen(handle, waitingAt('approve-remove-old-data'), 120_000);
      const { hostRoot } = await mesh.nodeState('hist-forge-user');
      const user = await new DockerEngine().docker.createContainer({
        name: 'hist-forge-user-of-a',
        Image: BASE_IMAGE,
        Cmd: ['sh', '-c', 'trap "exit 0" TERM; sleep 600 & wait'],
        HostConfig: { Binds: [`${hostPathOnNode(hostRoot, '/srv/forge')}:/data`] },
      });
      try {
        await user.start();
        const inUse = await statusWhen(
          handle,
          (s) => waitingAt('approve-remove-old-data')(s) && s.waiting?.evidence !== asked.waiting?.evidence,
          120_000,
        );
        await user.remove({ force: true });
        await statusWhen(
          handle,
          (s) => waitingAt('approve-remove-old-data')(s) && s.waiting?.evidence !== inUse.waiting?.evidence,
          120_000,
        );
      } finally {
        await user.remove({ force: true }).catch(() => undefined);
      }
      await decide(handle, 'remove', undefined, 'reviewer');
    },
  },
  {
    // A data-path-move fleet of three (canary-then-waves): the canary removes A on its own approval, the
    // waves are approved once at the fleet, and both later nodes remove theirs on that approval.
    file: 'data-path-move-fleet.json',
    node: 'hist-move-canary',
    nodes: ['hist-move-b', 'hist-move-c'],
    children: { 'data-path-move-fleet-child.json': runbookWorkflowId('hist-move-b') },
    async start(client, mesh, node) {
      const nodes = [node, 'hist-move-b', 'hist-move-c'];
      const [from, to] = ['/srv/forge', '/var/lib/forge'];
      await seedStoreFleet(mesh, { module: 'store', image: FORGE_IMAGE, from, nodes });
      const runbooks = nodes.map((n) => ({
        node: n,
        module: 'store',
        from,
        to,
        startedBy: 'recorder',
        timings: TIMINGS,
      }));
      return startDataPathMoveFleet(
        client,
        dataPathMoveFleet,
        { module: 'store', from, to, runbooks, approvals: 'canary-then-waves', startedBy: 'recorder' },
        { taskQueue: TASK_QUEUE },
      );
    },
    async drive(fleet, client) {
      await statusWhen(fleet, waitingAt('hist-move-canary'), 120_000);
      const canary = client.workflow.getHandle(runbookWorkflowId('hist-move-canary'));
      await statusWhen(canary, waitingAt('approve-remove-old-data'), 120_000);
      await decide(canary, 'remove', undefined, 'reviewer');
      await statusWhen(fleet, waitingAt('approve-move-waves'), 120_000);
      await decide(fleet, 'approve', undefined, 'reviewer');
    },
  },
  {
    // The lock keeper, started with a flip's request (held at gate-apply); a move of the flip's module waits;
    // a release of the flip from outside is ignored (the flip says it holds); the flip is aborted, the move
    // gets the locks and is refused at preflight (its node holds no data at its path). The flip's mark goes
    // with its clean end.
    file: 'lock-keeper.json',
    node: 'hist-lock',
    nodes: ['hist-lock-waiter'],
    ends: 'aborted',
    start: (client, mesh, node) => startEdgeFlip(client, mesh, node, true),
    async drive(flip, client, mesh) {
      await statusWhen(flip, waitingAt('gate-apply'), 120_000);
      const keeperId = lockKeeperId(TASK_QUEUE);
      const keeperRun = (await client.workflow.getHandle(keeperId).describe()).runId;
      const keeper = client.workflow.getHandle(keeperId, keeperRun);
      const waiter = 'hist-lock-waiter';
      await seedEdgeScenario(mesh, {
        node: waiter,
        predecessor: 'caddy',
        successor: 'route-proxy',
        publicPort: await freePort(),
        stagingPort: await freePort(),
        leftovers: false,
      });
      const move = await startRunbook(
        client,
        dataPathMove,
        {
          node: waiter,
          module: 'route-proxy',
          from: `/srv/${waiter}/a`,
          to: `/srv/${waiter}/b`,
          startedBy: 'recorder',
          timings: TIMINGS,
        },
        { taskQueue: TASK_QUEUE },
      );
      await statusWhen(move, (s) => locksNoteOf(s).startsWith('waits for'), 120_000);
      await keeper.signal(releaseLocks, { workflowId: flip.workflowId, runId: firstRunId(flip) });
      await untilActivityCompleted(keeper, 'lockHoldOf');
      await decide(flip, 'abort', undefined, 'reviewer');
      await flip.result().catch(() => undefined);
      const refused = await move.result().then(
        () => 'completed',
        async () => (await move.query(statusQuery)).phase,
      );
      if (refused !== 'failed') throw new Error(`the waiting move ended ${refused}, not refused`);
      await keeper.result();
      await client.workflow.getHandle(nodeMarkId('hist-lock')).result();
      return {
        'lock-keeper.json': [keeperId, keeperRun],
        'node-mark-unmarked.json': [nodeMarkId('hist-lock')],
      };
    },
  },
  {
    // A flip terminated at its approval (a Web UI button) leaves its node's mark: told, the mark reads how
    // the run closed and continues as new keeping it; the operator's clearance (the node's latest run,
    // recorded as this story's file) clears it.
    file: 'clear-node.json',
    node: 'hist-left',
    ends: 'terminated',
    start: (client, mesh, node) => startEdgeFlip(client, mesh, node, false),
    async drive(flip, client) {
      await statusWhen(flip, waitingAt('approve-stop-predecessor'), 120_000);
      const markId = nodeMarkId('hist-left');
      const markRun = (await client.workflow.getHandle(markId).describe()).runId;
      const run = { workflowId: flip.workflowId, runId: firstRunId(flip) };
      await client.workflow.getHandle(run.workflowId, run.runId).terminate('a Web UI button');
      await client.workflow.getHandle(markId).signal(runbookEndedSignal, run);
      const continued = await client.workflow
        .getHandle(markId, markRun, { followRuns: false })
        .result()
        .then(
          () => false,
          (error: unknown) => error instanceof WorkflowContinuedAsNewError,
        );
      if (!continued) throw new Error(`the mark of hist-left did not continue as new keeping the end`);
      const clearance = await startClearance(
        client,
        clearNode,
        { node: 'hist-left', by: 'recorder', reason: 'route-proxy unassigned by hand; caddy serves' },
        { taskQueue: TASK_QUEUE },
      );
      await clearance.result();
      await client.workflow.getHandle(markId).result();
      return { 'node-mark-left.json': [markId, markRun], 'node-mark-cleared.json': [markId] };
    },
  },
  {
    // A flip held at gate-apply, reset to its last workflow task (a Temporal Reset past its marks): the
    // reset run carries the mark on, and its clean abort lets it go.
    file: 'node-mark-reset-unmarked.json',
    node: 'hist-reset',
    ends: 'aborted',
    start: (client, mesh, node) => startEdgeFlip(client, mesh, node, true),
    async drive(base, client) {
      await statusWhen(base, waitingAt('gate-apply'), 120_000);
      const last = taskPoints(await base.fetchHistory()).at(-1);
      if (!last) throw new Error('the flip completed no workflow task');
      // What the Web UI's Reset button does: replayed up to that task, the run goes on as a new one.
      const request = {
        namespace: client.options.namespace,
        workflowExecution: { workflowId: base.workflowId, runId: firstRunId(base) },
        workflowTaskFinishEventId: last.task,
        reason: 'a reset',
        requestId: randomUUID(),
      } as unknown as ResetRequest;
      const { runId } = await client.workflowService.resetWorkflowExecution(request);
      if (!runId) throw new Error('the reset named no new run');
      const reset = client.workflow.getHandle(base.workflowId, runId);
      const waiting = await statusWhen(reset, (s) => !!s.waiting, 120_000);
      await decide(reset, 'abort', waiting.waiting?.gate, 'reviewer');
      await reset.result().catch(() => undefined);
      await client.workflow.getHandle(nodeMarkId('hist-reset')).result();
      return { 'node-mark-reset-unmarked.json': [nodeMarkId('hist-reset')] };
    },
  },
];

/** What the runbook's locks step says: what it holds, or whom it waits for. */
function locksNoteOf(status: RunbookStatus): string {
  return status.steps.find((step) => step.name === 'locks')?.note ?? '';
}

/** Waits until `handle`'s history has an `activity` completed. */
async function untilActivityCompleted(handle: WorkflowHandle, activity: string): Promise<void> {
  for (;;) {
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduled = new Set(
      events
        .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === activity)
        .map((e) => String(e.eventId)),
    );
    const done = events.some((e) =>
      scheduled.has(String(e.activityTaskCompletedEventAttributes?.scheduledEventId)),
    );
    if (done) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function startForgeMove(client: Client, mesh: LocalMesh, node: string) {
  await seedForgeScenario(mesh, {
    node,
    module: 'forge',
    image: FORGE_IMAGE,
    from: '/srv/forge',
    port: await freePort(),
  });
  const input: DataPathMoveInputArg = {
    node,
    module: 'forge',
    from: '/srv/forge',
    to: '/var/lib/forge',
    containers: ['web'],
    startedBy: 'recorder',
    timings: TIMINGS,
  };
  return startRunbook(client, dataPathMove, input, { taskQueue: TASK_QUEUE });
}

/** The forge's push left its container on A: recreate catches up and recreates it on B. */
async function recreateAtGateApply(handle: WorkflowHandle): Promise<void> {
  const unrecreated = await statusWhen(handle, waitingAt('gate-apply'), 120_000);
  if (unrecreated.waiting?.verdict !== 'unrecreated-volume')
    throw new Error(`expected unrecreated-volume, got ${unrecreated.waiting?.verdict}`);
  await decide(handle, 'recreate', undefined, 'recorder');
}

function firstRunId(handle: WorkflowHandle): string {
  const runId = (handle as Partial<WorkflowHandleWithFirstExecutionRunId>).firstExecutionRunId;
  if (runId === undefined) throw new Error(`${handle.workflowId}: its start did not say its first run`);
  return runId;
}

/** How the story's runbook ended: its phase, or `terminated`. */
async function endOf(client: Client, handle: WorkflowHandle, story: Story): Promise<string> {
  if (story.ends === 'terminated') {
    const first = await client.workflow.getHandle(handle.workflowId, firstRunId(handle)).describe();
    return first.status.name === 'TERMINATED' ? 'terminated' : first.status.name;
  }
  return handle.result().then(
    (status) => (status as RunbookStatus).phase,
    async () => (await handle.query(statusQuery)).phase,
  );
}

async function record(client: Client, mesh: LocalMesh, story: Story): Promise<string> {
  const handle = await story.start(client, mesh, story.node);
  const recorded = (await story.drive(handle, client, mesh)) ?? {};
  const phase = await endOf(client, handle, story);
  if (phase !== (story.ends ?? 'completed')) throw new Error(`${story.file}: the runbook ended ${phase}`);
  const runs: Runs = {
    [story.file]: [handle.workflowId],
    ...(story.firstRun ? { [story.firstRun]: [handle.workflowId, firstRunId(handle)] } : {}),
    ...Object.fromEntries(Object.entries(story.children ?? {}).map(([file, id]) => [file, [id]])),
    ...recorded,
  };
  const written: string[] = [];
  for (const [file, [workflowId, runId]] of Object.entries(runs)) {
    const path = join(OUT, file);
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    await writeFile(path, `${historyToJSON(history)}\n`);
    // A history that does not replay against the code that wrote it is not worth committing.
    await Worker.runReplayHistory(workflowsFromSource(), history, workflowId);
    written.push(`${relative(root, path)}: ${history.events?.length ?? 0} events`);
  }
  return written.join('\n');
}

/** The stories named on the command line (by file), else every one. */
function chosen(): Story[] {
  const named = process.argv.slice(2);
  if (named.length === 0) return STORIES;
  const unknown = named.filter((file) => !STORIES.some((story) => story.file === file));
  if (unknown.length > 0)
    throw new Error(
      `no story records ${unknown.join(', ')}; the files are ${STORIES.map((s) => s.file).join(', ')}`,
    );
  return STORIES.filter((story) => named.includes(story.file));
}

/** Containers of the recording's nodes, from this run or an interrupted earlier one. */
async function removeContainers(engine: DockerEngine): Promise<void> {
  for (const node of STORIES.flatMap((story) => [story.node, ...(story.nodes ?? [])])) {
    const found = await engine.listByLabels({ [LABEL.node]: node });
    await Promise.all(found.map((c) => engine.remove(c.Id)));
  }
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const engine = new DockerEngine();
  await removeContainers(engine);
  const stateDir = await mkdtemp(join(tmpdir(), 'mesh-record-'));
  const mesh = new LocalMesh({ stateDir, engine });
  const env = await TestWorkflowEnvironment.createLocal({
    server: ephemeralDevServer(),
  });
  try {
    const worker = await createRunbookWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      deps: {
        mesh,
        dockerFor: dockerResolver({}),
        hostRootOf: hostRootFromMesh(mesh),
        stateDir: join(stateDir, 'runbook'),
        policy: testPolicy(REMINDING_SOON),
      },
      nodeQueues: { localMesh: stateDir },
      taskQueue: TASK_QUEUE,
      identity: 'record-histories',
    });
    // The client's identity is in the history too: a fixed one, not this machine's pid@hostname.
    const client = new Client({
      connection: env.connection,
      namespace: env.namespace ?? 'default',
      identity: 'record-histories',
    });
    await worker.runUntil(async () => {
      for (const story of chosen()) process.stdout.write(`${await record(client, mesh, story)}\n`);
    });
  } finally {
    await env.teardown();
    for (const node of STORIES.flatMap((story) => [story.node, ...(story.nodes ?? [])])) {
      // A node agent may still be applying: wait for it, so it creates nothing after the cleanup.
      const release = await acquireLock(mesh.layout.nodeLock(node), { timeoutMs: 60_000 }).catch(
        () => undefined,
      );
      await rm(mesh.layout.inboxDir(node), { recursive: true, force: true });
      await release?.();
    }
    await removeContainers(engine);
    await removeImages([FORGE_IMAGE], engine);
    await rm(stateDir, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`record-histories: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);

/** Seeds a fleet's nodes running caddy (`held` with route-proxy's leftovers); each node's edge-flip input. */
async function fleetRunbooks(mesh: LocalMesh, nodes: string[], held: string | undefined) {
  const seeds = [];
  for (const node of nodes)
    seeds.push({
      node,
      publicPort: await freePort(),
      stagingPort: await freePort(),
      leftovers: node === held,
    });
  const seeded = await seedEdgeFleet(mesh, { predecessor: 'caddy', successor: 'route-proxy', nodes: seeds });
  return seeded.map((s) => ({
    ...s,
    module: 'route-proxy',
    predecessor: 'caddy',
    startedBy: 'recorder',
    timings: TIMINGS,
  }));
}
