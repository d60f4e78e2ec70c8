import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { it } from 'node:test';
import { promisify } from 'node:util';
import { WorkflowFailedError, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { dataPathMove } from '../../workflows';
import { FAILURE, runbookWorkflowId, type RunbookStatus } from '../../workflows/contracts';
import {
  exists,
  FROM,
  moveInput,
  scheduledActivities,
  seedForge,
  TO,
  type Forge,
} from '../support/data-move';
import { meshRunbook } from '../support/mesh-cli';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { closedFailing, FAST_TIMINGS, statusWhen, stepState } from '../support/runbooks';
import { describe } from '../support/side-by-side';

/**
 * Bad paths are refused before anything changes, each with its own sentence: path shapes by the CLI
 * (exit 2, nothing started) and again by the runbook's preflight when started without the CLI; a missing
 * A and a non-empty B by the preflight, which looks at the node's disk. `start` refuses what the plan says
 * preflight would refuse (exit 2, nothing started, no lock); a runbook started without the CLI that meets
 * the refusal at preflight ends failed with nothing to undo, never waiting with its locks held.
 */

const MESH = join(__dirname, '..', '..', 'bin', 'mesh.js');
const run = promisify(execFile);

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** The path-shape mistakes and the sentence each gets, from the CLI and from the runbook alike. */
/** `inputRefusal`: the workflow's own input schema refuses it, before the runbook even opens. */
const BAD_PATHS: { name: string; from: string; to: string; sentence: string; inputRefusal?: string }[] = [
  {
    name: 'relative',
    from: 'srv/forge',
    to: TO,
    sentence: 'The source path "srv/forge" is relative; give an absolute path such as /srv/forge.',
    inputRefusal: 'from: must be an absolute path',
  },
  {
    name: '/',
    from: FROM,
    to: '/',
    sentence: 'The target path is / (the whole file system); give the data directory itself.',
  },
  {
    name: '/etc',
    from: FROM,
    to: '/etc',
    sentence:
      'The target path /etc is a system path (/etc); data directories belong below /srv, /var/lib, /opt or /home.',
  },
  {
    name: 'below /etc',
    from: '/etc/forge',
    to: TO,
    sentence:
      'The source path /etc/forge is a system path (under /etc); data directories belong below /srv, /var/lib, /opt or /home.',
  },
  {
    name: 'B inside A',
    from: FROM,
    to: `${FROM}/new`,
    sentence: `The target path ${FROM}/new lies inside the source path ${FROM}; the copy would copy into itself.`,
  },
  {
    name: 'A inside B',
    from: `${TO}/old`,
    to: TO,
    sentence: `The source path ${TO}/old lies inside the target path ${TO}; the target must be a separate, empty directory.`,
  },
  {
    name: 'the same path',
    from: FROM,
    to: `${FROM}/`,
    sentence: `The source and target paths are the same (${FROM}); nothing would move.`,
  },
  {
    name: 'a shared parent',
    from: FROM,
    to: '/var/lib',
    sentence:
      "The target path /var/lib holds other services' data too; give the service's own directory below it.",
  },
];

/** `start data-path-move` of the seeded forge, as an operator types it. */
function startMove(forge: Forge, paths: { from?: string; to?: string } = {}): string[] {
  const [from, to] = [paths.from ?? FROM, paths.to ?? TO];
  return [
    'start',
    'data-path-move',
    '--node',
    forge.node,
    '--module',
    forge.module,
    '--from',
    from,
    '--to',
    to,
  ];
}

/** `mesh runbook ...` as a subprocess, on the world's task queue. */
async function mesh(world: RunbookWorld, ...args: string[]): Promise<Outcome> {
  const env = { ...process.env, MESH_TASK_QUEUE: world.taskQueue };
  try {
    const { stdout, stderr } = await run(MESH, ['runbook', ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('data-path-move refuses bad paths before anything changes', () => {
  it('the CLI refuses each bad path shape with its own sentence and exit 2, and starts nothing', async () => {
    await using world = await runbookWorld({ worker: 'none' });
    const notStarted = (node: string) =>
      assert.rejects(
        world.client.workflow.getHandle(runbookWorkflowId(node)).describe(),
        WorkflowNotFoundError,
      );
    await Promise.all(
      BAD_PATHS.map(async ({ name, from, to, sentence }) => {
        const node = world.nodeName();
        const outcome = await mesh(
          world,
          'start',
          'data-path-move',
          '--node',
          node,
          '--module',
          'forge',
          '--from',
          from,
          '--to',
          to,
          '--detach',
        );
        assert.equal(outcome.code, 2, `${name}: exit 2 expected; stderr: ${outcome.stderr}`);
        assert.equal(outcome.stdout, '', name);
        const [first, suggestion, ...rest] = outcome.stderr.trimEnd().split('\n');
        assert.equal(first, `error: ${sentence}`, name);
        assert.match(suggestion ?? '', /Give two distinct absolute paths, neither inside the other/, name);
        assert.deepEqual(rest, [], `${name}: one sentence and one suggestion`);
        await notStarted(node);
      }),
    );
    // Names and paths the runbook would refuse anyway are refused here too, each with its own suggestion.
    const hostile: [string[], string, RegExp][] = [
      [
        ['--to', '/var/lib/x\u001b[31my'],
        'error: --to is invalid: must not contain control characters or line breaks.',
        /^Give the path as plain printable text/,
      ],
      [
        ['--to', `/var/lib/${'x'.repeat(2000)}`],
        'has a name of 2,000 bytes; Linux allows a name at most 255.',
        /^Give paths the system can hold/,
      ],
      [
        ['--to', `/var/lib${`/${'x'.repeat(200)}`.repeat(21)}`],
        'bytes long; Linux allows a path at most 4,095.',
        /^Give paths the system can hold/,
      ],
      [['--nodes', 'n2,n3'], 'leaves out --node', /^Add it: --nodes /],
      [['--nodes', 'a,,b'], 'has an empty name', /^For example --nodes /],
      [
        ['--nodes', 'Bad_Node,NODE'],
        'error: --nodes is invalid: lower-case letters',
        /^Names use lower-case letters/,
      ],
    ];
    for (const [extra, first, suggestion] of hostile) {
      const node = world.nodeName();
      const base = [
        'start',
        'data-path-move',
        '--node',
        node,
        '--module',
        'forge',
        '--from',
        FROM,
        '--to',
        TO,
      ];
      const named = extra.map((arg) => arg.replace('NODE', node));
      const outcome = await mesh(world, ...base, ...named, '--detach');
      assert.equal(outcome.code, 2, `${extra.join(' ')}: ${outcome.stderr}`);
      const [said, suggested, ...rest] = outcome.stderr.trimEnd().split('\n');
      assert.ok(said?.includes(first), said);
      assert.match(suggested ?? '', suggestion);
      assert.deepEqual(rest, []);
      await notStarted(node);
    }
    // The same command with good paths on a node as the move needs it does start a runbook (on a queue no
    // worker polls): the refusals above are the paths', not the command's.
    const forge = await seedForge(world);
    const good = await meshRunbook(world, ...startMove(forge), '--detach', '--json');
    assert.equal(good.code, 0, good.stderr);
    const handle = world.client.workflow.getHandle(runbookWorkflowId(forge.node));
    assert.equal((await handle.describe()).type, 'dataPathMove');
  });

  it('start refuses with exit 2 what the preflight would refuse, in the plan’s words: no workflow, no lock', async () => {
    await using world = await runbookWorld();
    const forge = await seedForge(world);
    const missing = '/srv/forge-old';
    const refused = await meshRunbook(world, ...startMove(forge, { from: missing }), '--yes');
    assert.equal(refused.code, 2, refused.stderr);
    assert.equal(refused.stdout, '', 'not even the plan: nothing starts');
    const [said, suggested, ...rest] = refused.stderr.trimEnd().split('\n');
    assert.equal(
      said,
      `error: Not started: preflight would refuse data-path-move of ${forge.module} on ${forge.node}: the source path ${missing} does not exist on node ${forge.node}.`,
    );
    assert.match(suggested ?? '', /^Fix the node, then start again; `mesh runbook plan data-path-move/);
    assert.deepEqual(rest, []);
    await assert.rejects(
      world.client.workflow.getHandle(runbookWorkflowId(forge.node)).describe(),
      WorkflowNotFoundError,
    );
    const plan = await meshRunbook(world, 'plan', ...startMove(forge, { from: missing }).slice(1));
    assert.equal(plan.code, 2, plan.stderr);
    assert.ok(plan.stdout.includes(`${missing} does not exist on node ${forge.node}`), plan.stdout);

    // No lock was left behind: the move of the same module on the same node takes its locks at once.
    const handle = await world.start(dataPathMove, moveInput(forge));
    const locked = await statusWhen(handle, (s) => stepState(s, 'locks') === 'done');
    assert.match(locked.steps.find((step) => step.name === 'locks')?.note ?? '', /^holds node-/);
    await handle.cancel();
    await closedFailing(handle);
  });

  it('the runbook started without the CLI refuses the same shapes at preflight and ends, with nothing to undo', async () => {
    await using world = await runbookWorld();
    // One after the other: each moves forge, and a move holds the module until it ends.
    for (const { name, sentence, inputRefusal, ...bad } of BAD_PATHS) {
      // A node of the mesh, so its worker serves it: the preflight runs there.
      const node = world.nodeName();
      await world.mesh.createNode(node, { adopted: false });
      const handle = await world.start(dataPathMove, {
        node,
        module: 'forge',
        from: bad.from,
        to: bad.to,
        startedBy: 'alice',
        timings: FAST_TIMINGS,
      });
      if (inputRefusal) {
        const failure = await handle.result().then(
          () => assert.fail(`${name}: started`),
          (error: unknown) => error as WorkflowFailedError,
        );
        assert.ok(failure instanceof WorkflowFailedError, name);
        assert.equal(failure.cause?.message, inputRefusal, name);
        assert.deepEqual(scheduledActivities(await handle.fetchHistory()), {}, `${name}: nothing ran`);
        continue;
      }
      const status = await refusedAndEnded(handle, sentence);
      assert.equal(status.steps.find((step) => step.name === 'locks')?.state, 'done', name);
      const scheduled = scheduledActivities(await handle.fetchHistory());
      assert.deepEqual(
        scheduled,
        {
          runbookPolicy: 1,
          previousRun: 1,
          lockGrantOf: 1,
          nodesNeedingClearing: 1,
          nodeQueuePollers: 1,
          nodeFingerprint: 1,
          preflightMove: 1,
        },
        `${name}: nothing but reading the decision policy, the node's last run and marks, its host and the preflight ran`,
      );
    }
  });

  /** What a refused preflight must leave as it was: the container on A, the spec, the policy. */
  async function snapshot(world: RunbookWorld, forge: Forge) {
    const info = await world.engine.inspect(forge.web);
    return {
      id: info?.Id,
      running: info?.State.Running,
      startedAt: info?.State.StartedAt,
      sources: info?.Mounts.map((m) => m.Source),
      spec: await world.mesh.moduleSpec(forge.module),
    };
  }

  /** Ends refused at preflight, never waiting: failed, its sentence the outcome, no later step run. */
  async function refusedAndEnded(handle: WorkflowHandle, sentence: string): Promise<RunbookStatus> {
    const { status, cause } = await closedFailing(handle);
    assert.equal(cause instanceof ApplicationFailure && cause.type, FAILURE.preflightFailed);
    assert.equal(status.phase, 'failed');
    assert.equal(status.outcome, `refused at preflight: ${sentence.replace(/\.$/, '')}`);
    assert.equal(status.waiting, null);
    assert.deepEqual(status.decisions, [], 'nobody was asked');
    assert.equal(status.steps.find((s) => s.name === 'preflight')?.state, 'failed');
    for (const later of ['freeze-policy', 'stop-containers', 'copy'])
      assert.equal(status.steps.find((s) => s.name === later)?.state, 'pending', later);
    return status;
  }

  async function assertRefusalRecorded(handle: WorkflowHandle, sentence: string): Promise<void> {
    const history = await handle.fetchHistory();
    const failures = (history.events ?? []).flatMap(
      (e) => e.activityTaskFailedEventAttributes?.failure ?? [],
    );
    assert.equal(failures.length, 1, 'the preflight activity failed once: its refusal is not retried');
    assert.equal(failures[0]?.applicationFailureInfo?.type, FAILURE.preflightFailed);
    assert.equal(failures[0]?.applicationFailureInfo?.nonRetryable, true);
    assert.equal(failures[0]?.message, sentence);
    const scheduled = scheduledActivities(history);
    for (const changing of ['setUpgradePolicy', 'stopContainers', 'copyTree', 'moveModuleMounts', 'pushNode'])
      assert.equal(scheduled[changing], undefined, `${changing} never ran`);
  }

  it('A missing: the preflight names the path and ends the runbook, the container keeps running on A, the policy stays roll-out', async () => {
    await using world = await runbookWorld();
    const forge = await seedForge(world);
    const before = await snapshot(world, forge);
    const missing = '/srv/forge-old';
    const handle = await world.start(dataPathMove, moveInput(forge, { from: missing }));
    const sentence = `The source path ${missing} does not exist on node ${forge.node}.`;
    await refusedAndEnded(handle, sentence);
    assert.deepEqual(await snapshot(world, forge), before, 'nothing changed');
    assert.equal(await exists(forge.hostTo), false);
    assert.equal(before.spec.upgradePolicy, 'roll-out');
    assert.equal(before.running, true);
    assert.deepEqual(before.sources, [forge.hostFrom]);
    await assertRefusalRecorded(handle, sentence);
  });

  it('a module assigned to two nodes: the move of one refuses naming both, and changes nothing on either', async () => {
    await using world = await runbookWorld();
    const forge = await seedForge(world);
    const other = world.nodeName();
    const second = await world.mesh.createNode(other, { adopted: false });
    const secondData = join(second.hostRoot, FROM.slice(1));
    await mkdir(secondData, { recursive: true });
    await writeFile(join(secondData, 'repo.txt'), "the second node's own data\n");
    await world.mesh.assign(forge.module, other);
    const before = await snapshot(world, forge);

    const handle = await world.start(dataPathMove, moveInput(forge));
    const [first, next] = [forge.node, other].sort();
    const sentence = `${forge.module} is assigned to ${first}, ${next}; its spec and policy are the same on every node, so a move changes them all: name them all (--nodes ${first},${next}) and the runbook moves each node's data.`;
    await refusedAndEnded(handle, sentence);
    assert.deepEqual(
      await snapshot(world, forge),
      before,
      'the spec, the policy and the container as they were',
    );
    assert.equal(await readFile(join(secondData, 'repo.txt'), 'utf8'), "the second node's own data\n");
    assert.equal(
      await exists(join(second.hostRoot, TO.slice(1))),
      false,
      'nothing copied on the second node',
    );
    const scheduled = scheduledActivities(await handle.fetchHistory());
    for (const changing of ['setUpgradePolicy', 'stopContainers', 'copyTree', 'moveModuleMounts', 'pushNode'])
      assert.equal(scheduled[changing], undefined, `${changing} never ran`);
  });

  it('B not empty: the preflight names the path and an entry and ends the runbook, B stays untouched', async () => {
    await using world = await runbookWorld();
    const forge = await seedForge(world);
    await mkdir(forge.hostTo, { recursive: true });
    await writeFile(join(forge.hostTo, 'stray.txt'), 'someone else was here\n');
    const before = await snapshot(world, forge);
    const handle = await world.start(dataPathMove, moveInput(forge));
    const sentence = `The target path ${TO} is not empty on node ${forge.node} (1 entry, e.g. stray.txt); empty it or choose another path.`;
    await refusedAndEnded(handle, sentence);
    assert.deepEqual(await snapshot(world, forge), before);
    assert.deepEqual(await readdir(forge.hostTo), ['stray.txt']);
    assert.equal(await readFile(join(forge.hostTo, 'stray.txt'), 'utf8'), 'someone else was here\n');
    await assertRefusalRecorded(handle, sentence);
  });
});
