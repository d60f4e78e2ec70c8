import { runbookWorld } from '../../test/support/runbook-world';
import type { ChaosEnv } from './chaos-env';
import { cliEnv, spawnCli } from './cli';
import { drive, movedAgainAt, wrongProceeds } from './drive';
import { watchHistory } from './history-watch';
import type { ExperimentResult, RunResult } from './result';
import { EDGE_FLIP, DATA_PATH_MOVE, type RunbookCase } from './runbook-cases';
import { duplicatedCount, duplicatedEffects, SideEffectRecorder } from './side-effects';
import { undisturbedRun } from './worker-kills';

/** Where each runbook's server restart happens: right after it scheduled this activity. */
const RESTART_AT: Record<RunbookCase['kind'], string> = {
  'edge-flip': 'observeModuleContainers',
  'data-path-move': 'copyTree',
};

/**
 * Until `mesh runbook watch` says it follows the runbook (it connected and read it once), whether or not it
 * has ended since: it ends at the runbook's first wait, which can come before the next look.
 */
async function attached(watch: ReturnType<typeof spawnCli>): Promise<boolean> {
  const deadline = Date.now() + 60_000;
  const following = () => /following /.test(watch.output().stdout + watch.output().stderr);
  while (Date.now() < deadline && watch.exitCode === null && !following())
    await new Promise((resolve) => setTimeout(resolve, 200));
  return following();
}

/**
 * Experiment 2: the suite's Temporal dev server stopped mid-runbook (SIGTERM) and started again on the same
 * database file and port, while a worker process runs the runbook and `mesh runbook watch` follows it. The
 * runbook must finish as an undisturbed one does, with no container event beyond an undisturbed run's, and
 * `watch`, attached before the restart, must keep
 * following by itself through the restart, ending (exit 3) at the runbook's first wait after it.
 */
export async function serverRestart(
  env: ChaosEnv,
  quick: boolean,
  log: (line: string) => void,
): Promise<ExperimentResult> {
  const started = Date.now();
  const runs: RunResult[] = [];
  await using world = await runbookWorld({ worker: 'none' });
  for (const runbook of quick ? [EDGE_FLIP] : [EDGE_FLIP, DATA_PATH_MOVE]) {
    const undisturbed = await undisturbedRun(world, runbook);
    const { node, start } = await runbook.seed(world);
    const recorder = await SideEffectRecorder.open(world.engine, node, world.mesh.layout.journal(node));
    await world.spawnWorker();
    const handle = await start();
    const watch = spawnCli(['runbook', 'watch', node], cliEnv(world.taskQueue, world.stateDir));
    const watchEnded = new Promise<void>((resolve) => watch.once('close', () => resolve()));
    let restartedAt = 0;
    let watchedAcross = false;
    const following = await attached(watch);
    await watchHistory(
      world.client,
      handle.workflowId,
      async (event) => {
        if (event.activityTaskScheduledEventAttributes?.activityType?.name !== RESTART_AT[runbook.kind])
          return false;
        watchedAcross = watch.exitCode === null;
        await env.restartServer(2_000);
        restartedAt = Date.now();
        return true;
      },
      () => false,
    );
    const driven = await drive(handle, { answer: runbook.answer, deadlineMs: 300_000 });
    await Promise.race([watchEnded, new Promise((resolve) => setTimeout(resolve, 30_000))]);
    if (watch.exitCode === null) watch.kill('SIGINT');
    await watchEnded;
    const effects = await recorder.counts();
    recorder.close();
    const notes: string[] = [];
    const status = driven.status;
    const lost = driven.problem || status?.phase !== 'completed' ? 1 : 0;
    if (lost) notes.push(driven.problem ?? `ended ${status?.phase}: ${status?.outcome ?? ''}`);
    if (restartedAt === 0) notes.push('the server was never restarted');
    for (const recheck of driven.rechecks) notes.push(`rechecked ${recheck}`);
    const wrong = status ? wrongProceeds(status, driven.waits) : [];
    notes.push(...wrong);
    if (!following) notes.push(`watch never followed: ${watch.output().stderr.slice(0, 160)}`);
    notes.push(...duplicatedEffects(effects, undisturbed));
    const duplicated = duplicatedCount(effects, undisturbed);
    const watched = watch.output();
    if (watched.code !== 3 && watched.code !== 0)
      notes.push(
        `watch ended ${watched.code ?? watched.signal} through the restart: ${watched.stderr.trim().split('\n').at(-1)?.slice(0, 160) ?? ''}`,
      );
    const moved = restartedAt ? await movedAgainAt(world.client, handle.workflowId, restartedAt) : undefined;
    const run: RunResult = {
      name: `${runbook.kind}: server restarted after ${RESTART_AT[runbook.kind]} was scheduled`,
      passed: notes.filter((n) => !n.startsWith('rechecked')).length === 0,
      lost,
      duplicated,
      wrongProceeds: wrong.length,
      ...(moved ? { recoveryS: (moved - restartedAt) / 1000 } : {}),
      notes: [
        ...notes,
        `watch exited ${watched.code ?? watched.signal}${watchedAcross ? ', after following through the restart' : ', at a wait before the restart'}`,
      ],
    };
    log(`  ${run.name}: ${run.passed ? 'ok' : 'FAILED'} (${run.notes.join('; ')})`);
    runs.push(run);
    await world.stopWorkers();
  }
  return { experiment: 'Temporal server restart', runs, seconds: (Date.now() - started) / 1000 };
}
