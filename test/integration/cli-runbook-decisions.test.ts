import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { RunbookHistory } from '../../cli/runbook/history/record';
import type { RunbookRow } from '../../cli/runbook/list/list';
import { seedEdgeScenario } from '../../mesh/local/scenarios/edge-flip-incident';
import { RunbookStatus, runbookWorkflowId } from '../../workflows/contracts';
import { edgeFlipArgs, seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { freePort } from '../support/runbooks';

const MESH = join(__dirname, '..', '..', 'bin', 'mesh.js');
const run = promisify(execFile);
/** Who the CLI is without --as: the OS user, who also starts the runbook below. */
const ME = userInfo().username;

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

// eslint-disable-next-line no-control-regex
const plain = (text: string) => text.replace(/\u001b\[\d+m/g, '');

/** The `mesh runbook` CLI of one world: its verbs as subprocesses on the world's task queue. */
function cliOf(world: RunbookWorld) {
  // The world's mesh: start plans on it, and refuses what its preflight would.
  const env = {
    ...process.env,
    MESH_TASK_QUEUE: world.taskQueue,
    MESH_ADAPTER: 'local',
    MESH_LOCAL_STATE: world.stateDir,
  };

  async function mesh(...args: string[]): Promise<Outcome> {
    try {
      const { stdout, stderr } = await run(MESH, ['runbook', ...args], { env });
      return { code: 0, stdout: plain(stdout), stderr: plain(stderr) };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: plain(failed.stdout), stderr: plain(failed.stderr) };
    }
  }

  async function status(node: string): Promise<RunbookStatus> {
    const outcome = await mesh('status', node, '--json');
    assert.ok([0, 3, 4, 5].includes(outcome.code), outcome.stderr);
    return RunbookStatus.parse(JSON.parse(outcome.stdout));
  }

  /** `list ... --json` until its ids are `expected` (the visibility store lags a moment behind). */
  async function listed(args: string[], expected: string[]): Promise<RunbookRow[]> {
    let rows: RunbookRow[] = [];
    for (let attempt = 0; attempt < 40; attempt++) {
      const outcome = await mesh('list', ...args, '--json');
      assert.equal(outcome.code, 0, outcome.stderr);
      rows = JSON.parse(outcome.stdout) as RunbookRow[];
      if (JSON.stringify(rows.map((row) => row.id).sort()) === JSON.stringify([...expected].sort())) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.deepEqual(rows.map((row) => row.id).sort(), [...expected].sort(), `list ${args.join(' ')}`);
    return rows;
  }

  return { mesh, status, listed };
}

describe('deciding through the CLI: evidence, four eyes, refusals on record, history and list filters', () => {
  it('shows the evidence, refuses stale evidence and the initiator, takes another approver, keeps the record', async () => {
    await using world = await runbookWorld();
    const { mesh, status, listed } = cliOf(world);
    const [flipped, idle] = [world.nodeName(), world.nodeName()];
    const [flipId, idleId] = [runbookWorkflowId(flipped), runbookWorkflowId(idle)];

    // The idle node holds its successor's leftovers: its runbook waits at gate-apply, and carol aborts it there.
    // Modules of its own: a runbook waiting holds its module's lock, and must not hold up the flip.
    const idleFlip = await seedEdgeFlip(world, {
      node: idle,
      predecessor: 'idle-caddy',
      successor: 'idle-proxy',
      leftovers: true,
      startedBy: 'carol',
    });
    const idleStart = await mesh('start', ...edgeFlipArgs(idleFlip), '--as', 'carol', '--detach');
    assert.equal(idleStart.code, 0, idleStart.stderr);

    const seeded = await seedEdgeScenario(world.mesh, {
      node: flipped,
      predecessor: 'caddy',
      successor: 'route-proxy',
      publicPort: await freePort(),
      stagingPort: await freePort(),
      leftovers: false,
    });
    const started = await mesh(
      'start',
      'edge-flip',
      '--node',
      flipped,
      '--module',
      'route-proxy',
      '--predecessor',
      'caddy',
      ...seeded.publicNames.flatMap((name) => ['--public-name', name]),
      '--public-address',
      seeded.publicAddress,
      '--successor-address',
      seeded.successorAddress,
      '--successor-marker',
      seeded.successorMarker,
      '--predecessor-marker',
      seeded.predecessorMarker,
    );
    assert.equal(started.code, 3, started.stderr);
    assert.match(started.stdout, /‖ waiting at approve-stop-predecessor \(approval\)/);

    const [waiting, shown] = await Promise.all([status(flipped), mesh('status', flipped)]);
    const evidence = waiting.waiting?.evidence ?? assert.fail('no evidence hash');
    assert.match(evidence, /^[0-9a-f]{10}$/);
    assert.equal(waiting.startedBy, ME);

    assert.equal(shown.code, 3, shown.stderr);
    assert.ok(shown.stdout.includes(`  evidence ${evidence}:`), shown.stdout);
    for (const fact of waiting.waiting?.facts ?? []) assert.ok(shown.stdout.includes(`    - ${fact}`), fact);
    assert.ok(shown.stdout.includes('  reminders: none sent yet'));
    assert.ok(
      shown.stdout.includes(`approve  mesh runbook decide ${flipId} approve --evidence ${evidence}`),
      shown.stdout,
    );

    // Both runbooks wait; then carol aborts hers at gate-apply, so exactly one waits.
    const idleWaiting = await waitFor(
      () => status(idle),
      (s) => s.waiting?.gate === 'gate-apply',
    );
    const aborted = await mesh('decide', idle, 'abort', '--as', 'carol');
    assert.equal(aborted.code, 0, aborted.stderr);
    assert.ok(aborted.stdout.includes(`on evidence ${idleWaiting.waiting?.evidence}`), aborted.stdout);
    await waitFor(
      () => status(idle),
      (s) => s.phase === 'aborted',
    );

    // Filters are ANDed into one visibility query; each list is exactly the runbooks it names.
    const [, rows, , , table] = await Promise.all([
      listed(['--waiting'], [flipId]),
      listed(['--node', flipped, '--phase', 'waiting'], [flipId]),
      listed(['--node', idle, '--phase', 'waiting'], []),
      listed(['--node', idle, '--phase', 'aborted'], [idleId]),
      mesh('list', '--waiting'),
    ]);
    assert.deepEqual(
      [rows[0]?.node, rows[0]?.kind, rows[0]?.phase, rows[0]?.waitingOn],
      [flipped, 'edge-flip', 'waiting', 'approve-stop-predecessor'],
    );
    assert.match(
      table.stdout,
      new RegExp(`${flipId} +edge-flip +${flipped} +waiting +approve-stop-predecessor`),
    );

    const stale = await mesh('decide', flipped, 'approve', '--evidence', '0000000000', '--as', 'bob');
    assert.equal(stale.code, 2, stale.stderr);
    assert.equal(stale.stdout, '');
    assert.equal(
      stale.stderr.split('\n')[0],
      `error: Evidence 0000000000 is stale: this runbook never showed that evidence. Look again and decide on evidence ${evidence}.`,
    );

    const mine = await mesh('approve', flipped, 'approve-stop-predecessor');
    assert.equal(mine.code, 2, mine.stderr);
    assert.match(
      mine.stderr.split('\n')[0] ?? '',
      new RegExp(
        `^error: ${ME} started this runbook and may not also approve approve-stop-predecessor \\(four eyes\\)`,
      ),
    );
    assert.ok(
      mine.stdout.startsWith(
        `deciding approve as ${ME} (OS user) at approve-stop-predecessor (approval) on evidence ${evidence}:`,
      ),
      mine.stdout,
    );

    const [{ refused }, shownRefused] = await Promise.all([status(flipped), mesh('status', flipped)]);
    assert.deepEqual(
      refused.map((r) => [r.by, r.identity, r.action, r.evidence]),
      [
        ['bob', 'as-flag', 'approve', '0000000000'],
        [ME, 'os-user', 'approve', evidence],
      ],
    );
    assert.match(
      shownRefused.stdout,
      /refused attempts:\n {2}approve at approve-stop-predecessor by bob \(--as\), .*: refused, Evidence 0000000000 is stale/,
    );

    const approved = await mesh(
      'approve',
      flipped,
      'approve-stop-predecessor',
      '--as',
      'bob',
      '--comment',
      'names verified',
    );
    assert.equal(approved.code, 0, approved.stderr);
    assert.match(
      approved.stdout,
      new RegExp(
        `recorded: approve at approve-stop-predecessor by bob \\(--as\\), \\S+Z, evidence ${evidence} "names verified"`,
      ),
    );

    const watched = await mesh('watch', flipped, '--json');
    assert.equal(watched.code, 0, watched.stderr);
    const events = watched.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string });
    const end = events.at(-1) as { event: string; exitCode: number; status: RunbookStatus };
    assert.deepEqual([end.event, end.exitCode, end.status.phase], ['end', 0, 'completed']);
    const decided = events.filter((e) => e.event === 'decision') as unknown as {
      decision: RunbookStatus['decisions'][number];
    }[];
    assert.deepEqual(
      decided.map(({ decision }) => [decision.action, decision.by, decision.identity]),
      [['approve', 'bob', 'as-flag']],
    );

    // The record outlives the worker: history reads Temporal's event history (and the run's result).
    await world.stopWorkers();
    const [history, historyJson, idleHistoryJson, ghost] = await Promise.all([
      mesh('history', flipped),
      mesh('history', flipped, '--json'),
      mesh('history', idle, '--json'),
      mesh('history', world.nodeName()),
    ]);
    assert.equal(history.code, 0, history.stderr);
    assert.match(
      history.stdout,
      /^ {2}✔ preflight +done +\d\d:\d\d:\d\d → \d\d:\d\d:\d\d \S+ +\[\d+ activities\]$/m,
    );
    assert.match(history.stdout, /^ {2}✔ stop-predecessor +done .*stopped /m);
    assert.ok(
      history.stdout.includes(`approve at approve-stop-predecessor by bob (--as), `) &&
        history.stdout.includes(`evidence ${evidence} "names verified"`),
      history.stdout,
    );
    assert.match(
      history.stdout,
      new RegExp(
        `approve at approve-stop-predecessor by ${ME} \\(OS user\\), \\S+Z, evidence ${evidence}: refused, ${ME} started this runbook`,
      ),
    );
    assert.match(history.stdout, /^completed at \S+Z: route-proxy serves/m);

    const recorded = JSON.parse(historyJson.stdout) as RunbookHistory;
    assert.deepEqual(
      recorded.decisions.map((d) => [d.action, d.by, d.identity, d.evidence, d.comment]),
      [['approve', 'bob', 'as-flag', evidence, 'names verified']],
    );
    assert.deepEqual(
      recorded.refused.map((r) => [r.by, r.identity, r.evidence]),
      [
        ['bob', 'as-flag', '0000000000'],
        [ME, 'os-user', evidence],
      ],
    );

    // A runbook that ended aborted, no worker anywhere: steps from its activities, carol's decision.
    const idleHistory = JSON.parse(idleHistoryJson.stdout) as RunbookHistory;
    assert.equal(idleHistory.phase, 'aborted');
    assert.equal(idleHistory.notesFrom, 'none');
    assert.ok(idleHistory.steps.some((step) => step.name === 'preflight' && step.activities.length > 0));
    assert.deepEqual(
      idleHistory.decisions.map((d) => [d.action, d.by, d.identity, d.gate]),
      [['abort', 'carol', 'as-flag', 'gate-apply']],
    );

    assert.equal(ghost.code, 2);
    assert.match(
      ghost.stderr,
      /^error: There is no runbook runbook-t\w+ on Temporal at .*\nSee the runbooks with `mesh runbook list`/,
    );
  });
});

async function waitFor<T>(
  look: () => Promise<T>,
  until: (value: T) => boolean,
  timeoutMs = 180_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await look();
    if (until(value)) return value;
    if (Date.now() > deadline) assert.fail(`timed out; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}
