import { setTimeout as delay } from 'node:timers/promises';
import { probePublicNames } from '../../../activities/probes';
import { fleetOrderLine, fleetRulesLine, startEdgeFlipFleet } from '../../../client/start-fleet';
import { seedEdgeFleet } from '../../../mesh/local/scenarios/edge-fleet';
import { edgeFlipFleet } from '../../../workflows';
import { runbookWorkflowId, type RunbookStatus } from '../../../workflows/contracts';
import { fleetWorkflowId, WAVES_GATE, type EdgeFlipFleetInputArg } from '../../../workflows/fleet/contracts';
import { DEFAULT_FLEET_APPROVALS } from '../start/fleet-options';
import { EXIT } from '../../errors';
import { sendDecision } from '../decide/decision';
import { DETACHED, exitForPhase } from '../exit-codes';
import { follow, inOneView, type FollowView } from '../follow/follow';
import { observe } from '../observe';
import { ask, type DemoSession } from './answer';
import { automaticAnswer, say, UNSIGNED_HERE } from './story';

const MODULE = 'route-proxy';

/** The fleet demo's nodes: the canary and two plain nodes around the held one (novox, or --node's name). */
export function fleetDemoNodes(held: string): string[] {
  const plain = (n: number) => (held === 'novox' ? `edge${n}` : `${held}-${n}`);
  return [plain(1), plain(2), held, plain(4)];
}

/**
 * Seeds four adopted nodes running caddy, the held one with route-proxy's leftovers, and starts one fleet
 * runbook that flips them to route-proxy one at a time, the first as the canary, under the CLI's default
 * approvals: the canary's, then one for the later nodes; the held node asks its own.
 */
export async function startFleetDemo(
  session: DemoSession,
  nodes: string[],
  port: (preferred: number) => Promise<number>,
): Promise<EdgeFlipFleetInputArg> {
  const held = nodes[2] ?? '';
  say(`seeding ${nodes.length} adopted nodes (${nodes.join(', ')}), caddy serving the public names on each`);
  say(
    `on ${held} a rolled-back first attempt left /var/lib/route-proxy/{www,ca,dns}, and route-proxy is not taken`,
  );
  const seeds = [];
  for (const [i, node] of nodes.entries())
    seeds.push({
      node,
      publicPort: await port(18080 + 10 * i),
      stagingPort: await port(18081 + 10 * i),
      leftovers: node === held,
    });
  const seeded = await seedEdgeFleet(session.mesh, { predecessor: 'caddy', successor: MODULE, nodes: seeds });
  const input: EdgeFlipFleetInputArg = {
    module: MODULE,
    runbooks: seeded.map((s) => ({ ...s, module: MODULE, predecessor: 'caddy', startedBy: 'demo' })),
    waveSize: 1,
    approvals: DEFAULT_FLEET_APPROVALS,
    startedBy: 'demo',
  };
  await startEdgeFlipFleet(session.rb.client, edgeFlipFleet, input, { taskQueue: session.rb.taskQueue });
  say(`started ${fleetWorkflowId(MODULE)}: edge-flip fleet, ${fleetOrderLine(input)}`);
  say(`rules: ${fleetRulesLine(input)}`);
  say(UNSIGNED_HERE);
  say(
    `${DEFAULT_FLEET_APPROVALS} is the default: a clean fleet of any size needs two approvals, and a node that is not clean (${held}) still stops for its own`,
  );
  return input;
}

/**
 * Follows the fleet to its end. Where the fleet waits because a node waits, the node is decided on itself
 * (`--yes` answers as the single demo does, a terminal asks); the fleet goes on when the node does.
 */
export function followFleet(session: DemoSession, input: EdgeFlipFleetInputArg): Promise<void> {
  return inOneView((view) => followFleetIn(view, session, input));
}

/** One view of the fleet across every gate: after a decision it shows what came since. */
async function followFleetIn(
  view: FollowView,
  session: DemoSession,
  input: EdgeFlipFleetInputArg,
): Promise<void> {
  const id = fleetWorkflowId(input.module);
  for (;;) {
    const end = await follow(session.rb, id, { stopWhenWaiting: true, quiet: false, view });
    if (end.how === 'detached') return stop(DETACHED, `stopped; ${id} keeps its place`);
    const waiting = end.status?.waiting;
    if (end.how === 'ended' || !waiting) {
      if (end.status) await finale(input);
      process.exitCode = end.status ? exitForPhase(end.status.phase) : DETACHED;
      return;
    }
    const node = waiting.gate;
    const own = node === WAVES_GATE ? undefined : (await observe(session.rb, runbookWorkflowId(node))).status;
    // The fleet itself waits (its waves' approval, a node failed or rolled back): the fleet decides.
    const target = own?.waiting ? runbookWorkflowId(node) : id;
    const at = own?.waiting ?? waiting;
    if (!session.yes && !process.stdin.isTTY)
      return stop(
        EXIT.waiting,
        `not a terminal and no --yes: the demo stops here; ${target} waits at ${at.gate} (mesh runbook decide ${target} <action>)`,
      );
    const action = session.yes ? automaticAnswer(at) : await ask(at);
    if (action === undefined) return stop(DETACHED, `stopped; ${target} waits at ${at.gate}`);
    if (session.yes) say(`demo --yes decides on ${target} at ${at.gate}: ${action}`);
    await sendDecision(
      session.rb,
      target,
      { gate: at.gate, action, by: session.yes ? 'demo --yes' : 'demo operator' },
      'recorded',
    );
    await untilFleetMoves(session, id, end.status);
  }
}

/** The fleet notices a node moving on from its own report; waits for that before following again. */
async function untilFleetMoves(session: DemoSession, id: string, before: RunbookStatus | undefined) {
  for (let tries = 0; tries < 60; tries++) {
    const now = (await observe(session.rb, id)).status;
    if (!now || now.waiting?.since !== before?.waiting?.since) return;
    await delay(500);
  }
}

async function finale(input: EdgeFlipFleetInputArg): Promise<void> {
  for (const runbook of input.runbooks) {
    const results = await probePublicNames({
      address: runbook.publicAddress,
      names: runbook.publicNames.slice(0, 1),
      expectStatus: 200,
      marker: runbook.successorMarker,
      timeoutMs: 3_000,
    });
    for (const result of results)
      say(
        `${runbook.node}: ${result.name} on ${runbook.publicAddress}: ${result.error ?? `status ${result.status}${result.markerFound ? `, ${runbook.successorMarker}` : ', not by the successor'}`}`,
      );
  }
}

function stop(exitCode: number, why: string): void {
  say(`${why}.`);
  process.exitCode = exitCode;
}
