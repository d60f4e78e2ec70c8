import { rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { z } from 'zod';
import { removeNodeContainers } from '../../../docker/cleanup';
import { LocalMesh } from '../../../mesh/local';
import { portInUse } from '../../../worker/dev-server';
import { freeLocalPort } from '../../../worker/ports';
import { findTemporalCli } from '../../../worker/temporal-binary';
import { runbookWorkflowId, type Waiting } from '../../../workflows/contracts';
import { UsageError } from '../../errors';
import { withClient, type RunbookClient } from '../client';
import { dataPathMoveDemo } from './data-path-move';
import { startDev } from './dev';
import { edgeFlipDemo } from './edge-flip';
import { automaticAnswer, say, type DemoStory } from './story';
import { sendDecision } from '../decide/decision';
import { exitForPhase } from '../exit-codes';
import { follow } from '../follow/follow';
import { parseOptions } from '../options';

const STORIES: Record<string, DemoStory> = { 'edge-flip': edgeFlipDemo, 'data-path-move': dataPathMoveDemo };

const Input = z.object({
  yes: z.boolean().default(false),
  stateDir: z
    .string()
    .min(1)
    .default(join(homedir(), '.local', 'state', 'mesh', 'demo')),
  node: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes')
    .optional(),
  keepRunning: z.boolean().default(false),
});
type Input = z.infer<typeof Input>;

const IP = '127.0.0.1';
const DEMO_TASK_QUEUE = 'mesh-runbook-demo';

export function registerDemo(runbook: Command): void {
  runbook
    .command('demo')
    .description(
      'replay an incident as a runbook that waits, on a local Temporal dev server and local Docker',
    )
    .argument(
      '[kind]',
      `edge-flip (the novox incident, default) or data-path-move (the forge incident)`,
      'edge-flip',
    )
    .option('--yes', 'answer each gate itself (take, recreate, approve), printing every decision')
    .option(
      '--state-dir <dir>',
      'where the demo keeps its server database and local mesh (default ~/.local/state/mesh/demo)',
    )
    .option('--node <name>', 'the demo node (default novox, or forge1 for data-path-move)')
    .option('--keep-running', 'keep the server, worker and Web UI up after the demo, until Ctrl-C')
    .action(async (kind: string, options: object) => {
      const input = parseOptions(Input, { ...options });
      const story = STORIES[kind];
      if (!story)
        throw new UsageError(
          `There is no ${kind} demo.`,
          'Run `mesh runbook demo edge-flip` or `mesh runbook demo data-path-move`.',
        );
      if (!findTemporalCli())
        throw new UsageError(
          'No Temporal CLI found to run the demo with.',
          'Run ./scripts/bootstrap.sh first.',
        );
      await runDemo(story, input);
    });
}

async function runDemo(story: DemoStory, input: Input): Promise<void> {
  const node = input.node ?? story.defaultNode;
  const stateDir = resolve(input.stateDir);
  await removeNodeContainers([node]);
  await rm(stateDir, { recursive: true, force: true });
  const [port, uiPort] = [await portOr(7233), await portOr(8233)];
  const localState = join(stateDir, 'local');
  say(
    `starting \`mesh runbook dev\`: a Temporal dev server (Web UI on http://${IP}:${uiPort}) and a worker…`,
  );
  const dev = await startDev({ stateDir, localState, port, uiPort, taskQueue: DEMO_TASK_QUEUE });
  try {
    const mesh = new LocalMesh({ stateDir: localState });
    const runbookInput = await story.seed(mesh, node, portOr);
    process.env.TEMPORAL_ADDRESS = dev.address;
    process.env.MESH_TASK_QUEUE = DEMO_TASK_QUEUE;
    await withClient((rb) => runAndDecide(rb, story, mesh, node, runbookInput, input.yes), {
      operator: 'demo',
    });
    if (input.keepRunning && dev.running()) {
      say(`the demo is over; the Web UI stays at ${dev.uiUrl} until Ctrl-C`);
      await dev.exited;
    }
  } finally {
    await dev.stop();
  }
}

async function runAndDecide(
  rb: RunbookClient,
  story: DemoStory,
  mesh: LocalMesh,
  node: string,
  input: unknown,
  yes: boolean,
) {
  const id = runbookWorkflowId(node);
  await rb.client.workflow.start(story.workflowType, {
    workflowId: id,
    taskQueue: rb.taskQueue,
    args: [input as never],
    staticSummary: `${story.kind} on ${node} (demo)`,
  });
  say(`started ${id}: ${story.kind} on ${node}`);
  for (;;) {
    const end = await follow(rb, id, { stopWhenWaiting: true, quiet: false });
    const waiting = end.status?.waiting;
    if (end.how !== 'waiting' || !waiting) {
      if (end.status) await story.finale(mesh);
      process.exitCode = end.status ? exitForPhase(end.status.phase) : 130;
      return;
    }
    await story.atWait?.(mesh, waiting);
    const action = await choose(waiting, yes);
    if (action === undefined) return;
    await sendDecision(
      rb,
      id,
      { gate: waiting.gate, action, by: yes ? 'demo --yes' : 'demo operator' },
      false,
    );
  }
}

async function choose(waiting: Waiting, yes: boolean): Promise<string | undefined> {
  if (yes) {
    const action = automaticAnswer(waiting);
    say(`demo --yes decides at ${waiting.gate}: ${action}`);
    return action;
  }
  if (!process.stdin.isTTY) {
    say(
      'not a terminal and no --yes: decide with the commands above or in the Web UI, then run `mesh runbook watch`',
    );
    return undefined;
  }
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  try {
    for (;;) {
      const answer = (
        await prompt.question(`decide at ${waiting.gate} [${waiting.actions.join('/')}]: `)
      ).trim();
      if (waiting.actions.includes(answer)) return answer;
      say(`${answer || '(nothing)'} is not one of ${waiting.actions.join(', ')}`);
    }
  } finally {
    prompt.close();
  }
}

async function portOr(preferred: number): Promise<number> {
  return (await portInUse(IP, preferred)) ? freeLocalPort() : preferred;
}
