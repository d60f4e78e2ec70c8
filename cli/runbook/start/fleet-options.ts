import { NAME_PATTERN } from '../../../mesh/schemas';
import type { EdgeFlipInput } from '../../../workflows/contracts';
import {
  FLEET_APPROVALS,
  FLEET_HISTORY_BOUND,
  mostAtOnce,
  type EdgeFlipFleetInputArg,
  type FleetApprovals,
} from '../../../workflows/fleet/contracts';
import { UsageError } from '../../errors';
import { edgeFlipInputFrom, type EdgeFlipOptions } from './edge-flip-input';
import { refuseOversizedFleet } from './fleet-size';

/** The fleet options of `start edge-flip`, as commander hands them over. */
export interface FleetOptions {
  nodes?: string | undefined;
  allNodesWith?: string | undefined;
  canary?: string | undefined;
  waveSize?: string | undefined;
  approvals?: string | undefined;
  maxFailures?: string | undefined;
  maxParallel?: string | undefined;
  historyBound?: string | undefined;
}

/** Whether the options ask for a fleet rather than one node. */
export function asksForFleet(options: FleetOptions): boolean {
  return [
    options.nodes,
    options.allNodesWith,
    options.canary,
    options.waveSize,
    options.approvals,
    options.maxFailures,
    options.maxParallel,
    options.historyBound,
  ].some((o) => o !== undefined);
}

/** `--nodes a,b,c` as a list: every name valid, none empty, none twice. */
export function nodeListOption(given: string): string[] {
  const nodes = given.split(',').map((n) => n.trim());
  if (nodes.length === 0 || nodes.some((n) => n === ''))
    throw new UsageError(
      `--nodes "${given}" has an empty name; give the node names separated by commas.`,
      'For example --nodes edge1,novox,edge3.',
    );
  const bad = nodes.find((n) => !NAME_PATTERN.test(n));
  if (bad !== undefined)
    throw new UsageError(
      `--nodes names "${bad}", which is not a node name (lower-case letters, digits and dashes).`,
      'For example --nodes edge1,novox,edge3.',
    );
  const twice = nodes.find((n, i) => nodes.indexOf(n) !== i);
  if (twice !== undefined)
    throw new UsageError(`--nodes names ${twice} twice; each node flips once.`, 'Name each node once.');
  return nodes;
}

/** The nodes in the order they run: `--canary` first (else the first named), the others as named. */
export function fleetOrder(nodes: string[], canary: string | undefined): string[] {
  if (canary === undefined) return nodes;
  if (!nodes.includes(canary))
    throw new UsageError(
      `--canary ${canary} is not one of the fleet's nodes (${nodes.join(', ')}).`,
      `Name one of them, e.g. --canary ${nodes[0] ?? '<node>'}, or leave --canary out: the first node is the canary.`,
    );
  return [canary, ...nodes.filter((n) => n !== canary)];
}

export function waveSizeOption(given: string | undefined): number {
  if (given === undefined) return 1;
  return countOption(
    '--wave-size',
    given,
    1,
    'For example --wave-size 2 (the canary always runs alone first).',
  );
}

/** The CLI's default: two approvals for a clean fleet (the canary's, then the waves'), four eyes on both. */
export const DEFAULT_FLEET_APPROVALS: FleetApprovals = 'canary-then-waves';

export function approvalsOption(given: string | undefined): FleetApprovals {
  if (given === undefined) return DEFAULT_FLEET_APPROVALS;
  const known = FLEET_APPROVALS.find((policy) => policy === given);
  if (known === undefined)
    throw new UsageError(
      `--approvals "${given}" is not a fleet approval policy; the policies are ${FLEET_APPROVALS.join(', ')}.`,
      `For example --approvals ${DEFAULT_FLEET_APPROVALS} (the default), or each-node for one approval per node.`,
    );
  return known;
}

/** `--max-failures N`: how many later nodes may fail or roll back before the fleet pauses (default 0). */
export function maxFailuresOption(given: string | undefined): number | undefined {
  if (given === undefined) return undefined;
  return countOption(
    '--max-failures',
    given,
    0,
    'For example --max-failures 2 (the third bad end pauses the fleet).',
  );
}

/** `--max-parallel N`: at most this many of a wave's nodes run at once (default: the whole wave). */
export function maxParallelOption(given: string | undefined): number | undefined {
  if (given === undefined) return undefined;
  return countOption('--max-parallel', given, 1, 'For example --wave-size 10 --max-parallel 3.');
}

function countOption(flag: string, given: string, least: number, example: string, of = 'nodes'): number {
  const count = Number(given);
  if (!/^\d+$/.test(given) || !Number.isSafeInteger(count) || count < least)
    throw new UsageError(
      `${flag} "${given}" is invalid: it must be a whole number of ${of}, at least ${least}.`,
      example,
    );
  return count;
}

/** How a fleet runs its nodes after the canary, as the options give it. */
export type FleetRules = Pick<
  EdgeFlipFleetInputArg,
  'waveSize' | 'approvals' | 'maxFailures' | 'maxParallel' | 'historyBound'
>;

export function fleetRulesOption(options: FleetOptions): FleetRules {
  const maxFailures = maxFailuresOption(options.maxFailures);
  const maxParallel = maxParallelOption(options.maxParallel);
  const waveSize = waveSizeOption(options.waveSize);
  const historyBound = historyBoundOption(options.historyBound);
  refuseTooManyAtOnce(waveSize, maxParallel, historyBound);
  return {
    waveSize,
    approvals: approvalsOption(options.approvals),
    ...(maxFailures !== undefined ? { maxFailures } : {}),
    ...(maxParallel !== undefined ? { maxParallel } : {}),
    ...(historyBound !== undefined ? { historyBound } : {}),
  };
}

/** `--history-bound N`: history events one run of the fleet stays under (default FLEET_HISTORY_BOUND). */
export function historyBoundOption(given: string | undefined): number | undefined {
  if (given === undefined) return undefined;
  return countOption(
    '--history-bound',
    given,
    100,
    `For example --history-bound ${FLEET_HISTORY_BOUND} (the default).`,
    'events',
  );
}

/** More nodes at once than a fleet run's history has room for after its bound's first half (history-bound.ts). */
function refuseTooManyAtOnce(
  waveSize: number,
  maxParallel: number | undefined,
  bound = FLEET_HISTORY_BOUND,
): void {
  const atOnce = Math.min(waveSize, maxParallel ?? waveSize);
  const most = mostAtOnce(bound);
  if (atOnce <= most) return;
  throw new UsageError(
    `--wave-size ${waveSize} runs ${atOnce} nodes at once, more than the ${most} a fleet's history bound (${bound} events per run) leaves room for.`,
    `Keep the wave and add --max-parallel ${most}, or give --wave-size ${most} or less.`,
  );
}

/**
 * A node's address from an address option: one URL for every node, where `{node}` stands for the node's
 * name (`http://{node}.example.net:80`), or `node=url` pairs separated by commas, one for each node.
 */
export function addressFor(flag: string, given: string, node: string, nodes: string[]): string {
  if (!/^[a-z0-9-]+=/.test(given)) return given.replaceAll('{node}', node);
  const pairs = new Map(
    given.split(',').map((pair) => {
      const at = pair.indexOf('=');
      return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()] as const;
    }),
  );
  const unknown = [...pairs.keys()].find((n) => !nodes.includes(n));
  if (unknown !== undefined)
    throw new UsageError(
      `${flag} gives an address for ${unknown}, which is not one of the fleet's nodes (${nodes.join(', ')}).`,
      `Give one node=url pair for each of ${nodes.join(', ')}.`,
    );
  const address = pairs.get(node);
  if (address === undefined)
    throw new UsageError(
      `${flag} gives no address for ${node}.`,
      `Add ${node}=<url> to it, or give one URL with {node} in it for every node.`,
    );
  return address;
}

/**
 * The fleet's input: each node's edge-flip input (validated as a single start's would be), in order.
 * Refused before anything starts: two nodes probed at one URL, and probes that could not tell which node
 * answered (no `{node}` in a marker and no `--node-header`), since then, once one node has flipped, every
 * later node's probes could be answered by it and pass while the later node itself is dark.
 */
export function fleetInputFrom(
  options: Omit<EdgeFlipOptions, 'node'>,
  order: string[],
  rules: FleetRules,
  startedBy: string,
): EdgeFlipFleetInputArg & { runbooks: EdgeFlipInput[] } {
  const runbooks = order.map((node) =>
    edgeFlipInputFrom(
      {
        ...options,
        node,
        publicAddress: addressFor('--public-address', options.publicAddress, node, order),
        successorAddress: addressFor('--successor-address', options.successorAddress, node, order),
      },
      startedBy,
    ),
  );
  refuseSharedAddresses(runbooks);
  refuseOversizedFleet({ runbooks });
  if (options.nodeHeader === undefined) {
    refuseMarkerWithoutNode(
      '--successor-marker',
      options.successorMarker,
      runbooks,
      (r) => r.successorMarker,
    );
    refuseMarkerWithoutNode(
      '--predecessor-marker',
      options.predecessorMarker,
      runbooks,
      (r) => r.predecessorMarker,
    );
  }
  return { module: options.module, runbooks, ...rules, startedBy };
}

/** An address as a probe reaches it: `HTTP://127.1:80` and `http://127.0.0.1` are one URL. */
function sameUrl(address: string): string {
  return new URL(address).origin;
}

/** Two nodes (or one node's public and another's successor address) probed at one URL: one sentence. */
function refuseSharedAddresses(runbooks: EdgeFlipInput[]): void {
  const flags = [
    ['--public-address', (r: EdgeFlipInput) => r.publicAddress],
    ['--successor-address', (r: EdgeFlipInput) => r.successorAddress],
  ] as const;
  const seen = new Map<string, { flag: string; node: string }>();
  const suggestion =
    'Give each node its own: put {node} in the URL (http://{node}.example.net:80), or one node=url pair per node.';
  for (const [flag, address] of flags)
    for (const runbook of runbooks) {
      const url = sameUrl(address(runbook));
      const first = seen.get(url);
      if (first === undefined) {
        seen.set(url, { flag, node: runbook.node });
        continue;
      }
      const { node } = runbook;
      if (first.node === node) continue; // one node's own two addresses: the input schema judges those
      throw new UsageError(
        first.flag === flag
          ? `${flag} gives ${first.node} and ${node} the same URL, ${url} (after ${first.node} flips, the probes of ${node} would reach ${first.node} and pass).`
          : `${first.flag} of ${first.node} and ${flag} of ${node} are the same URL, ${url} (the probes of one node would reach the other and pass).`,
        suggestion,
      );
    }
}

/** A fleet's marker must name the node (`{node}`), and no node's may be part of another's. */
function refuseMarkerWithoutNode(
  flag: string,
  given: string,
  runbooks: EdgeFlipInput[],
  marker: (runbook: EdgeFlipInput) => string | undefined,
): void {
  if (!given.includes('{node}'))
    throw new UsageError(
      `${flag} "${given}" has no {node} and no --node-header is given, so a fleet's probe could not tell which node answered: one node's answer would pass for another's.`,
      `Put {node} in both markers (e.g. ${flag} '${given} on {node}.') and have each node's edge answer with its own name, or name the answer header that carries it: --node-header X-Served-By.`,
    );
  for (const own of runbooks)
    for (const other of runbooks) {
      const mine = marker(own);
      const theirs = marker(other);
      if (own === other || mine === undefined || theirs === undefined || !theirs.includes(mine)) continue;
      throw new UsageError(
        `${flag} "${given}" for ${own.node} is part of ${other.node}'s, so ${other.node}'s answer would pass for ${own.node} ("${mine}" is in "${theirs}").`,
        `End the marker after the name, e.g. ${flag} '${given.replace(/\{node\}.*$/, '{node}')}.'`,
      );
    }
}
