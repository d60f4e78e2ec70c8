import type { BenchEnv } from './bench-env';
import {
  devServerSite,
  flipThroughExecutor,
  seedEdgeFlip,
  type ExecutorRun,
  type KillInWindow,
} from './executor';
import { flipOnFloor, setUpFloorFlip } from './floor';
import type { LabContenders } from './lab-contenders';
import type { ContenderName } from './options';
import { cleanUpShellFlip, flipByShell, setUpShellFlip } from './shell';

const EXECUTOR_NODE_PREFIX: Record<'executor' | 'executor-leftovers' | 'executor-dies', string> = {
  executor: 'ex',
  'executor-leftovers': 'exl',
  'executor-dies': 'exd',
};
/** The successor's dns container (no health check, so only its death can stop the gate) a second into its window. */
const KILL_DNS_IN_WINDOW: KillInWindow = { container: 'dns', afterStartMs: 1_000 };

/**
 * A flip's wall time, and how long of it the public port took to be served once the predecessor had
 * stopped: the demo's successor tries to bind that port every half second, so each contender waits a share
 * of that retry that depends only on when its own flip reached the stop.
 */
export interface TimedFlip {
  wallMs: number;
  servedAfterStopMs?: number;
}

/** One contender's run in one round: its wall time, and the executor's details when it was the executor. */
export interface ContenderRun extends TimedFlip {
  contender: ContenderName;
  round: number;
  ok: boolean;
  failure?: string;
  executor?: ExecutorRun;
}

function messageOf(error: unknown): string {
  const e = error as { message?: string; stderr?: string };
  return (e.stderr?.trim() || e.message || String(error)).split('\n')[0] ?? 'failed';
}

/** An executor's run as a contender's: the wait for the public port is its probe-public step. */
function executorRun(contender: ContenderName, round: number, run: ExecutorRun, dies = false): ContenderRun {
  const probePublic = run.steps.find((step) => step.step === 'probe-public');
  return {
    contender,
    round,
    ...(probePublic ? { servedAfterStopMs: probePublic.activityMs } : {}),
    // The runbook that lost a container is right only when it stopped at gate-apply after the death.
    ok: dies ? run.detection.deadMs !== undefined : run.completed,
    wallMs: run.wallMs,
    ...(run.failure !== undefined && !(dies && run.detection.deadMs !== undefined)
      ? { failure: run.failure }
      : {}),
    executor: run,
  };
}

/**
 * Runs one contender once on a fresh node (its set-up and clean-up not timed); never throws for a failed
 * flip. The lab's contenders run on `lab` (bench --lab).
 */
export async function runContender(
  env: BenchEnv,
  lab: LabContenders | undefined,
  contender: ContenderName,
  round: number,
  windowMs: number,
): Promise<ContenderRun> {
  const failed = (error: unknown): ContenderRun => ({
    contender,
    round,
    ok: false,
    wallMs: Number.NaN,
    failure: messageOf(error),
  });
  if (contender === 'lab-executor' || contender === 'lab-shell') {
    if (!lab) throw new Error(`${contender} runs on the lab: bench --lab`);
    if (contender === 'lab-executor') return executorRun(contender, round, await lab.executor());
    return lab.shell(windowMs).then((flip) => ({ contender, round, ok: true, ...flip }), failed);
  }
  if (contender === 'shell') {
    const flip = await setUpShellFlip(env, windowMs);
    try {
      return { contender, round, ok: true, ...(await flipByShell(flip)) };
    } catch (error) {
      return failed(error);
    } finally {
      await cleanUpShellFlip(flip);
    }
  }
  if (contender === 'floor') {
    const flip = await setUpFloorFlip(env, windowMs);
    try {
      return { contender, round, ok: true, ...(await flipOnFloor(env, flip)) };
    } catch (error) {
      return failed(error);
    } finally {
      await env.removeNode(flip.node);
    }
  }
  const node = env.newNode(EXECUTOR_NODE_PREFIX[contender]);
  try {
    const input = await seedEdgeFlip(env, node, { leftovers: contender === 'executor-leftovers' });
    const dies = contender === 'executor-dies';
    const run = await flipThroughExecutor(devServerSite(env), input, dies ? KILL_DNS_IN_WINDOW : undefined);
    return executorRun(contender, round, run, dies);
  } finally {
    await env.removeNode(node);
  }
}
