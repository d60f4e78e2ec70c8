import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { startEdgeFlipFleet } from '../../client/start-fleet';
import { freeLocalPort } from '../../worker/ports';
import { edgeFlipFleet } from '../../workflows';
import { nodeTaskQueue, runbookWorkflowId } from '../../workflows/contracts';
import { fleetWorkflowId } from '../../workflows/fleet/contracts';
import type { BenchEnv } from './bench-env';
import { timeStatus, type CliTiming } from './cli-timing';
import { fleetHistories, type FleetHistories } from './fleet-histories';
import { terminateLeftovers } from './fleet-leftovers';
import { operateFleet, type OperatorDecision } from './fleet-operator';
import type { FleetDatabase, FleetServer, FleetSite } from './fleet-site';
import { CpuWindow, workersCpu } from './resources';
import { simulatedFleetRunbooks, simulatedNodes, simulatedSuccessor } from './simulated-node/simulated-fleet';
import { watchFirstWait, type WatchTiming } from './watch-timing';
import { BenchWorker } from './worker-process';

/**
 * Every node's worker long-polls its own queue: a fleet of 1,000 holds over 2,000 polls open in one
 * namespace, past a Temporal server's default of 1,200 concurrent long polls per namespace
 * (frontend.namespaceCount), which then refuses polls and fails node workers. A namespace serving a real
 * fleet of that size needs the same setting.
 */
export const FLEET_SERVER_ARGS: readonly string[] = [
  '--dynamic-config-value',
  'frontend.namespaceCount=20000',
  '--dynamic-config-value',
  'frontend.namespaceRPS=100000',
];

/** How many nodes run at once after the canary. */
export const FLEET_WAVE_SIZE = 25;
/** The nodes' timings: the defaults, but a simulated container is stable after half a second, not three. */
const FLEET_TIMINGS = { stabilityWindowMs: 500 };
const STARTER = 'bench-starter';
const OPERATOR = 'bench-operator';
const STATUS_SAMPLES = 3;
const LEFTOVER = 'the bench fleet that started it is over';
const FLEET_WORKER_MAIN = join(__dirname, 'simulated-node', 'simulated-fleet-worker-main.ts');
const MB = 2 ** 20;
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** One fleet of simulated nodes flipped through the executor, and what it cost. */
export interface FleetRun {
  server: FleetServer;
  nodes: number;
  waveSize: number;
  phase: string;
  outcome: string | undefined;
  failure?: string;
  /** The fleet's start to its close. */
  wallMs: number;
  /** Every decision the operator gave, and how many of them were approvals. */
  approvals: number;
  decisions: OperatorDecision[];
  histories: FleetHistories;
  /** The fleet worker's process (workflows, activities, every node worker, the simulated nodes) over wallMs. */
  worker: { cpuMs: number | undefined; peakRssMb: number; idleRssMb: number };
  /** The dev server's process, or the lab's four Temporal services, over wallMs. */
  temporalCpuMs: number | undefined;
  /** The lab's PostgreSQL (postmaster and backends) over wallMs. */
  postgresCpuMs?: number;
  /** The dev server's SQLite file (with its journal), or the lab's PostgreSQL, before the start and after the close. */
  database: FleetDatabase | undefined;
  /** Workflows of this fleet still running after it, terminated so none outlives the bench. */
  terminatedLeftovers: number;
  statusCli: CliTiming;
  /** `mesh runbook watch` of the fleet, started with it: how soon it showed the fleet's first wait. */
  watch: WatchTiming;
}

/** How long the bench waits for the node workers to poll before it starts the fleet anyway. */
const POLLERS_PATIENCE_MS = 120_000;

/** Whether any worker polls the node's own queue, on any of its partitions. */
async function polled(client: Client, queue: string): Promise<boolean> {
  const { enums } = temporal.api;
  const { versionsInfo } = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: queue, kind: enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    apiMode: enums.v1.DescribeTaskQueueMode.DESCRIBE_TASK_QUEUE_MODE_ENHANCED,
    taskQueueTypes: [enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY],
    reportPollers: true,
  });
  return Object.values(versionsInfo ?? {}).some((version) =>
    Object.values(version.typesInfo ?? {}).some((type) => (type.pollers ?? []).length > 0),
  );
}

/**
 * Waits until every node's own queue has a poller (the node workers start after the worker's ready line),
 * for two minutes at most; returns the nodes still without one.
 */
async function nodeQueuesPolled(client: Client, taskQueue: string, nodes: string[]): Promise<string[]> {
  const deadline = Date.now() + POLLERS_PATIENCE_MS;
  let waiting = nodes;
  while (waiting.length > 0 && Date.now() < deadline) {
    const seen = await Promise.all(waiting.map((node) => polled(client, nodeTaskQueue(taskQueue, node))));
    waiting = waiting.filter((_, i) => !seen[i]);
    if (waiting.length > 0) await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  return waiting;
}

/**
 * A fleet of `size` simulated nodes (scripts/bench/simulated-node/) flipped by one edgeFlipFleet runbook,
 * approvals canary-then-waves, on `site`'s Temporal, on a worker process of its own so its CPU time and
 * memory are this fleet's; the operator answers its waits as bench-operator, another identity than the
 * starter. The task queue is the bench's own (random) and the module carries `tag`: nothing is shared with
 * another run's or the lab's own runbooks.
 */
export async function runFleet(
  env: BenchEnv,
  site: FleetSite,
  size: number,
  tag: string,
  log: (line: string) => void,
): Promise<FleetRun> {
  const plan = { size, tag, publicPort: await freeLocalPort(), stagingPort: await freeLocalPort() };
  const taskQueue = `${env.taskQueue}-fleet-${size}`;
  const say = (line: string) => log(`fleet ${size} on the ${site.server}: ${line}`);
  const worker = await BenchWorker.start({
    address: site.address,
    namespace: site.namespace,
    taskQueue,
    stateDir: await env.dir(`fleet-${size}-`),
    bundle: env.bundle,
    main: FLEET_WORKER_MAIN,
    env: { MESH_SIMULATED_FLEET: JSON.stringify(plan) },
  });
  const workflowIds: string[] = [];
  try {
    const nodes = simulatedNodes(plan).map((n) => n.node);
    const unpolled = await nodeQueuesPolled(site.client, taskQueue, nodes);
    say(`${size} simulated nodes up, ${size - unpolled.length} of their node workers seen polling`);
    const idleRss = worker.rss();
    const module = simulatedSuccessor(plan);
    const fleetId = fleetWorkflowId(module);
    workflowIds.push(fleetId, ...nodes.map(runbookWorkflowId));
    const database = await site.databaseWindow();
    const cpu = CpuWindow.open({ workers: { worker: worker.pid }, ...site.meters() });
    worker.resetPeak();
    const started = Date.now();
    const handle = await startEdgeFlipFleet(
      site.client,
      edgeFlipFleet,
      {
        module,
        runbooks: simulatedFleetRunbooks(plan, { startedBy: STARTER, timings: FLEET_TIMINGS }),
        waveSize: FLEET_WAVE_SIZE,
        approvals: 'canary-then-waves',
        startedBy: STARTER,
      },
      { taskQueue },
    );
    const cliServer = { address: site.address, namespace: site.namespace, taskQueue };
    const watch = watchFirstWait(cliServer, `fleet-${module}`);
    const decisions: OperatorDecision[] = [];
    const operator = operateFleet(site.client, fleetId, OPERATOR, decisions);
    // An operator who cannot go on leaves the fleet waiting: it is cancelled rather than waited for.
    const stuck = operator.then(
      () => new Promise<never>(() => undefined),
      async (error: unknown) => {
        await handle.cancel().catch(() => undefined);
        return { status: undefined, failure: `the operator stopped: ${message(error)}` };
      },
    );
    const raced = await Promise.race([
      handle.result().then(
        (status) => ({ status, failure: undefined }),
        (error: unknown) => ({ status: undefined, failure: message(error) }),
      ),
      stuck,
    ]);
    // What the worker said last explains a fleet that did not complete (a node worker refused, say).
    const ended = raced.failure
      ? { ...raced, failure: `${raced.failure}; the worker said: ${worker.log.slice(-1500)}` }
      : raced;
    const wallMs = Date.now() - started;
    const resources = cpu.close();
    const peakRss = worker.peakRss();
    const written = await database();
    await operator.catch(() => undefined);
    const used = workersCpu(resources);
    say(`${ended.status?.phase ?? 'failed'} in ${(wallMs / 1000).toFixed(1)} s; reading histories`);
    const histories = await fleetHistories(site.client, fleetId, nodes.map(runbookWorkflowId));
    const statusCli = await timeStatus(cliServer, `fleet-${module}`, STATUS_SAMPLES);
    const terminatedLeftovers = await terminateLeftovers(site.client, workflowIds.splice(0), LEFTOVER);
    if (terminatedLeftovers > 0) say(`terminated ${terminatedLeftovers} workflow(s) it left running`);
    return {
      server: site.server,
      nodes: size,
      waveSize: FLEET_WAVE_SIZE,
      phase: ended.status?.phase ?? 'failed',
      outcome: ended.status?.outcome,
      ...(ended.failure ? { failure: ended.failure } : {}),
      wallMs,
      approvals: decisions.filter((d) => d.action === 'approve').length,
      decisions,
      histories,
      worker: {
        cpuMs: used && used.ownMs + used.childrenMs,
        peakRssMb: peakRss / MB,
        idleRssMb: idleRss / MB,
      },
      temporalCpuMs: resources.temporalCpuMs,
      ...(resources.postgresCpuMs !== undefined ? { postgresCpuMs: resources.postgresCpuMs } : {}),
      database: written,
      terminatedLeftovers,
      statusCli,
      watch: await watch,
    };
  } finally {
    await worker.stop();
    // A fleet that threw on the way leaves its workflows to this; a finished one has emptied the list.
    await terminateLeftovers(site.client, workflowIds, LEFTOVER).catch((error: unknown) =>
      say(`terminating what it left running: ${message(error)}`),
    );
  }
}
