import type { Client } from '@temporalio/client';
import { edgeFlipArgs, seedEdgeFlip } from '../../test/support/edge-flip-seed';
import { runbookWorld } from '../../test/support/runbook-world';
import type { EdgeFlipInputArg } from '../../workflows/contracts';
import { runbookWorkflowId } from '../../workflows/contracts';
import { cliEnv, runCli } from './cli';
import type { ChaosEnv } from './chaos-env';
import type { ExperimentResult, RunResult } from './result';

/** `mesh runbook start edge-flip` for a seeded node, detached, as an operator would type it. */
const startArgs = (input: EdgeFlipInputArg, as: string) => [
  'runbook',
  'start',
  ...edgeFlipArgs(input),
  '--as',
  as,
  '--detach',
];

async function executions(client: Client, node: string): Promise<number> {
  let count = 0;
  for await (const _ of client.workflow.list({ query: `WorkflowId = '${runbookWorkflowId(node)}'` })) count++;
  return count;
}

/**
 * Experiment 7: several CLI processes start a runbook on the same node at the same moment (each a separate
 * `mesh runbook start`, as operators in different terminals would): exactly one starts; every other one
 * says so in one sentence and exits 2; the server holds exactly one execution for the node.
 */
export async function concurrentStarts(
  env: ChaosEnv,
  quick: boolean,
  log: (line: string) => void,
): Promise<ExperimentResult> {
  const started = Date.now();
  const client = await env.client();
  const runs: RunResult[] = [];
  await using world = await runbookWorld({ worker: 'none' });
  const cli = cliEnv(world.taskQueue, world.stateDir);
  const rounds = quick ? 1 : 4;
  const starters = quick ? 4 : 6;
  for (let round = 0; round < rounds; round++) {
    const input = await seedEdgeFlip(world);
    const answers = await Promise.all(
      Array.from({ length: starters }, (_, i) => runCli(startArgs(input, `operator${i}`), cli, 120_000)),
    );
    // The server's visibility store is eventually consistent: give it a moment before counting.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const count = await executions(client, input.node);
    const accepted = answers.filter((a) => a.code === 0).length;
    const refused = answers.filter((a) => a.code === 2 && a.stderr.trim().split('\n').length <= 3).length;
    const notes: string[] = [];
    if (count !== 1) notes.push(`${count} executions on the server`);
    if (accepted !== 1) notes.push(`${accepted} starts said they started`);
    if (refused !== starters - 1)
      notes.push(
        `the others: ${answers
          .filter((a) => a.code !== 0)
          .map((a) => `exit ${a.code} ${a.stderr.trim().split('\n')[0]?.slice(0, 120)}`)
          .join(' | ')}`,
      );
    runs.push({
      name: `${starters} starts at once on ${input.node}`,
      passed: notes.length === 0,
      lost: 0,
      duplicated: Math.max(0, count - 1),
      wrongProceeds: 0,
      notes,
    });
    log(
      `  ${starters} starts at once: ${accepted} started, ${refused} refused, ${count} on the server${notes.length ? ` (${notes.join('; ')})` : ''}`,
    );
    await client.workflow
      .getHandle(runbookWorkflowId(input.node))
      .terminate('chaos: concurrent starts counted')
      .catch(() => undefined);
  }
  return { experiment: 'concurrent starts', runs, seconds: (Date.now() - started) / 1000 };
}
