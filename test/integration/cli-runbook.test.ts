import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { WorkflowNotFoundError } from '@temporalio/client';
import { RunbookStatus, runbookWorkflowId } from '../../workflows/contracts';
import { renderPlan } from '../../workflows/plans';
import {
  MESH_KIND,
  MESH_MODULE,
  MESH_NODE,
  MESH_PHASE,
  MESH_REVISION,
} from '../../workflows/search-attributes';
import { DEMO_PUBLIC_NAMES } from '../../mesh/local/scenarios/edge-flip-incident';
import { edgeFlipArgs, seedEdgeFlip, seedEdgeFlipIn } from '../support/edge-flip-seed';
import { removeNodeContainers } from '../support/docker';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';
import { freePort } from '../support/runbooks';
import { Scratch } from '../support/scratch';

const MESH = join(__dirname, '..', '..', 'bin', 'mesh.js');
const run = promisify(execFile);

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** `mesh runbook ...` as a subprocess, on its own task queue so no worker of another test picks it up. */
async function mesh(env: NodeJS.ProcessEnv, ...args: string[]): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(MESH, ['runbook', ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The CLI's refusal: `error: <one sentence>` and one suggestion line, nothing on stdout (exit 2). */
function assertRefused(outcome: Outcome, sentence: RegExp): void {
  assert.equal(outcome.code, 2, `exit 2 expected; stderr: ${outcome.stderr}`);
  assert.equal(outcome.stdout, '');
  const lines = outcome.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 2, `one sentence and one suggestion: ${outcome.stderr}`);
  assert.match(lines[0] ?? '', /^error: \S/);
  assert.match(lines[0] ?? '', sentence);
}

const node = () => `cli${randomBytes(3).toString('hex')}`;
const EDGE = [
  '--module',
  'route-proxy',
  '--predecessor',
  'caddy',
  '--public-name',
  'example.org',
  '--public-address',
  'http://127.0.0.1:80',
  '--successor-address',
  'http://127.0.0.1:8081',
  '--successor-marker',
  'served by route-proxy',
  '--predecessor-marker',
  'served by caddy',
];

async function assertNotStarted(world: RunbookWorld, name: string): Promise<void> {
  await assert.rejects(
    world.client.workflow.getHandle(runbookWorkflowId(name)).describe(),
    WorkflowNotFoundError,
  );
}

/** The CLI's environment: the world's task queue, which no worker polls. */
const cliEnv = (world: RunbookWorld) => ({ MESH_TASK_QUEUE: world.taskQueue });

describe('mesh runbook CLI against a real Temporal dev server (no worker on its task queue)', () => {
  it('refuses bad start options with one sentence and exit 2, and starts nothing', async () => {
    await using world = await runbookWorld({ worker: 'none' });
    const env = cliEnv(world);
    const cases: [string[], RegExp][] = [
      [
        ['--public-address', 'localhost:80'],
        /^error: --public-address "localhost:80" is invalid: an address like/,
      ],
      [['--public-name', 'not a host'], /^error: --public-name "not a host" is invalid: not a host name\.$/],
      [['--successor-address', 'ftp://x:1'], /^error: --successor-address "ftp:\/\/x:1" is invalid/],
      [['--predecessor', 'route-proxy'], /--predecessor and --module are both route-proxy/],
      [['--expect-status', '99'], /^error: --expect-status "99" is invalid/],
      [['--bogus'], /^error: unknown option '--bogus'/],
    ];
    await Promise.all(
      cases.map(async ([override, sentence]) => {
        const name = world.nodeName();
        const args = [...EDGE];
        const at = args.indexOf(override[0] ?? '');
        if (at >= 0 && override[1] !== undefined) args[at + 1] = override[1];
        else args.push(...override);
        assertRefused(await mesh(env, 'start', 'edge-flip', '--node', name, ...args, '--detach'), sentence);
        await assertNotStarted(world, name);
      }),
    );
    const missing = await mesh(
      env,
      'start',
      'edge-flip',
      '--node',
      'nowhere',
      '--module',
      'route-proxy',
      '--detach',
    );
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /required option '--predecessor <module>' not specified/);
    await assertNotStarted(world, 'nowhere');
    // Without markers any 200 would pass the probes: a default vhost, a maintenance page.
    for (const marker of ['--successor-marker', '--predecessor-marker']) {
      const name = world.nodeName();
      const at = EDGE.indexOf(marker);
      const unmarked = EDGE.filter((_, i) => i !== at && i !== at + 1);
      assertRefused(
        await mesh(env, 'start', 'edge-flip', '--node', name, ...unmarked, '--detach'),
        new RegExp(`^error: required option '${marker} <text>' not specified$`),
      );
      await assertNotStarted(world, name);
    }
    assertRefused(
      await mesh(env, 'start', 'edge-flip', '--node', 'Bad_Node', ...EDGE, '--detach'),
      /^error: --node "Bad_Node" is invalid: lower-case letters, digits and dashes/,
    );
  });

  it('names the kinds that exist when asked to start an unknown one', async () => {
    await using world = await runbookWorld({ worker: 'none' });
    const env = cliEnv(world);
    assertRefused(
      await mesh(env, 'start', 'foo', '--node', 'x'),
      /There is no runbook kind "foo"; the kinds are edge-flip and data-path-move/,
    );
    assertRefused(
      await mesh(env, 'start'),
      /Name the kind of runbook to start: edge-flip and data-path-move\./,
    );
  });

  it('answers status, watch, decide, approve and abort of an unknown runbook with a clear sentence', async () => {
    await using world = await runbookWorld({ worker: 'none' });
    const env = cliEnv(world);
    const ghost = world.nodeName();
    const verbs = [
      ['status', ghost],
      ['status', runbookWorkflowId(ghost), '--json'],
      ['watch', ghost],
      ['decide', ghost, 'take'],
      ['approve', runbookWorkflowId(ghost), 'approve-stop-predecessor'],
      ['abort', ghost],
    ];
    for (const outcome of await Promise.all(verbs.map((args) => mesh(env, ...args)))) {
      assertRefused(
        outcome,
        new RegExp(`^error: There is no runbook ${runbookWorkflowId(ghost)} on Temporal at `),
      );
    }
    assertRefused(await mesh(env, 'status', 'Not An Id'), /"Not An Id" is neither a runbook id/);
    await assertNotStarted(world, ghost);
  });

  it('starts detached, then refuses a second runbook on the node naming the running one', async () => {
    await using world = await runbookWorld({ worker: 'none' });
    // The node as the plan needs it (start refuses what preflight would): the CLI reads the world's mesh.
    const env = { ...cliEnv(world), MESH_ADAPTER: 'local', MESH_LOCAL_STATE: world.stateDir };
    const name = world.nodeName();
    const id = runbookWorkflowId(name);
    const flip = edgeFlipArgs(await seedEdgeFlip(world, { node: name }));
    const first = await mesh(env, 'start', ...flip, '--as', 'alice', '--detach', '--json');
    assert.equal(first.code, 0, first.stderr);
    const detached = JSON.parse(first.stdout) as {
      id: string;
      taskQueue: string;
      input: { startedBy: string };
    };
    assert.deepEqual(
      [detached.id, detached.taskQueue, detached.input.startedBy],
      [id, env.MESH_TASK_QUEUE, 'alice'],
    );
    assert.match(first.stderr, /no worker polls task queue/);
    const described = await world.client.workflow.getHandle(id).describe();
    assert.equal(described.type, 'edgeFlip');
    assert.equal(described.taskQueue, env.MESH_TASK_QUEUE);
    // No worker ran it: what the list and the Web UI show came with the start itself.
    const attributes = described.typedSearchAttributes;
    assert.deepEqual(
      [MESH_NODE, MESH_MODULE, MESH_KIND, MESH_PHASE].map((key) => attributes.get(key)),
      [name, 'route-proxy', 'edge-flip', 'running'],
    );
    assert.equal(attributes.get(MESH_REVISION), undefined, 'the revision is the code that runs it, none yet');
    const details = (await described.staticDetails()) ?? '';
    assert.ok(details.includes(`**public names:** ${DEMO_PUBLIC_NAMES.join(', ')}`), details);
    assert.ok(details.includes(renderPlan('edge-flip')), details);

    assertRefused(
      await mesh(env, 'start', ...flip, '--detach'),
      new RegExp(
        `^error: Runbook ${id} \\(edge-flip, started by alice\\) is still running on ${name}, at an unknown step \\(no worker polls its task queue ${env.MESH_TASK_QUEUE}\\); a node runs one runbook at a time\\.$`,
      ),
    );

    const status = await mesh(env, 'status', name, '--json');
    assert.equal(status.code, 1, 'no worker answers: no status to print');
    assert.equal(status.stdout, '');
    assert.match(
      status.stderr,
      /is running \(edge-flip, started by alice .*\) but no worker polls its task queue/,
    );

    const decided = await mesh(env, 'decide', name, 'retry');
    assert.equal(decided.code, 1);
    assert.match(decided.stderr, /No worker polls task queue .*, so .* cannot take a decision now/);

    let listed: { id: string; kind: string; status: string; node: string; phase: string }[] = [];
    for (let attempt = 0; attempt < 40 && !listed.some((row) => row.id === id); attempt++) {
      const list = await mesh(env, 'list', '--json');
      assert.equal(list.code, 0, list.stderr);
      listed = JSON.parse(list.stdout) as typeof listed;
      if (!listed.some((row) => row.id === id)) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.deepEqual(
      listed.map((row) => [row.id, row.kind, row.status, row.node, row.phase]),
      [[id, 'edge-flip', 'RUNNING', name, 'running']],
    );
  });
});

/** Runs `mesh runbook dev` until it prints that it is ready; returns the process. */
async function startDev(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(MESH, ['runbook', 'dev', ...args], { env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 120_000;
  while (!stdout.includes('mesh runbook dev is ready')) {
    if (child.exitCode !== null) assert.fail(`dev exited ${child.exitCode}: ${stderr}`);
    if (Date.now() > deadline) assert.fail(`dev not ready: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { child, output: () => stdout + stderr };
}

async function stopDev(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGINT');
  return exited;
}

describe('mesh runbook dev: its own server and worker, runbooks survive a restart', () => {
  const scratch = new Scratch();
  let dev: ChildProcess | undefined;
  after(async () => {
    if (dev && dev.exitCode === null) await stopDev(dev);
    await scratch.cleanup();
  });

  it('keeps a waiting runbook across a stop and a start, then aborts it with compensations', async (t) => {
    const stateDir = await scratch.dir('mesh-dev-');
    const [port, uiPort] = [await freePort(), await freePort()];
    const devArgs = ['--state-dir', stateDir, '--port', String(port), '--ui-port', String(uiPort)];
    const devEnv = {
      MESH_TASK_QUEUE: `cli-dev-${randomBytes(4).toString('hex')}`,
      MESH_LOCAL_STATE: join(stateDir, 'local'),
    };
    const cli = { ...devEnv, TEMPORAL_ADDRESS: `127.0.0.1:${port}` };
    const name = node();
    const id = runbookWorkflowId(name);

    const flip = edgeFlipArgs(await seedEdgeFlipIn(join(stateDir, 'local'), name));
    t.after(() => removeNodeContainers([name]));
    const first = await startDev(devArgs, devEnv);
    dev = first.child;
    assert.match(
      first.output(),
      /^ {2}decisions {6}unsigned: the policy lists no signers \(policy\.signers\), so no decision can be signed here$/m,
    );
    // The flip goes as far as it may alone, and waits for the approval to stop the predecessor.
    const started = await mesh(cli, 'start', ...flip, '--as', 'alice');
    assert.equal(started.code, 3, started.stderr);
    assert.match(started.stdout, /‖ waiting at approve-stop-predecessor \(approval\)/);
    for (const action of ['approve', 'abort'])
      assert.match(
        started.stdout,
        new RegExp(`${action} +mesh runbook decide ${id} ${action} --evidence [0-9a-f]{10}\\n`),
      );

    const refused = await mesh(cli, 'decide', name, 'take');
    assertRefused(
      refused,
      /^error: take is not an action at gate approve-stop-predecessor \(approval\); choose one of: approve, abort\.$/,
    );

    assert.equal(await stopDev(dev), 0);
    const down = await mesh(cli, 'status', name);
    assert.equal(down.code, 1);
    assert.match(down.stderr, /Cannot reach Temporal at 127\.0\.0\.1:/);

    dev = (await startDev(devArgs, devEnv)).child;
    const status = await mesh(cli, 'status', id, '--json');
    assert.equal(status.code, 3, status.stderr);
    const waiting = RunbookStatus.parse(JSON.parse(status.stdout));
    assert.deepEqual(
      [waiting.phase, waiting.waiting?.gate, waiting.startedBy, waiting.waiting?.actions],
      ['waiting', 'approve-stop-predecessor', 'alice', ['approve', 'abort']],
    );

    const aborted = await mesh(cli, 'abort', name, '--as', 'bob');
    assert.equal(aborted.code, 0, aborted.stderr);
    assert.match(aborted.stdout, /aborted: /);
    const ended = await mesh(cli, 'status', name);
    assert.equal(ended.code, 5);
    assert.match(ended.stdout, /started by alice: aborted/);
    assert.equal(await stopDev(dev), 0);
  });
});
