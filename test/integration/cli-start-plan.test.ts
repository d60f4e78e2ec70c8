import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { WorkflowNotFoundError } from '@temporalio/client';
import { shellWord } from '../../cli/output';
import { runbookWorkflowId, type EdgeFlipInputArg } from '../../workflows/contracts';
import { PlanReport } from '../../workflows/plan-report';
import { edgeFlipArgs, seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld, type RunbookWorld } from '../support/runbook-world';

const MESH = join(__dirname, '..', '..', 'bin', 'mesh.js');
const run = promisify(execFile);

interface Outcome {
  code: number | null;
  output: string;
}

const envOf = (world: RunbookWorld) => ({
  ...process.env,
  MESH_LOCAL_STATE: world.stateDir,
  MESH_TASK_QUEUE: world.taskQueue,
  NO_COLOR: '1',
});

const startArgs = (input: EdgeFlipInputArg, ...extra: string[]) => [
  'runbook',
  'start',
  ...edgeFlipArgs(input),
  '--detach',
  ...extra,
];

/** `mesh ...` on a real pseudo-terminal (util-linux `script`), typing `typed` into it. */
function onTerminal(world: RunbookWorld, args: string[], typed: string): Promise<Outcome> {
  const command = [MESH, ...args].map(shellWord).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    env: envOf(world),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stdin.end(typed);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

async function started(world: RunbookWorld, node: string): Promise<boolean> {
  return world.client.workflow
    .getHandle(runbookWorkflowId(node))
    .describe()
    .then(
      () => true,
      (error: unknown) => {
        if (error instanceof WorkflowNotFoundError) return false;
        throw error;
      },
    );
}

const TAKE = /you will be asked to `take` route-proxy: \/var\/lib\/route-proxy\/\{www,ca,dns\} exist on/;
const count = (text: string, what: string) => text.split(what).length - 1;

describe('mesh runbook start shows the plan and, on a terminal, asks once', () => {
  it('on a terminal: shows the plan, asks once; no starts nothing (exit 2), yes starts', async () => {
    await using world = await runbookWorld({ worker: 'none' });
    const input = await seedEdgeFlip(world, { leftovers: true });
    const question = `start edge-flip on ${input.node}? [y/N]`;

    const declined = await onTerminal(world, startArgs(input), 'n\n');
    assert.equal(declined.code, 2, declined.output);
    assert.match(declined.output, TAKE);
    assert.equal(count(declined.output, question), 1, declined.output);
    assert.match(declined.output, /error: Not started: the answer was not yes\./);
    assert.equal(await started(world, input.node), false);

    const accepted = await onTerminal(world, startArgs(input), 'y\n');
    assert.equal(accepted.code, 0, accepted.output);
    assert.equal(count(accepted.output, question), 1, accepted.output);
    assert.match(accepted.output, new RegExp(`started ${runbookWorkflowId(input.node)}`));
    assert.equal(await started(world, input.node), true);
    // The Web UI shows what was predicted, below the plan.
    const details = await world.client.workflow.getHandle(runbookWorkflowId(input.node)).describe();
    const text = (await details.staticDetails()) ?? '';
    assert.match(text, /### Predicted at the start: a decision predicted/);
    assert.match(text, TAKE);
    assert.match(text, /- gate-apply: held/);
  });

  it('with --yes on a terminal, and without a terminal, it shows the plan and starts without asking', async () => {
    await using world = await runbookWorld({ worker: 'none' });
    const first = await seedEdgeFlip(world, { leftovers: true });
    const yes = await onTerminal(world, startArgs(first, '--yes'), '');
    assert.equal(yes.code, 0, yes.output);
    assert.match(yes.output, TAKE);
    assert.doesNotMatch(yes.output, /\[y\/N\]/);
    assert.equal(await started(world, first.node), true);

    const second = await seedEdgeFlip(world, { leftovers: true });
    const piped = await run(MESH, startArgs(second), { env: envOf(world) });
    assert.match(piped.stdout, TAKE);
    assert.doesNotMatch(piped.stdout + piped.stderr, /\[y\/N\]/);
    assert.equal(await started(world, second.node), true);

    // --json: stdout is the started document, the plan in it; nothing is asked without a terminal.
    const third = await seedEdgeFlip(world);
    const json = await run(MESH, startArgs(third, '--json'), { env: envOf(world) });
    const document = JSON.parse(json.stdout) as { id: string; plan: unknown };
    assert.equal(document.id, runbookWorkflowId(third.node));
    assert.equal(PlanReport.parse(document.plan).outcome, 'ok');
  });
});
