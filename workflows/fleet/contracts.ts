import type { SignalDefinition } from '@temporalio/common';
import { z } from 'zod';
import { AbsolutePath, Name, UpgradePolicy } from '../../mesh/schemas';
import { KINDS } from '../kinds';
import {
  DataPathMoveInput,
  EdgeFlipInput,
  FleetApproval,
  Phase,
  RunbookStatus,
  runbookWorkflowId,
  SignedStart,
  Waiting,
  type RunbookKind,
} from '../contracts';

/**
 * Wire names of fleet runbooks: a parent runbook that runs one kind's per-node runbook as a child workflow
 * per node (under the node's own runbook id, so the node lock and `status <node>` hold as for a single start).
 */

/** What a fleet's status says for `node`: a fleet runs on many; its steps are its nodes. */
export const FLEET_NODE = 'fleet';

/** One fleet per module at a time: `runbook-fleet-route-proxy` (so `status fleet-route-proxy` finds it). */
export function fleetWorkflowId(module: string): string {
  return runbookWorkflowId(`${FLEET_NODE}-${module}`);
}

/**
 * The fleet's history bound: a run continues as new at the first node start after its history passed half
 * of it, once its running nodes ended, so no run nears Temporal's warning (10,240 events) or limit (51,200).
 */
export const FLEET_HISTORY_BOUND = 10_000;
/** What one node adds to its fleet's history at most when it runs clean (111 events for 3 nodes, 15 fixed). */
export const FLEET_EVENTS_PER_NODE = 32;
/** The most nodes that may run at once and still leave the bound's second half for them to end in. */
export function mostAtOnce(bound: number = FLEET_HISTORY_BOUND): number {
  return Math.max(1, Math.floor(bound / 2 / FLEET_EVENTS_PER_NODE));
}

/** How a node that ran in an earlier run of the fleet ended; no node runs across a continue-as-new. */
export const FleetNodeEnd = z.strictObject({
  node: Name,
  phase: Phase.exclude(['running', 'waiting']),
  outcome: z.string(),
  /** The operator answered the pause its bad end caused, or the failure budget covered it. */
  acknowledged: z.boolean(),
});
export type FleetNodeEnd = z.infer<typeof FleetNodeEnd>;

/** What a fleet hands the run it continues as: where it stands, so it goes on as one fleet. */
export const FleetCarried = z.strictObject({
  status: RunbookStatus,
  ended: z.array(FleetNodeEnd),
  /** The approval the later nodes run on (canary-then-waves, canary-only), once given. */
  approval: FleetApproval.optional(),
  /** How many runs came before this one. */
  runs: z.number().int().min(1),
});
export type FleetCarried = z.infer<typeof FleetCarried>;

/** What every fleet takes beside its nodes' runbooks: how they run, who approves, where it stands. */
const FleetRules = {
  /** How many nodes run at once after the canary, which always runs alone. */
  waveSize: z.number().int().min(1).default(1),
  /** Who approves the nodes after the canary (FLEET_APPROVALS); absent: each node its own, as fleets began. */
  approvals: z.enum(['each-node', 'canary-then-waves', 'canary-only']).optional(),
  /** Failed or rolled-back nodes after the canary the fleet goes on past; the next one pauses it. Absent: 0. */
  maxFailures: z.number().int().min(0).optional(),
  /** At most this many of a wave's nodes run at once. Absent: the whole wave. */
  maxParallel: z.number().int().min(1).optional(),
  /** History events a run of the fleet stays under (FLEET_HISTORY_BOUND); a test sets a small one. */
  historyBound: z.number().int().min(100).optional(),
  startedBy: z.string().min(1),
  /** Present in a run the fleet continued as new: where the runs before left it. */
  carried: FleetCarried.optional(),
  signedStart: SignedStart.optional(),
};

export const EdgeFlipFleetInput = z
  .strictObject({
    /** The successor module every node flips to. */
    module: Name,
    /** Each node's edge-flip input, in the order they run: the canary first. */
    runbooks: z.array(EdgeFlipInput).min(1),
    ...FleetRules,
  })
  .refine((i) => new Set(i.runbooks.map((r) => r.node)).size === i.runbooks.length, {
    path: ['runbooks'],
    message: 'names a node twice',
  })
  .refine((i) => i.runbooks.every((r) => r.module === i.module), {
    path: ['runbooks'],
    message: "every node's runbook must flip to the fleet's module",
  });

export const DataPathMoveFleetInput = z
  .strictObject({
    /** The module whose data moves on every node it is assigned to. */
    module: Name,
    from: AbsolutePath,
    to: AbsolutePath,
    /** Each node's own move (no `nodes`, no `fleet`: the fleet adds it), in the order they run: the canary first. */
    runbooks: z.array(DataPathMoveInput).min(1),
    ...FleetRules,
    /** The module's upgrade policy before the fleet froze it; set by the first run, carried by the next. */
    policyBefore: UpgradePolicy.optional(),
  })
  .refine((i) => new Set(i.runbooks.map((r) => r.node)).size === i.runbooks.length, {
    path: ['runbooks'],
    message: 'names a node twice',
  })
  .refine(
    (i) =>
      i.runbooks.every(
        (r) => r.module === i.module && r.from === i.from && r.to === i.to && r.nodes.length === 0,
      ),
    {
      path: ['runbooks'],
      message: "every node's move must be the fleet's module, paths, and its node alone",
    },
  );
export type DataPathMoveFleetInput = z.infer<typeof DataPathMoveFleetInput>;
export type DataPathMoveFleetInputArg = z.input<typeof DataPathMoveFleetInput>;

/** What the fleet's shared script needs of either fleet's input. */
export type AnyFleetInput = EdgeFlipFleetInput | DataPathMoveFleetInput;

/**
 * Who approves the nodes after the canary. each-node: every node its own approval. canary-then-waves: after
 * the canary completed, one fleet approval (approve-waves) lets every later node stop its predecessor
 * without its own, when each of its gates was ok at its first look. canary-only: the canary's own approval
 * does that. A node whose gate is not ok at first look waits, pauses the fleet, and asks its own approval.
 */
export const FLEET_APPROVALS = ['each-node', 'canary-then-waves', 'canary-only'] as const;
export type FleetApprovals = (typeof FLEET_APPROVALS)[number];

/** An edge-flip fleet's approval gate under canary-then-waves; the approver rules of `approve-stop-predecessor` apply too. */
export const WAVES_GATE = 'approve-waves';
/** A data-path-move fleet's: the rules of `approve-remove-old-data` apply too (approvers.ts, STANDS_FOR). */
export const MOVE_WAVES_GATE = 'approve-move-waves';

/** The node approval a fleet's approval stands for, in either kind of fleet. */
export interface StandsFor {
  /** The fleet's own gate, asked once after the canary (canary-then-waves). */
  wavesGate: typeof WAVES_GATE | typeof MOVE_WAVES_GATE;
  /** The gate each node would ask at, and the action there that the fleet's approval stands for. */
  gate: 'approve-stop-predecessor' | 'approve-remove-old-data';
  action: 'approve' | 'remove';
  /** What a later node does on it, as the approval's reason says: `stop its predecessor`. */
  lets: string;
}

export const EDGE_FLIP_STANDS_FOR: StandsFor = {
  wavesGate: WAVES_GATE,
  gate: 'approve-stop-predecessor',
  action: 'approve',
  lets: 'stop its predecessor',
};

export const DATA_PATH_MOVE_STANDS_FOR: StandsFor = {
  wavesGate: MOVE_WAVES_GATE,
  gate: 'approve-remove-old-data',
  action: 'remove',
  lets: 'remove its old data (when nothing uses it and nothing was written to it since its copy)',
};

export type EdgeFlipFleetInput = z.infer<typeof EdgeFlipFleetInput>;
export type EdgeFlipFleetInputArg = z.input<typeof EdgeFlipFleetInput>;

/** What a child runbook tells its fleet whenever its phase or its wait changes. */
export const ChildReport = z.object({
  node: Name,
  /** Counts up with each report, so a report that arrives late never overrides a newer one. */
  seq: z.number().int().min(0),
  phase: Phase,
  waiting: Waiting.nullable(),
  outcome: z.string().optional(),
});
export type ChildReport = z.infer<typeof ChildReport>;

/** As the workflow SDK's `defineSignal` writes it; kept off the SDK for the CLI's sake, as in ../contracts. */
export const childReportSignal = { type: 'signal', name: 'childReport' } as SignalDefinition<[ChildReport]>;

/** What the fleet offers when it pauses: continue only after a node ended badly, never while one waits. */
export const FLEET_ACTIONS = ['continue', 'abort'] as const;

/** Each fleet's workflow type (its workflow function's name) and the kind of runbook its nodes run. */
export const FLEET_WORKFLOW_TYPES: Readonly<Record<string, RunbookKind>> = Object.fromEntries(
  KINDS.flatMap((d) => (d.fleet ? [[d.fleet.workflowType, d.kind]] : [])),
);
