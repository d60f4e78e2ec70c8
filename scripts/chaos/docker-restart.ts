import { dockerResolver } from '../../docker/endpoints';
import { LABEL, type DockerEngine } from '../../docker/engine';
import { LocalMesh, runNodeAgent } from '../../mesh/local';
import { edgeFlip } from '../../workflows';
import type { RunbookStatus, Waiting } from '../../workflows/contracts';
import { seedEdgeFlip } from '../../test/support/edge-flip-seed';
import { runbookWorld, type RunbookWorld } from '../../test/support/runbook-world';
import { SecondEngine } from '../../test/support/second-engine';
import { ContainerEventLog } from '../bench/docker-events';
import { drive, edgeFlipAnswer, wrongProceeds } from './drive';
import { watchHistory } from './history-watch';
import { failedRun, type ExperimentResult, type RunResult } from './result';
import { CHAOS_TIMINGS } from './runbook-cases';

/**
 * Where a run restarts the node's engine (an edge flip without leftovers): as a gate's container check is
 * scheduled (the check meets the engine down), or while the runbook waits for its approval, so that the
 * recheck after the approval meets the engine back and the containers the restart stopped.
 */
const MOMENTS = {
  'gate-apply': { activity: 'observeModuleContainers', occurrence: 1, gate: 'gate-apply' },
  'verify-successor': { activity: 'observeModuleContainers', occurrence: 2, gate: 'verify-successor' },
  'recheck-successor': { activity: 'observeModuleContainers', occurrence: 3, gate: 'recheck-successor' },
  'approval-wait': { activity: undefined, occurrence: 0, gate: 'recheck-successor' },
} as const;
type Moment = keyof typeof MOMENTS;
const GATES = new Set<string>(Object.values(MOMENTS).map((m) => m.gate));

/** Long enough that the restart lands inside gate-apply's stability window, which watches the event stream. */
const TIMINGS = { ...CHAOS_TIMINGS, stabilityWindowMs: 3_000 };
const DOWN_MS = 2_000;
/** How often the operator looks again (recheck, or retry where a failed step offers only that). */
const RECHECKS = 5;

/** `{container name: state}` of the node's containers on the engine. */
async function statesOf(engine: DockerEngine, node: string): Promise<Record<string, string>> {
  const found = await engine.listByLabels({ [LABEL.node]: node });
  return Object.fromEntries(found.map((c) => [(c.Names[0] ?? '').replace(/^\//, ''), c.State]));
}

/** Starts the node's containers the restart left exited (what an operator does after a daemon restart). */
async function startExited(engine: DockerEngine, node: string): Promise<string[]> {
  const states = await statesOf(engine, node);
  const exited = Object.keys(states).filter((name) => states[name] !== 'running');
  for (const name of exited) await engine.start(name);
  return exited;
}

/** Creates and destroys beyond one per container: a side effect the runbook repeated. */
function repeated(events: { name: string; action: string }[]): string[] {
  const counts: Record<string, number> = {};
  for (const { name, action } of events)
    if (action === 'create' || action === 'destroy')
      counts[`${name} ${action}`] = (counts[`${name} ${action}`] ?? 0) + 1;
  return Object.entries(counts).flatMap(([key, n]) => (n > 1 ? [`${key}: ${n} times`] : []));
}

/** A gate whose check passed after the engine went down and before its containers were started again. */
function falseOks(status: RunbookStatus, downAt: number, remediedAt: number | undefined): string[] {
  return status.steps
    .filter((step) => GATES.has(step.name) && step.state === 'done' && step.endedAt)
    .filter((step) => {
      const ended = Date.parse(step.endedAt ?? '');
      return ended >= downAt && (remediedAt === undefined || ended < remediedAt);
    })
    .map((step) => `${step.name} passed at ${step.endedAt} while the node's containers were down`);
}

async function runAt(
  world: RunbookWorld,
  second: SecondEngine,
  node: string,
  moment: Moment,
  log: (line: string) => void,
): Promise<RunResult> {
  const engine = second.client();
  const input = await seedEdgeFlip(world, { node, predecessor: `caddy-${node}`, successor: `proxy-${node}` });
  const handle = await world.start(edgeFlip, { ...input, timings: { ...input.timings, ...TIMINGS } });
  const eventLogs = [await ContainerEventLog.open(engine, { [LABEL.node]: node })];
  let downAt = 0;
  let remediedAt: number | undefined;
  let restarted: Promise<void> | undefined;
  const { activity, occurrence, gate } = MOMENTS[moment];
  const restart = () =>
    (restarted = second
      .restart(DOWN_MS, () => (downAt = Date.now()))
      .then(async () => {
        eventLogs.push(await ContainerEventLog.open(engine, { [LABEL.node]: node }));
      }));
  let seen = 0;
  let closed = false;
  const trigger = watchHistory(
    world.client,
    handle.workflowId,
    (event) => {
      if (!activity || event.activityTaskScheduledEventAttributes?.activityType?.name !== activity)
        return false;
      if (++seen < occurrence) return false;
      void restart();
      return true;
    },
    () => closed || !activity,
  );
  const afterFault: Waiting[] = [];
  let rechecks = 0;
  const driven = await drive(handle, {
    deadlineMs: 300_000,
    answer: (waiting) => {
      if (!restarted || waiting.verdict === 'approval') return edgeFlipAnswer(waiting);
      if (rechecks >= RECHECKS) return undefined;
      return ['recheck', 'retry'].find((action) => waiting.actions.includes(action));
    },
    beforeDecision: async (waiting) => {
      if (!activity && !restarted && waiting.verdict === 'approval') await restart();
      if (!restarted || waiting.verdict === 'approval') return;
      rechecks += 1;
      if (!afterFault.some((w) => w.since === waiting.since)) afterFault.push(waiting);
      await restarted;
      if (remediedAt !== undefined) return;
      const started = await startExited(engine, node);
      remediedAt = Date.now();
      log(
        `    the operator started ${started.join(', ') || 'nothing'}, then decides again at ${waiting.gate}`,
      );
    },
  });
  closed = true;
  await trigger;
  await restarted;
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  for (const events of eventLogs) events.close();

  const notes: string[] = [];
  const status = driven.status;
  const lost = driven.problem || status?.phase !== 'completed' ? 1 : 0;
  if (lost) notes.push(driven.problem ?? `ended ${status?.phase}: ${status?.outcome ?? ''}`);
  if (!downAt) notes.push('the engine was never restarted');
  const wrong = status
    ? [...wrongProceeds(status, driven.waits), ...falseOks(status, downAt, remediedAt)]
    : [];
  notes.push(...wrong);
  const duplicates = repeated(eventLogs.flatMap((events) => events.events));
  notes.push(...duplicates);
  for (const waiting of afterFault) {
    const named = waiting.reason.includes(node) || waiting.reason.includes(`proxy-${node}`);
    notes.push(`waited at ${waiting.gate} (${waiting.verdict}): ${waiting.reason.slice(0, 200)}`);
    if (!named) notes.push(`the sentence at ${waiting.gate} names neither the node nor its containers`);
  }
  const final = await statesOf(engine, node);
  const expected = ['edge', 'ca', 'dns'].map((c) => `${node}.proxy-${node}.${c}`).sort();
  const running = Object.keys(final)
    .filter((name) => final[name] === 'running')
    .sort();
  if (!lost && (JSON.stringify(running) !== JSON.stringify(expected) || Object.keys(final).length !== 3))
    notes.push(`end state differs from an undisturbed flip: ${JSON.stringify(final)}`);
  const gateEnded = status?.steps.find((s) => s.name === gate)?.endedAt;
  const recoveryS = downAt && gateEnded ? (Date.parse(gateEnded) - downAt) / 1000 : undefined;
  const failures = notes.filter((n) => !n.startsWith('waited at'));
  return {
    name: `edge-flip: engine restarted ${activity ? `as ${moment} checks containers` : 'during the approval wait'}`,
    passed: failures.length === 0,
    lost,
    duplicated: duplicates.length,
    wrongProceeds: wrong.length,
    ...(recoveryS !== undefined && recoveryS >= 0 ? { recoveryS } : {}),
    notes: [
      ...notes,
      `${afterFault.length === 0 ? 'no wait after the fault' : `operator remedy after ${rechecks} recheck(s)`}`,
    ],
  };
}

/**
 * Experiment 3: the Docker engine of the node whose containers a runbook verifies is restarted (SIGTERM,
 * down two seconds, started again on the same socket and data root) as a gate checks them: a second engine
 * of the experiment's own, never the machine's. The node's containers have no restart policy, so they stay
 * exited after the restart: the runbook must never pass a gate on them, must wait with a sentence naming
 * them, and must pass once the operator started them again and rechecked.
 */
export async function dockerRestart(quick: boolean, log: (line: string) => void): Promise<ExperimentResult> {
  const started = Date.now();
  const runs: RunResult[] = [];
  const second = await SecondEngine.start();
  try {
    const agents = new Set<Promise<unknown>>();
    let dockerFor = dockerResolver({});
    const startAgent = (stateDir: string) => (node: string) => {
      const applying = runNodeAgent(stateDir, node, { engine: dockerFor(node) }).catch(() => undefined);
      agents.add(applying);
      void applying.finally(() => agents.delete(applying));
    };
    const world = await runbookWorld({
      mesh: (stateDir) => new LocalMesh({ stateDir, startAgent: startAgent(stateDir) }),
      deps: { dockerFor: (node) => dockerFor(node) },
    });
    try {
      const moments: Moment[] = quick
        ? ['gate-apply']
        : ['gate-apply', 'verify-successor', 'recheck-successor', 'approval-wait'];
      const nodes = moments.map(() => world.nodeName());
      dockerFor = dockerResolver({
        nodes: Object.fromEntries(nodes.map((n) => [n, { socket: second.socket }])),
      });
      for (const [i, moment] of moments.entries()) {
        const node = nodes[i] ?? world.nodeName();
        const run = await runAt(world, second, node, moment, log).catch((error: unknown) =>
          failedRun(`engine restarted at ${moment}`, `the harness failed: ${String(error)}`),
        );
        log(`  ${run.name}: ${run.passed ? 'ok' : 'FAILED'} (${run.notes.join('; ')})`);
        runs.push(run);
      }
    } finally {
      await world.stopWorkers();
      await Promise.all(agents);
      await world[Symbol.asyncDispose]();
    }
  } finally {
    await second.stop();
  }
  return { experiment: 'Docker engine restart', runs, seconds: (Date.now() - started) / 1000 };
}
