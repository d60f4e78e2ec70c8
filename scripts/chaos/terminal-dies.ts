import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { edgeFlipArgs, seedEdgeFlip } from '../../test/support/edge-flip-seed';
import { runbookWorld, type RunbookWorld } from '../../test/support/runbook-world';
import { runbookWorkflowId, statusQuery, type RunbookStatus } from '../../workflows/contracts';
import { cliEnv, runCli } from './cli';
import { decideThroughCli, operateThroughCli } from './cli-operator';
import { edgeFlipAnswer, wrongProceeds } from './drive';
import { type ExperimentResult, type RunResult } from './result';
import { duplicatedCount, duplicatedEffects, SideEffectRecorder, type SideEffects } from './side-effects';
import { Terminal, type TerminalEnd } from './terminal';
import { WaitLog } from './wait-log';

/** When the operator's terminal dies, and what it was doing. */
const MOMENTS = {
  'start-spawned': 'right after `start` was spawned',
  'start-starting': 'the moment `start` had started the runbook',
  'start-following': 'while `start` followed the runbook',
  'watch-following': 'while `watch` followed the runbook after the take',
} as const;
type Moment = keyof typeof MOMENTS;

/** A terminal's death: SIGKILL, or SIGHUP as a terminal window closed or an ssh session dropped sends. */
export interface Death {
  moment: Moment;
  signal: 'SIGKILL' | 'SIGHUP';
}

const RUN_DEADLINE_MS = 300_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What one run measured, before it is compared with the undisturbed reference. */
interface Measured {
  name: string;
  /** Whether the run itself held: the kill landed, the checks after it passed, the operator got to the end. */
  held: boolean;
  lost: number;
  /** Executions beyond one on the node. */
  executions: number;
  wrongProceeds: number;
  recoveryS?: number;
  notes: string[];
  effects: SideEffects;
  steps: string[];
}

/** What a check after the kill found: notes, and a runbook lost or executions beyond one. */
interface Checked {
  notes: string[];
  lost: number;
  duplicated: number;
  /** When a `start` run again (there was no runbook) showed the new runbook's steps. */
  shownAt?: number;
}

async function executions(client: Client, id: string): Promise<number> {
  let count = 0;
  for await (const _ of client.workflow.list({ query: `WorkflowId = '${id}'` })) count++;
  return count;
}

async function exists(client: Client, id: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(id).describe();
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/**
 * Right after the kill: the runbook is on the server, or, only when the terminal died before it started
 * one, it is not and `start` again works.
 */
async function runbookAfterKill(
  world: RunbookWorld,
  cli: NodeJS.ProcessEnv,
  id: string,
  death: Death,
  startArgs: string[],
): Promise<Checked> {
  const checked: Checked = { notes: [], lost: 0, duplicated: 0 };
  if (await exists(world.client, id)) return checked;
  // A start request the process sent just before it died reaches the server a moment later, or never.
  await sleep(1_000);
  if (await exists(world.client, id)) return checked;
  if (death.moment !== 'start-spawned') {
    checked.lost = 1;
    checked.notes.push('no runbook on the server after the kill');
    return checked;
  }
  checked.notes.push('died before it started the runbook; started again');
  const terminal = new Terminal(startArgs, cli);
  const again = await terminal.ended(120_000);
  if (terminal.firstStepAt !== undefined) checked.shownAt = terminal.firstStepAt;
  if (again.code !== 3 && again.code !== 0) {
    checked.lost = 1;
    checked.notes.push(
      `start again ended ${again.code ?? again.signal}: ${again.stderr.trim().slice(0, 200)}`,
    );
  }
  return checked;
}

/** One execution on the server for the node, and `mesh runbook list --node` shows it. */
async function listedOnce(world: RunbookWorld, cli: NodeJS.ProcessEnv, node: string): Promise<Checked> {
  const id = runbookWorkflowId(node);
  const checked: Checked = { notes: [], lost: 0, duplicated: 0 };
  // The visibility store catches up with the server within a second or two.
  let count = 0;
  let listed = false;
  for (const deadline = Date.now() + 20_000; Date.now() < deadline && !(count > 0 && listed);) {
    count = await executions(world.client, id);
    const list = await runCli(['runbook', 'list', '--node', node, '--json'], cli);
    listed =
      list.code === 0 && (JSON.parse(list.stdout || '[]') as { id: string }[]).some((r) => r.id === id);
    if (!(count > 0 && listed)) await sleep(500);
  }
  if (count !== 1) checked.notes.push(`${count} executions on the server`);
  checked.duplicated = Math.max(0, count - 1);
  if (!listed) checked.notes.push('`mesh runbook list` never showed it');
  return checked;
}

/**
 * One edge flip (the incident's leftovers: held until take, then the approval) started and decided through
 * the compiled CLI on a fresh node; `death` kills the operator's terminal at its moment, after which a fresh
 * `watch` must re-attach and the operator goes on from there. Without `death`, the undisturbed reference.
 */
async function runOnce(world: RunbookWorld, death: Death | undefined): Promise<Measured> {
  const name = death ? `${death.signal} ${MOMENTS[death.moment]}` : 'undisturbed';
  const cli = cliEnv(world.taskQueue, world.stateDir);
  const input = await seedEdgeFlip(world, { leftovers: true });
  const id = runbookWorkflowId(input.node);
  const recorder = await SideEffectRecorder.open(
    world.engine,
    input.node,
    world.mesh.layout.journal(input.node),
  );
  const waitLog = new WaitLog(world.client, id);
  const startArgs = ['runbook', 'start', ...edgeFlipArgs(input), '--as', 'alice', '--json'];
  const notes: string[] = [];
  let lost = 0;
  let duplicated = 0;
  let killedAt: number | undefined;
  let shownAgainAt: number | undefined;
  let first: TerminalEnd | undefined;
  const kill = async (terminal: Terminal, signal: Death['signal']) => {
    const killed = await terminal.kill(signal);
    killedAt = killed.at;
    if (!killed.went) notes.push(`the CLI was still there 10 s after ${signal}`);
  };
  const start = new Terminal(startArgs, cli);
  if (death?.moment === 'start-spawned') await kill(start, death.signal);
  else if (death?.moment === 'start-starting') {
    const started = { yes: false };
    void (async () => {
      while (start.running && !started.yes) {
        started.yes = await exists(world.client, id).catch(() => false);
        if (!started.yes) await sleep(25);
      }
    })();
    if (await start.until(() => started.yes, 120_000)) await kill(start, death.signal);
  } else if (death?.moment === 'start-following') {
    if (await start.until(() => start.firstStepAt !== undefined, 120_000)) await kill(start, death.signal);
  } else {
    first = await start.ended(120_000);
    if (death?.moment === 'watch-following') {
      const waiting = first.status?.waiting;
      if (first.code === 3 && waiting) {
        const decided = await decideThroughCli(id, cli, waiting, edgeFlipAnswer, []);
        const watch = new Terminal(['runbook', 'watch', id, '--json'], cli);
        if (decided.taken && (await watch.until(() => watch.firstStepAt !== undefined, 120_000)))
          await kill(watch, death.signal);
        else notes.push(`no watch to kill: the take ${decided.taken ? 'was taken' : decided.refusal}`);
      }
      first = undefined;
    }
  }
  if (death && killedAt === undefined) notes.push(`the terminal ended before ${MOMENTS[death.moment]}`);
  if (death && killedAt !== undefined) {
    const after = await runbookAfterKill(world, cli, id, death, startArgs);
    notes.push(...after.notes);
    lost += after.lost;
    shownAgainAt = after.shownAt;
  }
  const operate = () =>
    operateThroughCli(id, cli, edgeFlipAnswer, { deadlineMs: RUN_DEADLINE_MS, ...(first ? { first } : {}) });
  // A new terminal re-attaches at once while `list` and the server's executions are checked beside it.
  const [listed, operated] =
    lost > 0
      ? [undefined, undefined]
      : await Promise.all([death ? listedOnce(world, cli, input.node) : undefined, operate()]);
  notes.push(...(listed?.notes ?? []));
  duplicated += listed?.duplicated ?? 0;
  const waits = await waitLog.stop();
  const effects = await recorder.counts();
  recorder.close();
  const status: RunbookStatus | undefined =
    (await world.client.workflow
      .getHandle(id)
      .query(statusQuery)
      .catch(() => undefined)) ?? operated?.status;
  if (operated?.problem) {
    lost = 1;
    notes.push(operated.problem);
  } else if (operated && status?.phase !== 'completed') {
    lost = 1;
    notes.push(`ended ${status?.phase}: ${status?.outcome ?? ''}`);
  }
  for (const recheck of operated?.rechecks ?? []) notes.push(`rechecked ${recheck}`);
  const wrong = status ? wrongProceeds(status, waits) : [];
  notes.push(...wrong);
  const steps = status?.steps.map((s) => `${s.name}: ${s.state}`) ?? [];
  // From the kill to a terminal showing the runbook again: the re-attached watch, or the start run again.
  const shownAt = shownAgainAt ?? operated?.firstStepAt;
  const recoveryS =
    killedAt !== undefined && shownAt !== undefined && operated?.firstStepAt !== undefined
      ? (shownAt - killedAt) / 1000
      : undefined;
  if (death && killedAt !== undefined && recoveryS === undefined) notes.push('no watch re-attached');
  const held =
    lost === 0 &&
    wrong.length === 0 &&
    (!death || recoveryS !== undefined) &&
    notes.every((n) => n.startsWith('rechecked') || n.startsWith('died before'));
  await world.retireNode(input.node);
  return {
    name,
    held,
    lost,
    executions: duplicated,
    wrongProceeds: wrong.length,
    ...(recoveryS !== undefined ? { recoveryS } : {}),
    notes,
    effects,
    steps,
  };
}

/** The run against the undisturbed reference: the same steps and no side effect beyond its. */
function judge(run: Measured, reference: Measured | undefined): RunResult {
  const notes = [...run.notes];
  let duplicated = run.executions;
  let same = true;
  if (reference) {
    same = JSON.stringify(run.steps) === JSON.stringify(reference.steps);
    if (run.lost === 0 && !same) notes.push(`steps differ from the undisturbed run: ${run.steps.join(', ')}`);
    duplicated += duplicatedCount(run.effects, reference.effects);
    notes.push(...duplicatedEffects(run.effects, reference.effects));
    if (run.effects.pushes !== reference.effects.pushes) {
      same = false;
      notes.push(`${run.effects.pushes} pushes applied, ${reference.effects.pushes} undisturbed`);
    }
  }
  return {
    name: run.name,
    passed: run.held && same && duplicated === 0,
    lost: run.lost,
    duplicated,
    wrongProceeds: run.wrongProceeds,
    ...(run.recoveryS !== undefined ? { recoveryS: run.recoveryS } : {}),
    notes,
  };
}

/** Every moment with both signals, or one: SIGHUP while `start` follows, the commonest way a terminal goes. */
function deaths(quick: boolean): Death[] {
  if (quick) return [{ moment: 'start-following', signal: 'SIGHUP' }];
  return (Object.keys(MOMENTS) as Moment[]).flatMap((moment) => [
    { moment, signal: 'SIGKILL' as const },
    { moment, signal: 'SIGHUP' as const },
  ]);
}

/**
 * Experiment 4: the operator's terminal (the compiled CLI in a child process) dies during `start` and
 * during `watch`, by SIGKILL and by SIGHUP: the runbook is unaffected (one execution, the undisturbed run's
 * end, steps and side effects, no wrong proceed); `list` shows it; a fresh `watch` re-attaches and the
 * operator follows it, deciding through the CLI, to its end. A terminal dead before the runbook started
 * leaves none, and `start` again works. The undisturbed reference runs beside the first death.
 */
export async function terminalDies(quick: boolean, log: (line: string) => void): Promise<ExperimentResult> {
  const started = Date.now();
  const runs: RunResult[] = [];
  // The reference runs in a world of its own: a world's nodes share its module definitions and ports.
  await using world = await runbookWorld({ worker: 'none' });
  await using referenceWorld = await runbookWorld({ worker: 'none' });
  await Promise.all([world.spawnWorker(), referenceWorld.spawnWorker()]);
  const settle = (death: Death | undefined) =>
    runOnce(death ? world : referenceWorld, death).catch((error: unknown): Measured => ({
      name: death ? `${death.signal} ${MOMENTS[death.moment]}` : 'undisturbed',
      held: false,
      lost: 0,
      executions: 0,
      wrongProceeds: 0,
      notes: [`the harness failed: ${error instanceof Error ? error.message : String(error)}`],
      effects: { pushes: 0, lifecycle: {} },
      steps: [],
    }));
  const report = (r: RunResult) => {
    log(
      `  ${r.name}: ${r.passed ? 'ok' : 'FAILED'}${r.recoveryS !== undefined ? `, shown again ${r.recoveryS.toFixed(1)} s after the kill` : ''} (${r.notes.join('; ')})`,
    );
    runs.push(r);
  };
  const [firstDeath, ...otherDeaths] = deaths(quick);
  // The reference and the first death run side by side; the others one after another.
  const [reference, beside] = await Promise.all([settle(undefined), settle(firstDeath)]);
  report(judge(reference, undefined));
  if (reference.held) {
    report(judge(beside, reference));
    for (const death of otherDeaths) report(judge(await settle(death), reference));
  }
  return { experiment: 'terminal dies', runs, seconds: (Date.now() - started) / 1000 };
}
