import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Command, CommanderError } from 'commander';
import { knownGate, fourEyesFile } from '../../config/four-eyes';
import { lockHoldsQuery } from '../../activities/runbook/lock-holds';
import { listQuery } from '../../cli/runbook/list/query';
import { rowOf } from '../../cli/runbook/list/list';
import { registerPlan } from '../../cli/runbook/plan/plan';
import { registerStart } from '../../cli/runbook/start/start';
import { kindOfWorkflowType, launchDescription } from '../../workflows/kinds';
import { decisionPoints, fourEyesGates } from '../../workflows/plans';
import { FIXTURE_OPERATORS, FIXTURE_REGISTRY, planned } from '../support/fixture-kind';
import { replayList } from '../support/replay-list';

/** `mesh runbook <args>` on a program whose start and plan read `FIXTURE_OPERATORS`; what it wrote. */
async function meshRunbook(...args: string[]): Promise<{ out: string; code: number | undefined }> {
  let out = '';
  const program = new Command('mesh')
    .exitOverride()
    .configureOutput({ writeOut: (text) => (out += text), writeErr: (text) => (out += text) });
  const runbook = program.command('runbook');
  registerStart(runbook, FIXTURE_OPERATORS);
  registerPlan(runbook, FIXTURE_OPERATORS);
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((text: string) => ((out += text), true)) as typeof process.stdout.write;
  try {
    await program.parseAsync(['runbook', ...args], { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError) || error.exitCode !== 0) throw error;
  } finally {
    process.stdout.write = write;
  }
  const code = process.exitCode === undefined ? undefined : Number(process.exitCode);
  process.exitCode = undefined;
  return { out, code };
}

describe('a kind registered in the registry alone is seen by every surface', () => {
  const state = mkdtempSync(join(tmpdir(), 'mesh-fixture-kind-'));
  after(() => rmSync(state, { recursive: true, force: true }));

  it('start --help names it, and start fixture-kind --help shows its plan', async () => {
    assert.match((await meshRunbook('start', '--help')).out, /edge-flip, data-path-move and fixture-kind/);
    const help = (await meshRunbook('start', 'fixture-kind', '--help')).out;
    assert.match(help, /turn-inside-out/);
    assert.match(help, /approve-fixture-turn/);
  });

  it('plan fixture-kind parses its input by its own schema and prints its planner’s plan', async () => {
    const saved = { ...process.env };
    process.env.MESH_CONFIG = '';
    process.env.MESH_LOCAL_STATE = join(state, 'mesh');
    process.env.MESH_STATE_DIR = join(state, 'runbook');
    try {
      const { out, code } = await meshRunbook(
        'plan',
        'fixture-kind',
        '--node',
        'novox',
        '--module',
        'm1',
        '--json',
      );
      assert.deepEqual(planned.at(-1), { node: 'novox', module: 'm1', startedBy: 'alice' });
      assert.equal((JSON.parse(out) as { kind: string }).kind, 'fixture-kind');
      assert.equal(code, 3, 'its approval is predicted to wait');
      await assert.rejects(meshRunbook('plan', 'fixture-kind', '--node', 'Not A Node', '--module', 'm1'), {
        message: /The fixture-kind input does not parse \(node: /,
      });
    } finally {
      process.env = saved;
    }
    assert.match((await meshRunbook('plan', '--help')).out, /edge-flip, data-path-move or fixture-kind/);
  });

  it('status and list know its runbooks and its fleets by their workflow types', () => {
    assert.equal(kindOfWorkflowType('fixtureKind', FIXTURE_REGISTRY), 'fixture-kind');
    assert.equal(kindOfWorkflowType('fixtureKindFleet', FIXTURE_REGISTRY), 'fixture-kind');
    assert.match(
      listQuery('q', {}, FIXTURE_REGISTRY),
      /WorkflowType IN \('edgeFlip', 'dataPathMove', 'fixtureKind', 'edgeFlipFleet', 'dataPathMoveFleet', 'fixtureKindFleet'/,
    );
    const info = {
      workflowId: 'runbook-novox',
      runId: 'r',
      type: 'fixtureKind',
      taskQueue: 'q',
      status: 'RUNNING',
      startTime: new Date(0),
      searchAttributes: {},
    };
    assert.equal(rowOf(info, FIXTURE_REGISTRY).kind, 'fixture-kind');
  });

  it('the Web UI describes it by its own words and plan, not as another kind', () => {
    const described = launchDescription(
      'fixture-kind',
      { node: 'novox', module: 'm1', startedBy: 'alice' },
      FIXTURE_REGISTRY,
    );
    assert.equal(described.summary, 'fixture-kind on novox: m1 inside out (started by alice)');
    assert.match(described.plan, /approve-fixture-turn/);
  });

  it('the policy knows its gates, and its approval is four-eyes by default, also under a config that names kinds', () => {
    assert.ok(decisionPoints(FIXTURE_REGISTRY).includes('approve-fixture-turn'));
    assert.ok(knownGate(FIXTURE_REGISTRY).safeParse('approve-fixture-turn').success);
    assert.ok(fourEyesGates(FIXTURE_REGISTRY).includes('approve-fixture-turn'));
    const example = {
      'edge-flip': ['approve-stop-predecessor'],
      'data-path-move': ['approve-remove-old-data'],
    };
    assert.deepEqual(fourEyesFile(FIXTURE_REGISTRY).parse(example), [
      'approve-stop-predecessor',
      'approve-remove-old-data',
      'approve-fixture-turn',
    ]);
    const list = fourEyesFile(FIXTURE_REGISTRY).safeParse([
      'approve-stop-predecessor',
      'approve-remove-old-data',
    ]);
    assert.ok(!list.success, 'a list written before the kind existed does not drop its four eyes silently');
    assert.match(list.error.issues[0]?.message ?? '', /names no gate of fixture-kind/);
  });

  it('a lock keeper started afresh asks its runbooks and its fleets, which hold locks of their own', () => {
    const query = lockHoldsQuery('q', FIXTURE_REGISTRY);
    assert.match(
      query,
      /WorkflowType IN \('edgeFlip', 'dataPathMove', 'fixtureKind', 'dataPathMoveFleet', 'fixtureKindFleet'\)/,
    );
  });

  it('the replay suite lists it, and asks a recording of it and of its fleet', () => {
    const list = replayList(FIXTURE_REGISTRY);
    assert.deepEqual(
      list.filter((entry) => entry.recordings.length === 0).map((entry) => entry.type),
      ['fixtureKind', 'fixtureKindFleet'],
    );
  });
});
