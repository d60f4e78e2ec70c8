import { rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { z } from 'zod';
import { probePublicNames } from '../../activities/probes';
import { LocalMesh } from '../../mesh/local';
import { seedEdgeScenario } from '../../mesh/local/scenarios/edge-flip-incident';
import { findTemporalCli } from '../../worker/temporal-binary';
import { freeLocalPort } from '../../worker/ports';
import { portInUse } from '../../worker/dev-server';
import { startDev } from './demo-dev';
import { runbookWorkflowId, type EdgeFlipInputArg, type Waiting } from '../../workflows/contracts';
import { removeNodeContainers } from '../../docker/cleanup';
import { UsageError } from '../errors';
import { colour, printLine } from '../output';
import { withClient, type RunbookClient } from './client';
import { sendDecision } from './decision';
import { exitForPhase } from './exit-codes';
import { follow } from './follow';
import { parseOptions } from './options';

const Input = z.object({
  yes: z.boolean().default(false),
  stateDir: z
    .string()
    .min(1)
    .default(join(homedir(), '.local', 'state', 'mesh', 'demo')),
  node: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]*$/)
    .default('novox'),
  keepRunning: z.boolean().default(false),
});
type Input = z.infer<typeof Input>;

const IP = '127.0.0.1';
const DEMO_TASK_QUEUE = 'mesh-runbook-demo';
/** What `--yes` answers at each kind of wait; anything else is a real problem and the demo aborts. */
const AUTOMATIC: Record<string, string> = { held: 'take', approval: 'approve' };

export function registerDemo(runbook: Command): void {
  runbook
    .command('demo')
    .description(
      'replay the novox incident on a local Temporal dev server and local Docker, as an edge flip that waits',
    )
    .option('--yes', 'answer each gate itself (take at the hold, approve the stop), printing every decision')
    .option(
      '--state-dir <dir>',
      'where the demo keeps its server database and local mesh (default ~/.local/state/mesh/demo)',
    )
    .option('--node <name>', 'the demo node (default novox)')
    .option('--keep-running', 'keep the server, worker and Web UI up after the demo, until Ctrl-C')
    .action(async (options: object) => {
      const input = parseOptions(Input, { ...options });
      if (!findTemporalCli()) {
        throw new UsageError(
          'No Temporal CLI found to run the demo with.',
          'Run ./scripts/bootstrap.sh first.',
        );
      }
      await runDemo(input);
    });
}

async function runDemo(input: Input): Promise<void> {
  const stateDir = resolve(input.stateDir);
  await removeNodeContainers([input.node]);
  await rm(stateDir, { recursive: true, force: true });
  const [port, uiPort] = [await portOr(7233), await portOr(8233)];
  const localState = join(stateDir, 'local');
  say(
    `starting \`mesh runbook dev\`: a Temporal dev server (Web UI on http://${IP}:${uiPort}) and a worker…`,
  );
  const dev = await startDev({ stateDir, localState, port, uiPort });
  try {
    const mesh = new LocalMesh({ stateDir: localState });
    const [publicPort, stagingPort] = [await portOr(18080), await portOr(18081)];
    say(
      `seeding adopted node ${input.node}: caddy serves the public names on ${IP}:${publicPort}; route-proxy (3 containers) is defined;`,
    );
    say(
      'a rolled-back first attempt left /var/lib/route-proxy/{www,ca,dns} on disk, and route-proxy is not taken',
    );
    const seeded = await seedEdgeScenario(mesh, {
      node: input.node,
      predecessor: 'caddy',
      successor: 'route-proxy',
      publicPort,
      stagingPort,
      leftovers: true,
    });
    const flip: EdgeFlipInputArg = {
      node: input.node,
      module: 'route-proxy',
      predecessor: 'caddy',
      ...seeded,
      startedBy: 'demo',
    };
    process.env.TEMPORAL_ADDRESS = dev.address;
    process.env.MESH_TASK_QUEUE = DEMO_TASK_QUEUE;
    await withClient((rb) => flipAndDecide(rb, flip, input), { operator: 'demo' });
    if (input.keepRunning && dev.running()) {
      say(`the demo is over; the Web UI stays at ${dev.uiUrl} until Ctrl-C`);
      await dev.exited;
    }
  } finally {
    await dev.stop();
  }
}

async function flipAndDecide(rb: RunbookClient, flip: EdgeFlipInputArg, input: Input): Promise<void> {
  const id = runbookWorkflowId(flip.node);
  await rb.client.workflow.start('edgeFlip', {
    workflowId: id,
    taskQueue: rb.taskQueue,
    args: [flip],
    staticSummary: `edge-flip ${flip.module} on ${flip.node} (demo)`,
  });
  say(`started ${id}: edge-flip of ${flip.node} from caddy to route-proxy`);
  for (;;) {
    const end = await follow(rb, id, { stopWhenWaiting: true, quiet: false });
    if (end.how !== 'waiting' || !end.status?.waiting) {
      if (end.status) await showPublicNames(flip);
      process.exitCode = end.status ? exitForPhase(end.status.phase) : 130;
      return;
    }
    const action = await choose(end.status.waiting, input.yes);
    if (action === undefined) return;
    await sendDecision(
      rb,
      id,
      { gate: end.status.waiting.gate, action, by: input.yes ? 'demo --yes' : 'demo operator' },
      false,
    );
  }
}

async function choose(waiting: Waiting, yes: boolean): Promise<string | undefined> {
  if (yes) {
    const action = AUTOMATIC[waiting.verdict] ?? 'abort';
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

async function showPublicNames(flip: EdgeFlipInputArg): Promise<void> {
  const marker = flip.successorMarker ?? flip.module;
  const results = await probePublicNames({
    address: flip.publicAddress,
    names: flip.publicNames,
    expectStatus: 200,
    marker,
    timeoutMs: 3_000,
  });
  for (const result of results) {
    const answer =
      result.error ??
      `status ${result.status}${result.markerFound ? `, ${marker}` : ', not by the successor'}`;
    say(`${result.name} on ${flip.publicAddress}: ${answer}`);
  }
}

async function portOr(preferred: number): Promise<number> {
  return (await portInUse(IP, preferred)) ? freeLocalPort() : preferred;
}

function say(line: string): void {
  printLine(colour.cyan(`demo: ${line}`));
}
