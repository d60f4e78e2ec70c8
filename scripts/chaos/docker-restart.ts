import { dockerResolver } from '../../docker/endpoints';
import { LABEL, type DockerEngine } from '../../docker/engine';
import { LocalMesh, runNodeAgent } from '../../mesh/local';
import type { RunbookStatus, Waiting } from '../../workflows/contracts';
import { runbookWorld, type RunbookWorld } from '../../test/support/runbook-world';
import { SecondEngine } from '../../test/support/second-engine';
import { ContainerEventLog } from '../bench/docker-events';
import { RESTART_CASES, statesOf, type RestartCase, type RestartMoment } from './docker-restart-cases';
import { drive, wrongProceeds } from './drive';
import { watchHistory } from './history-watch';
import { failedRun, type ExperimentResult, type RunResult } from './result';

const DOWN_MS = 2_000;
/** How often the operator looks again (recheck, or retry where a failed step offers only that). */
const RECHECKS = 5;

/** One run: which runbook, where the engine restarts, and the node (on the second engine) it runs on. */
interface Planned {
  runbook: RestartCase;
  moment: RestartMoment;
  node: string;
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
function falseOks(
  runbook: RestartCase,
  status: RunbookStatus,
  downAt: number,
  remediedAt: number | undefined,
): string[] {
  const gates = new Set(runbook.moments.map((m) => m.gate));
  return status.steps
    .filter((step) => gates.has(step.name) && step.state === 'done' && step.endedAt)
    .filter((step) => {
      const ended = Date.parse(step.endedAt ?? '');
      return ended >= downAt && (remediedAt === undefined || ended < remediedAt);
    })
    .map((step) => `${step.name} passed at ${step.endedAt} while the node's containers were down`);
}

async function runAt(
  world: RunbookWorld,
  second: SecondEngine,
  { runbook, moment, node }: Planned,
  log: (line: string) => void,
): Promise<RunResult> {
  const engine = second.client();
  const seeded = await runbook.seed(world, node);
  const handle = await seeded.start();
  const eventLogs = [await ContainerEventLog.open(engine, { [LABEL.node]: node })];
  let downAt = 0;
  let remediedAt: number | undefined;
  let restarted: Promise<void> | undefined;
  const { activity, occurrence, gate } = moment;
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
  let lookedAgain = false;
  const driven = await drive(handle, {
    deadlineMs: 300_000,
    answer: (waiting) => {
      const own = runbook.answer(waiting);
      lookedAgain = false;
      if (!restarted || waiting.verdict === 'approval' || (remediedAt !== undefined && own)) return own;
      if (rechecks >= RECHECKS) return undefined;
      lookedAgain = true;
      return ['recheck', 'retry'].find((action) => waiting.actions.includes(action));
    },
    beforeDecision: async (waiting) => {
      if (!activity && !restarted && waiting.verdict === 'approval') await restart();
      if (!restarted || !lookedAgain) return;
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
    ? [...wrongProceeds(status, driven.waits), ...falseOks(runbook, status, downAt, remediedAt)]
    : [];
  notes.push(...wrong);
  const duplicates = repeated(eventLogs.flatMap((events) => events.events));
  notes.push(...duplicates);
  for (const waiting of afterFault) {
    const named = waiting.reason.includes(node);
    notes.push(`waited at ${waiting.gate} (${waiting.verdict}): ${waiting.reason.slice(0, 200)}`);
    if (!named) notes.push(`the sentence at ${waiting.gate} names neither the node nor its containers`);
  }
  if (!lost) notes.push(...(await seeded.endState(engine)));
  const gateEnded = status?.steps.find((s) => s.name === gate)?.endedAt;
  const recoveryS = downAt && gateEnded ? (Date.parse(gateEnded) - downAt) / 1000 : undefined;
  const failures = notes.filter((n) => !n.startsWith('waited at'));
  return {
    name: `${runbook.kind}: engine restarted ${activity ? `as ${moment.label} checks containers` : `during ${moment.label}`}`,
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
 * Experiment 3: the Docker engine of the node whose containers a runbook (an edge flip without leftovers,
 * or a data-path move) verifies is restarted (SIGTERM, down two seconds, started again on the same socket
 * and data root) as a gate checks them: a second engine of the experiment's own, never the machine's. The
 * node's containers have no restart policy, so they stay exited after the restart: the runbook must never
 * pass a gate on them, must wait with a sentence naming them, and must pass once the operator started them
 * again and rechecked.
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
      const planned: Planned[] = RESTART_CASES.flatMap((runbook) =>
        runbook.moments
          .filter((moment) => !quick || runbook.quick.includes(moment.label))
          .map((moment) => ({ runbook, moment, node: world.nodeName() })),
      );
      dockerFor = dockerResolver({
        nodes: Object.fromEntries(planned.map(({ node }) => [node, { socket: second.socket }])),
      });
      for (const one of planned) {
        const run = await runAt(world, second, one, log).catch((error: unknown) =>
          failedRun(
            `${one.runbook.kind}: engine restarted at ${one.moment.label}`,
            `the harness failed: ${String(error)}`,
          ),
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
