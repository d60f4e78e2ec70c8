import { setTimeout as delay } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import {
  answerNode,
  fleetWaitsOrEnds,
  nodeStatus,
  seedFleet,
  startFleet,
} from '../../test/support/edge-flip-fleet';
import { runbookWorld, type RunbookWorld } from '../../test/support/runbook-world';
import { moduleContainers, stepState } from '../../test/support/runbooks';
import { runbookWorkflowId } from '../../workflows/contracts';
import { fleetWorkflowId } from '../../workflows/fleet/contracts';
import { cliEnv, runCli, type CliRun } from './cli';
import type { ExperimentResult, RunResult } from './result';

function check(name: string, notes: string[], extra: Partial<RunResult> = {}): RunResult {
  return { name, passed: notes.length === 0, lost: 0, duplicated: 0, wrongProceeds: 0, notes, ...extra };
}

const oneSentence = (run: CliRun) => run.stderr.trim().split('\n').filter(Boolean).length === 2;

/**
 * Fleet probes that reach another node, through the compiled CLI on the real stack. A fleet of two whose
 * second node's public address is another spelling of the canary's (as one DNS name for every node would
 * be): every probe of the second node is answered by the canary. `start` plans every node and refuses the
 * fleet (exit 2, naming the second node, nothing started); the same fleet started without the CLI (a
 * Temporal client) flips the canary, and the second node's own preflight then ends its runbook refused
 * before anything changes, its predecessor never stopped. The same fleet with one URL for both nodes, and
 * with markers that do not name the node: refused, exit 2, one sentence, nothing started.
 */
export async function crossedProbes(log: (line: string) => void): Promise<ExperimentResult> {
  const started = Date.now();
  const runs: RunResult[] = [];
  await using world = await runbookWorld();
  const input = await seedFleet(world, { count: 2 });
  const [canary, second] = input.runbooks;
  if (!canary || !second) throw new Error('seedFleet seeded fewer than two nodes');
  const pairs = (a: string, b: string) => `${canary.node}=${a},${second.node}=${b}`;
  const alias = `http://[::ffff:127.0.0.1]:${new URL(canary.publicAddress).port}`;
  const fleet = world.client.workflow.getHandle(fleetWorkflowId('route-proxy'));
  const fleetStarted = () =>
    fleet.describe().then(
      () => true,
      () => false,
    );
  const start = (publicAddress: string, markers: [string, string]) =>
    runCli(
      [
        'runbook',
        'start',
        'edge-flip',
        '--nodes',
        `${canary.node},${second.node}`,
        '--module',
        'route-proxy',
        '--predecessor',
        'caddy',
        ...canary.publicNames.flatMap((name) => ['--public-name', name]),
        '--public-address',
        publicAddress,
        '--successor-address',
        pairs(canary.successorAddress, second.successorAddress),
        '--successor-marker',
        markers[0],
        '--predecessor-marker',
        markers[1],
        '--as',
        'alice',
        '--detach',
      ],
      cliEnv(world.taskQueue, world.stateDir),
      120_000,
    );
  const own: [string, string] = ['served by route-proxy on {node}.', 'served by caddy on {node}.'];

  for (const [name, address, markers] of [
    ['one URL for both nodes', canary.publicAddress, own],
    [
      'markers that do not name the node',
      pairs(canary.publicAddress, second.publicAddress),
      ['served by route-proxy', 'served by caddy'],
    ],
  ] as const) {
    const refused = await start(address, [...markers]);
    const notes: string[] = [];
    if (refused.code !== 2 || !oneSentence(refused))
      notes.push(`exit ${refused.code}: ${refused.stderr.slice(0, 200)}`);
    const startedAnyway = await fleetStarted();
    if (startedAnyway) notes.push('the fleet started');
    runs.push(check(`refused: ${name}`, notes, { wrongProceeds: startedAnyway ? 1 : 0 }));
    log(`crossed-probes: ${name}: exit ${refused.code}`);
  }

  const caddy = (await moduleContainers(world.engine, second.node, 'caddy'))[0]?.replace(/^\//, '') ?? '';
  const before = (await world.engine.inspect(caddy))?.State.StartedAt;
  const notes: string[] = [];
  let wrongProceeds = 0;
  let lost = 0;
  try {
    const refused = await start(pairs(canary.publicAddress, alias), own);
    if (refused.code !== 2 || !oneSentence(refused) || !refused.stderr.includes(second.node))
      notes.push(`start: exit ${refused.code}: ${refused.stderr.slice(0, 200)}`);
    if (await fleetStarted()) {
      wrongProceeds = 1;
      notes.push('start refused the fleet but it started');
    }
    const aliased = { ...second, publicAddress: alias };
    await startFleet(world, { ...input, runbooks: [canary, aliased] });
    for (;;) {
      const action = await answerNode(world, fleet, canary.node);
      if (action === 'approve') break;
      if (!['take', 'recheck', 'retry'].includes(action)) throw new Error(`the canary offered ${action}`);
    }
    const paused = await fleetWaitsOrEnds(fleet, 240_000);
    if (paused.waiting?.gate !== second.node) {
      lost = 1;
      notes.push(`the fleet ${paused.phase}, not waiting at ${second.node}: ${paused.outcome ?? ''}`);
    }
    let status = await nodeStatus(world, second.node);
    if (status.waiting?.gate === 'approve-stop-predecessor') {
      // Its evidence says the successor serves: an operator approves, and the predecessor stops.
      await answerNode(world, fleet, second.node);
      await fleetWaitsOrEnds(fleet, 240_000);
      status = await nodeStatus(world, second.node);
    }
    if (status.phase !== 'failed' || stepState(status, 'preflight') !== 'failed')
      notes.push(
        `${runbookWorkflowId(second.node)} is ${status.phase} at ${status.waiting?.gate ?? '-'}, not refused at preflight`,
      );
    if (stepState(status, 'stop-predecessor') !== 'pending' || status.phase === 'completed')
      wrongProceeds = 1;
    const after = await world.engine.inspect(caddy);
    if (after?.State.Running !== true || after.State.StartedAt !== before) {
      wrongProceeds = 1;
      notes.push(`${caddy} was stopped`);
    }
  } finally {
    await endFleet(world, fleet, second.node);
  }
  runs.push(check("the second node's address an alias of the canary's", notes, { wrongProceeds, lost }));
  return { experiment: 'crossed-probes', runs, seconds: (Date.now() - started) / 1000 };
}

/**
 * Cancels the fleet; a node whose rollback waits for the operator (its predecessor stopped and not proven
 * back) keeps it from ending, so after a minute the harness terminates what is left.
 */
async function endFleet(world: RunbookWorld, fleet: WorkflowHandle, node: string): Promise<void> {
  await fleet.cancel().catch(() => undefined);
  const ended = await Promise.race([
    fleet.result().then(
      () => true,
      () => true,
    ),
    delay(60_000).then(() => false),
  ]);
  if (ended) return;
  await fleet.terminate('chaos: crossed-probes cleanup').catch(() => undefined);
  await world.client.workflow
    .getHandle(runbookWorkflowId(node))
    .terminate('chaos: crossed-probes cleanup')
    .catch(() => undefined);
}
