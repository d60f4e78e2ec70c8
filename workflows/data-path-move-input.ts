import { z } from 'zod';
import { AbsolutePath, Name, UpgradePolicy } from '../mesh/schemas';
import { FleetApproval, PredictedVerdicts, SignedStart, Timings } from './input-parts';

/**
 * What a fleet tells one node's data-path move: the fleet froze the module's policy (it was `policy`) and
 * restores it after its last node; the spec may already mount B (an earlier node switched it). Only the
 * node that runs first (`revertible`) may put the spec back on A: after it, other nodes run on B.
 */
export const DataPathMoveFleetPart = z.strictObject({
  fleet: z.string().min(1),
  policy: UpgradePolicy,
  revertible: z.boolean(),
});
export type DataPathMoveFleetPart = z.infer<typeof DataPathMoveFleetPart>;

export const DataPathMoveInput = z
  .strictObject({
    node: Name,
    /**
     * Every node the module is assigned to, when more than one: the spec and policy are fleet-wide, so the move
     * changes them all and moves each node's data. Empty: `node` alone (preflight refuses if there are more).
     */
    nodes: z.array(Name).default([]),
    module: Name,
    /** The host path the module's data lives on now (A). */
    from: AbsolutePath,
    /** The host path it moves to (B). */
    to: AbsolutePath,
    /** The containers expected to mount A; preflight refuses when the spec says otherwise. Empty: whatever mounts A. */
    containers: z.array(Name).default([]),
    startedBy: z.string().min(1),
    timings: Timings.default(Timings.parse({})),
    /** Each gate's verdict as `mesh runbook plan` predicted it at the start; a gate that differs says so. */
    predicted: PredictedVerdicts.optional(),
    /** Present when a fleet runs this node's move (workflows/data-path-move-fleet.ts). */
    fleet: DataPathMoveFleetPart.optional(),
    /** The approval this node may remove its old data on, when its gates are ok at first look (a fleet's). */
    fleetApproval: FleetApproval.optional(),
    signedStart: SignedStart.optional(),
  })
  .refine((i) => i.fleet === undefined || i.nodes.length === 0, {
    path: ['nodes'],
    message: "a fleet's node moves its own data only",
  })
  .refine((i) => i.nodes.length === 0 || i.nodes.includes(i.node), {
    path: ['nodes'],
    message: "must include the runbook's own node",
  });
export type DataPathMoveInput = z.infer<typeof DataPathMoveInput>;
export type DataPathMoveInputArg = z.input<typeof DataPathMoveInput>;
