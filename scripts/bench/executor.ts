import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { DockerEngine } from '../../docker/engine';
import { startRunbook } from '../../client/start-runbook';
import { LABEL } from '../../docker/labels';
import { readNodeAgentState } from '../../mesh/local/node-store';
import { seedEdgeScenario } from '../../mesh/local/scenarios/edge-flip-incident';
import { freeLocalPort } from '../../worker/ports';
import { edgeFlip } from '../../workflows';
import { Timings, type EdgeFlipInputArg, type RunbookStatus } from '../../workflows/contracts';
import type { BenchEnv } from './bench-env';
import { answerUntilClosed, edgeFlipAnswer, statusOf, UnexpectedWait, type AnsweredWait } from './decisions';
import { ContainerEventLog } from './docker-events';
import { historyFacts } from './history-facts';
import { CpuWindow, type Meters, type RunResources } from './resources';
import { stepTimings, type StepTiming } from './step-overhead';

export const PREDECESSOR = 'caddy';
export const SUCCESSOR = 'route-proxy';
const STARTED_BY = 'bench';
/** Not the starter: the approval is four-eyes. */
const DECIDER = 'bench-operator';
/** The runbook's default window: the bench starts its flips without timings. */
const STABILITY_WINDOW_MS = Timings.parse({}).stabilityWindowMs;

/** One edge flip through the executor, and what its status, history and the node tell about it. */
export interface ExecutorRun {
  node: string;
  completed: boolean;
  phase: string;
  failure?: string;
  /** From the start call to the runbook's result, as its client sees it. */
  wallMs: number;
  steps: StepTiming[];
  waits: AnsweredWait[];
  detection: {
    /** The held push's apply report written (its finishedAt) → the gate waits (waiting.since). */
    heldMs?: number;
    /** Docker's health_status: healthy of the successor's edge → gate-apply judged ok (its endedAt). */
    healthyMs?: number;
    /**
     * The moment ok became true (every successor container started at least a stability window ago, and
     * healthy where it has a health check) → gate-apply judged ok: the gate's own latency, without the window.
     */
    stableMs?: number;
    /** A successor container killed inside the window (its die event) → the gate waits (waiting.since). */
    deadMs?: number;
  };
  /** Where the runbook waited for a decision the bench does not make (it then aborted the runbook). */
  stoppedAt?: { gate: string; verdict: string; since: number };
  history: { events: number; bytes: number; byType: Record<string, number> };
  activities: { type: string; ms: number }[];
  /** CPU time of the metered processes from the start call to the close (with `meters`). */
  resources?: RunResources;
}

export interface SeedOptions {
  /** The incident: the successor's data dirs left on disk, so the node holds it until take. */
  leftovers: boolean;
  /**
   * Module names of the node's own (`caddy-<node>`, `route-proxy-<node>`): mesh modules are global, so flips
   * that run at once on several nodes need their own specs (ports). Otherwise the demo's names.
   */
  ownModules?: boolean;
}

/** Seeds a fresh node as the demo does and returns the flip's input (no timings: the runbook's defaults). */
export async function seedEdgeFlip(
  env: BenchEnv,
  node: string,
  { leftovers, ownModules = false }: SeedOptions,
): Promise<EdgeFlipInputArg> {
  const predecessor = ownModules ? `${PREDECESSOR}-${node}` : PREDECESSOR;
  const module = ownModules ? `${SUCCESSOR}-${node}` : SUCCESSOR;
  const scenario = await seedEdgeScenario(env.mesh, {
    node,
    predecessor,
    successor: module,
    publicPort: await freeLocalPort(),
    stagingPort: await freeLocalPort(),
    leftovers,
  });
  return { node, module, predecessor, ...scenario, startedBy: STARTED_BY };
}

/**
 * Where an executor flip runs: the Temporal it is started on (the task queue its runbook worker polls), the
 * Docker engine of its node, and how that node's containers are labelled.
 */
export interface FlipSite {
  client: Client;
  taskQueue: string;
  engine: DockerEngine;
  /** The successor's containers on that engine (label → value), and the label naming each one's role. */
  successorLabels(input: EdgeFlipInputArg): Record<string, string>;
  roleLabel: string;
  /** When the node wrote each apply report that held something; undefined where the bench cannot read them. */
  heldReportsAt?(node: string): Promise<number[]>;
  /** The processes whose CPU time a run costs (its workers, Temporal, PostgreSQL), read afresh for each run. */
  meters?(): Meters;
}

/** The dev server's side: the bench's own Temporal and worker, the local mesh's nodes on the one engine. */
export function devServerSite(env: BenchEnv): FlipSite {
  return {
    client: env.client,
    taskQueue: env.taskQueue,
    engine: env.engine,
    successorLabels: (input) => ({ [LABEL.node]: input.node, [LABEL.module]: input.module }),
    roleLabel: LABEL.container,
    meters: () => env.meters(),
    async heldReportsAt(node) {
      const { reports } = await readNodeAgentState(env.mesh.layout, node);
      return reports
        .filter((report) => report.held.length > 0)
        .map((report) => Date.parse(report.finishedAt));
    },
  };
}

/** A runbook that has not ended by then is terminated (and reported as failed), so the bench always ends. */
const RUN_DEADLINE_MS = 10 * 60_000;
/** After an unexpected wait the runbook is aborted; its compensation gets this long before it is terminated. */
const ABORT_GRACE_MS = 2 * 60_000;

function endAfter(handle: WorkflowHandle, ms: number, why: string): NodeJS.Timeout {
  return setTimeout(() => void handle.terminate(`bench: ${why}`).catch(() => undefined), ms);
}

/** Answers the runbook's decisions until it ends; aborts it at a wait the bench does not answer. */
async function driveToEnd(
  client: Client,
  handle: WorkflowHandle,
  waits: AnsweredWait[],
  stopped: (at: NonNullable<ExecutorRun['stoppedAt']>) => void,
): Promise<string | undefined> {
  const deadline = endAfter(handle, RUN_DEADLINE_MS, 'no end within 10 minutes');
  try {
    await answerUntilClosed(client, handle.workflowId, edgeFlipAnswer, DECIDER, waits);
    return undefined;
  } catch (error) {
    if (!(error instanceof UnexpectedWait)) throw error;
    const { gate, verdict, since } = error.waiting;
    stopped({ gate, verdict, since: Date.parse(since) });
    await handle.cancel();
    const grace = endAfter(handle, ABORT_GRACE_MS, 'compensation did not end within 2 minutes');
    await handle.result().catch(() => undefined);
    clearTimeout(grace);
    return error.message;
  } finally {
    clearTimeout(deadline);
  }
}

/** Kills one of the successor's containers this long after it starts: inside the stability window. */
export interface KillInWindow {
  container: string;
  afterStartMs: number;
}

function killInWindow(engine: DockerEngine, events: ContainerEventLog, kill: KillInWindow): void {
  let killed = false;
  events.onEvent((event) => {
    if (killed || event.action !== 'start' || event.container !== kill.container) return;
    killed = true;
    setTimeout(
      () =>
        void engine.docker
          .getContainer(event.name)
          .kill()
          .catch(() => undefined),
      kill.afterStartMs,
    );
  });
}

/**
 * Runs a seeded edge flip to its end, answering its decisions at once; never throws for a failed runbook.
 * With `kill`, one successor container is killed inside the window: the runbook must wait at gate-apply.
 */
export async function flipThroughExecutor(
  site: FlipSite,
  input: EdgeFlipInputArg,
  kill?: KillInWindow,
): Promise<ExecutorRun> {
  const events = await ContainerEventLog.open(site.engine, site.successorLabels(input), site.roleLabel);
  if (kill) killInWindow(site.engine, events, kill);
  const waits: AnsweredWait[] = [];
  let stoppedAt: ExecutorRun['stoppedAt'];
  let handle: WorkflowHandle<typeof edgeFlip>;
  let failure: string | undefined;
  const cpu = site.meters && CpuWindow.open(site.meters());
  const started = Date.now();
  try {
    handle = await startRunbook(site.client, edgeFlip, input, { taskQueue: site.taskQueue });
    failure = await driveToEnd(site.client, handle, waits, (at) => (stoppedAt = at));
  } finally {
    events.close();
  }
  let status: RunbookStatus | undefined;
  try {
    status = await handle.result();
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    failure ??= error.cause?.message ?? error.message;
  }
  const wallMs = Date.now() - started;
  // Closed at the close: the status query below is the bench's, not the runbook's.
  const resources = cpu?.close();
  status ??= await statusOf(handle);
  const facts = historyFacts(await handle.fetchHistory());
  const steps = stepTimings(status.steps, facts.activities, facts.timers);
  return {
    node: input.node,
    completed: status.phase === 'completed' && failure === undefined,
    phase: status.phase,
    ...(failure !== undefined ? { failure } : {}),
    wallMs,
    steps,
    waits,
    detection: {
      heldMs: await heldDetection(site, input.node, waits),
      healthyMs: healthyDetection(events, started, status),
      stableMs: stableDetection(events, started, status),
      deadMs: kill ? deadDetection(events, started, kill, stoppedAt) : undefined,
    },
    ...(stoppedAt ? { stoppedAt } : {}),
    history: { events: facts.events, bytes: facts.bytes, byType: facts.byType },
    activities: facts.activities.map((a) => ({ type: a.type, ms: a.to - a.from })),
    ...(resources ? { resources } : {}),
  };
}

async function heldDetection(
  site: FlipSite,
  node: string,
  waits: AnsweredWait[],
): Promise<number | undefined> {
  const held = waits.find((wait) => wait.verdict === 'held');
  if (!held || !site.heldReportsAt) return undefined;
  const written = (await site.heldReportsAt(node)).filter((at) => at <= held.since).at(-1);
  return written === undefined ? undefined : held.since - written;
}

function gateApplyOkAt(status: RunbookStatus): number | undefined {
  const gate = status.steps.find((step) => step.name === 'gate-apply' && step.state === 'done');
  return gate?.endedAt ? Date.parse(gate.endedAt) : undefined;
}

function healthyDetection(
  events: ContainerEventLog,
  since: number,
  status: RunbookStatus,
): number | undefined {
  const verdictAt = gateApplyOkAt(status);
  const healthyAt = events.firstAt('health_status: healthy', since, 'edge');
  return verdictAt !== undefined && healthyAt !== undefined && healthyAt <= verdictAt
    ? verdictAt - healthyAt
    : undefined;
}

function stableDetection(
  events: ContainerEventLog,
  since: number,
  status: RunbookStatus,
): number | undefined {
  const verdictAt = gateApplyOkAt(status);
  const readyAt = events.containers().map((name) => {
    const startedAt = events.firstAt('start', since, name);
    const healthyAt = events.firstAt('health_status: healthy', since, name) ?? 0;
    return startedAt === undefined ? undefined : Math.max(startedAt + STABILITY_WINDOW_MS, healthyAt);
  });
  if (verdictAt === undefined || readyAt.length === 0 || readyAt.includes(undefined)) return undefined;
  const okAt = Math.max(...(readyAt as number[]));
  return okAt <= verdictAt ? verdictAt - okAt : undefined;
}

function deadDetection(
  events: ContainerEventLog,
  since: number,
  kill: KillInWindow,
  stoppedAt: ExecutorRun['stoppedAt'],
): number | undefined {
  const diedAt = events.firstAt('die', since, kill.container);
  if (diedAt === undefined || stoppedAt?.gate !== 'gate-apply' || stoppedAt.since < diedAt) return undefined;
  return stoppedAt.since - diedAt;
}
