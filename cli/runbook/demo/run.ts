import { join, resolve } from 'node:path';
import { LocalMesh } from '../../../mesh/local';
import { portInUse } from '../../../worker/dev-server';
import { freeLocalPort } from '../../../worker/ports';
import { runbookWorkflowId } from '../../../workflows/contracts';
import { UsageError } from '../../errors';
import { shellWord } from '../../output';
import { withClient } from '../client';
import { operatorKind } from '../operator-kinds';
import { followAndDecide, type DemoSession } from './answer';
import { startDev } from './dev';
import { showDemoPlan } from './plan';
import { readDemoRecord, writeDemoRecord } from './record';
import { resetDemoState } from './reset';
import { DEMO_STATE_DIR, type DemoKind, type DemoSettings } from './settings';
import { demoContainers, leftBehindLines, resetCommand } from './left-behind';
import { say, UNSIGNED_HERE, type DemoStory } from './story';
import { fleetDemoNodes, followFleet, startFleetDemo } from './fleet';

/** The demo story of a kind (cli/runbook/operator-kinds); `fleet` has its own run. */
function storyOf(kind: DemoKind): DemoStory {
  const story = operatorKind(kind)?.demo?.();
  if (!story)
    throw new UsageError(`There is no demo of ${kind}.`, 'See the demos with `mesh runbook demo --help`.');
  return story;
}

const IP = '127.0.0.1';
const DEMO_TASK_QUEUE = 'mesh-runbook-demo';

/** A fresh demo: its state reset, `mesh runbook dev` on it, the incident seeded, its runbook started. */
export async function runDemo(settings: DemoSettings): Promise<void> {
  if (settings.kind === 'fleet') return runFleetDemo(settings);
  const story = storyOf(settings.kind ?? 'edge-flip');
  const stateDir = resolve(settings.stateDir);
  const node = settings.node ?? story.defaultNode;
  await resetDemoState(stateDir, localStateOf(stateDir), node);
  await onDemoServer(stateDir, settings, false, async (session) => {
    const runbook = await story.seed(session.mesh, node, portOr);
    await showDemoPlan(session.mesh, story.kind, runbook.input, stateDir);
    await runbook.start(session.rb.client, session.rb.taskQueue);
    await writeDemoRecord(stateDir, { kind: story.kind, input: runbook.input });
    say(`started ${runbookWorkflowId(node)}: ${story.kind} on ${node}`);
    say(UNSIGNED_HERE);
    await followAndDecide(session, runbook);
  });
}

/** Four nodes flipped by one fleet runbook, the held node in the middle; the nodes decided on themselves. */
async function runFleetDemo(settings: DemoSettings): Promise<void> {
  const stateDir = resolve(settings.stateDir);
  const nodes = fleetDemoNodes(settings.node ?? 'novox');
  await resetDemoState(stateDir, localStateOf(stateDir), ...nodes);
  await onDemoServer(stateDir, settings, false, async (session) => {
    await followFleet(session, await startFleetDemo(session, nodes, portOr));
  });
}

/** `--resume`: the demo's runbook where it stands, on the same state, server database and task queue. */
export async function resumeDemo(settings: DemoSettings): Promise<void> {
  if (settings.kind === 'fleet')
    throw new UsageError(
      'The fleet demo cannot be resumed; its fleet runbook goes on in `mesh runbook dev` with --keep-running.',
      'Run `mesh runbook demo fleet --yes` again (it starts afresh), or follow the fleet with `mesh runbook watch fleet-route-proxy`.',
    );
  const stateDir = resolve(settings.stateDir);
  const record = await readDemoRecord(stateDir);
  const runbook = storyOf(record.kind).reopen(record.input);
  const asked = [settings.kind ?? record.kind, settings.node ?? runbook.node];
  if (asked[0] !== record.kind || asked[1] !== runbook.node) {
    throw new UsageError(
      `The demo in ${stateDir} is ${record.kind} on ${runbook.node}, not ${asked.join(' on ')}.`,
      'Leave out the kind and --node with --resume, or start a new demo without --resume.',
    );
  }
  await onDemoServer(stateDir, settings, true, async (session) => {
    say(`resuming ${runbookWorkflowId(runbook.node)}: ${record.kind} on ${runbook.node}`);
    await followAndDecide(session, runbook);
  });
}

/** Runs `mesh runbook dev` on the demo's state for as long as `play` takes (or, with --keep-running, longer). */
async function onDemoServer(
  stateDir: string,
  settings: DemoSettings,
  resumed: boolean,
  play: (session: DemoSession) => Promise<void>,
): Promise<void> {
  const port = settings.port ?? (await portOr(7233));
  const uiPort = settings.uiPort ?? (await portOr(8233));
  const resumeWith = resumeCommand(stateDir, settings);
  say(
    `starting \`mesh runbook dev\`: a Temporal dev server (Web UI on http://${IP}:${uiPort}) and a worker…`,
  );
  const dev = await startDev({
    stateDir,
    localState: localStateOf(stateDir),
    port,
    uiPort,
    taskQueue: DEMO_TASK_QUEUE,
    resumeWith,
  });
  try {
    process.env.TEMPORAL_ADDRESS = dev.address;
    process.env.MESH_TASK_QUEUE = DEMO_TASK_QUEUE;
    const mesh = new LocalMesh({ stateDir: localStateOf(stateDir) });
    await withClient((rb) => play({ rb, mesh, dev, yes: settings.yes, resumed, resumeWith }), {
      operator: 'demo',
    });
    if (settings.keepRunning && dev.running()) {
      say(`the demo is over; the Web UI stays at ${dev.uiUrl} until Ctrl-C`);
      await dev.exited;
    }
  } finally {
    await dev.stop();
    await sayWhatIsLeft(stateDir);
  }
}

/** The demo's last word: what it leaves running and the command that removes it. */
async function sayWhatIsLeft(stateDir: string): Promise<void> {
  const containers = await demoContainers(localStateOf(stateDir)).catch(() => undefined);
  if (containers === undefined) return say(`remove what the demo left with \`${resetCommand(stateDir)}\``);
  for (const line of leftBehindLines(stateDir, containers)) say(line);
}

/** `--reset`: removes what a demo left (its nodes' containers, its state directory); starts nothing. */
export async function resetDemo(settings: DemoSettings): Promise<void> {
  const stateDir = resolve(settings.stateDir);
  const containers = await demoContainers(localStateOf(stateDir));
  await resetDemoState(stateDir, localStateOf(stateDir));
  const nodes = [...new Set(containers.map((c) => c.node))];
  say(
    `removed ${containers.length} container(s)${nodes.length > 0 ? ` of ${nodes.join(', ')}` : ''} and ${stateDir}`,
  );
}

const localStateOf = (stateDir: string) => join(stateDir, 'local');

/** The command that carries on with this demo's runbook: its state dir and ports, where not the defaults. */
export function resumeCommand(stateDir: string, settings: DemoSettings): string {
  return [
    'mesh runbook demo --resume',
    ...(stateDir !== resolve(DEMO_STATE_DIR) ? ['--state-dir', shellWord(stateDir)] : []),
    ...(settings.port !== undefined ? ['--port', String(settings.port)] : []),
    ...(settings.uiPort !== undefined ? ['--ui-port', String(settings.uiPort)] : []),
  ].join(' ');
}

async function portOr(preferred: number): Promise<number> {
  return (await portInUse(IP, preferred)) ? freeLocalPort() : preferred;
}
