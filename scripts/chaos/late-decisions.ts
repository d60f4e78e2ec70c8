import type { WorkflowHandle } from '@temporalio/client';
import { scheduledActivities } from '../../test/support/data-move';
import { seedEdgeFlip } from '../../test/support/edge-flip-seed';
import { runbookWorld } from '../../test/support/runbook-world';
import { statusWhen, waitingAt } from '../../test/support/runbooks';
import { edgeFlip } from '../../workflows';
import { statusQuery, type RunbookStatus } from '../../workflows/contracts';
import { cliEnv, runCli, type CliRun } from './cli';
import type { ExperimentResult, RunResult } from './result';
import { CHAOS_TIMINGS } from './runbook-cases';
import { SideEffectRecorder } from './side-effects';

const oneSentence = (run: CliRun) => {
  const lines = run.stderr.trim().split('\n').filter(Boolean);
  return lines.length >= 1 && lines.length <= 3 && !/\n\s+at /.test(run.stderr);
};

function check(name: string, notes: string[], extra: Partial<RunResult> = {}): RunResult {
  return { name, passed: notes.length === 0, lost: 0, duplicated: 0, wrongProceeds: 0, notes, ...extra };
}

/**
 * Experiment 8: decisions that come twice, late, or while no worker runs, sent through the compiled CLI to
 * an edge flip on the real stack: the same `take` from two terminals at once (one is recorded, take runs
 * once), a decision for a gate already passed, an approval while the worker is stopped (a clear sentence,
 * nothing recorded; the runbook takes the approval once a worker is back), and an approval after the end.
 */
export async function lateDecisions(log: (line: string) => void): Promise<ExperimentResult> {
  const started = Date.now();
  const runs: RunResult[] = [];
  await using world = await runbookWorld();
  const input = await seedEdgeFlip(world, { leftovers: true });
  const effects = await SideEffectRecorder.open(
    world.engine,
    input.node,
    world.mesh.layout.journal(input.node),
  );
  const handle: WorkflowHandle = await world.start(edgeFlip, {
    ...input,
    timings: { ...input.timings, ...CHAOS_TIMINGS },
  });
  const cli = cliEnv(world.taskQueue, world.stateDir);
  const decide = (args: string[]) => runCli(['runbook', ...args, '--as', 'bob'], cli, 120_000);
  try {
    const held = await statusWhen(handle, waitingAt('gate-apply'), 240_000);
    const evidence = held.waiting?.evidence ?? '';
    const twice = await Promise.all([
      decide(['decide', input.node, 'take', '--evidence', evidence]),
      decide(['decide', input.node, 'take', '--evidence', evidence]),
    ]);
    const approval = await statusWhen(handle, waitingAt('approve-stop-predecessor'), 240_000);
    const takes = approval.decisions.filter((d) => d.gate === 'gate-apply').length;
    const twiceNotes: string[] = [];
    if (takes !== 1) twiceNotes.push(`${takes} decisions recorded at gate-apply`);
    if (twice.filter((r) => r.code === 0).length !== 1)
      twiceNotes.push(`exits ${twice.map((r) => r.code).join(', ')}, not one 0 and one 2`);
    const refusedTwice = twice.find((r) => r.code !== 0);
    if (refusedTwice && (refusedTwice.code !== 2 || !oneSentence(refusedTwice)))
      twiceNotes.push(`the second: exit ${refusedTwice.code} ${refusedTwice.stderr.slice(0, 160)}`);
    runs.push(
      check('the same take from two terminals at once', twiceNotes, {
        wrongProceeds: Math.max(0, takes - 1),
      }),
    );

    const passed = await decide(['decide', input.node, 'take', '--gate', 'gate-apply']);
    const afterPassed = await handle.query(statusQuery);
    const passedNotes: string[] = [];
    if (passed.code !== 2 || !oneSentence(passed))
      passedNotes.push(`exit ${passed.code}: ${passed.stderr.slice(0, 160)}`);
    if (afterPassed.decisions.length !== approval.decisions.length)
      passedNotes.push('a decision was recorded');
    runs.push(check('take for gate-apply, passed already', passedNotes));

    await world.stopWorkers();
    const noWorker = await decide([
      'approve',
      input.node,
      'approve-stop-predecessor',
      '--evidence',
      approval.waiting?.evidence ?? '',
    ]);
    const noWorkerNotes: string[] = [];
    if (noWorker.code === 0) noWorkerNotes.push('accepted with no worker running');
    if (!oneSentence(noWorker) || !/worker/i.test(noWorker.stderr))
      noWorkerNotes.push(`not a clear sentence: ${noWorker.stderr.slice(0, 160)}`);
    if (
      noWorker.code !== 2 &&
      /decide again/.test(noWorker.stderr) &&
      !/before you decide again/.test(noWorker.stderr)
    )
      noWorkerNotes.push('told to decide again although the server keeps the decision');
    const restartedAt = Date.now();
    await world.startWorker({ nodeQueues: { localMesh: world.stateDir } });
    // The server keeps an approval no worker took and delivers it now; one it never got is sent again.
    const approvedAt = (st: RunbookStatus) =>
      st.phase !== 'running' || st.decisions.some((d) => d.gate === 'approve-stop-predecessor');
    const after = await statusWhen(handle, approvedAt, 30_000).catch(() => handle.query(statusQuery));
    const kept = after.decisions.some((d) => d.gate === 'approve-stop-predecessor');
    if (!kept) {
      const approved = await decide([
        'approve',
        input.node,
        'approve-stop-predecessor',
        '--evidence',
        after.waiting?.evidence ?? '',
      ]);
      if (approved.code !== 0)
        noWorkerNotes.push(
          `the approval with a worker back: exit ${approved.code} ${approved.stderr.slice(0, 160)}`,
        );
    }
    log(
      `  the approval sent while no worker ran was ${kept ? 'kept by the server and taken when the worker came back' : 'not sent; approved again'}`,
    );
    const done: RunbookStatus = await handle.result();
    if (done.phase !== 'completed') noWorkerNotes.push(`ended ${done.phase}: ${done.outcome ?? ''}`);
    const approvals = done.decisions.filter((d) => d.gate === 'approve-stop-predecessor').length;
    if (approvals !== 1) noWorkerNotes.push(`${approvals} approvals recorded`);
    runs.push(
      check('approve while no worker runs, then again with one', noWorkerNotes, {
        lost: done.phase === 'completed' ? 0 : 1,
        recoveryS: (Date.now() - restartedAt) / 1000,
      }),
    );

    const late = await decide(['approve', input.node, 'approve-stop-predecessor']);
    const lateNotes: string[] = [];
    if (late.code === 0) lateNotes.push('an approval after the end was accepted');
    if (!oneSentence(late)) lateNotes.push(`not one sentence: ${late.stderr.slice(0, 160)}`);
    const scheduled = scheduledActivities(await handle.fetchHistory());
    const counts = await effects.counts();
    const stops = counts.lifecycle['caddy.edge stop'] ?? 0;
    if ((scheduled.takeModule ?? 0) !== 1) lateNotes.push(`take ran ${scheduled.takeModule ?? 0} times`);
    if (stops !== 1) lateNotes.push(`the predecessor stopped ${stops} times`);
    runs.push(
      check('approve after the runbook ended', lateNotes, {
        duplicated: Math.max(0, (scheduled.takeModule ?? 0) - 1) + Math.max(0, stops - 1),
      }),
    );
  } finally {
    effects.close();
  }
  for (const run of runs) log(`  ${run.name}: ${run.passed ? 'ok' : run.notes.join('; ')}`);
  return { experiment: 'duplicate and late decisions', runs, seconds: (Date.now() - started) / 1000 };
}
