import { z } from 'zod';
import { AbsolutePath, ApplyReport, ModuleSpec, Name, ResourceId } from '../schemas';

/** The controller's view: which nodes exist, what is assigned and taken there, and the module specs. */
export const ControllerNode = z.object({
  adopted: z.boolean(),
  hostRoot: AbsolutePath,
  assigned: z.array(Name),
  taken: z.array(Name),
  pushSeq: z.number().int().min(0),
});
export type ControllerNode = z.infer<typeof ControllerNode>;

export const ControllerState = z.object({
  version: z.literal(1),
  nodes: z.record(Name, ControllerNode),
  modules: z.record(Name, ModuleSpec),
});
export type ControllerState = z.infer<typeof ControllerState>;

/** How many apply reports a node agent keeps. */
export const KEPT_REPORTS = 20;

/** The node agent's own state: the dirs mesh created there, and its latest apply reports (oldest first). */
export const NodeAgentState = z.object({
  version: z.literal(1),
  node: Name,
  owned: z.array(AbsolutePath),
  reports: z.array(ApplyReport).max(KEPT_REPORTS),
});
export type NodeAgentState = z.infer<typeof NodeAgentState>;

/** One push waiting in a node's inbox: everything the node should hold, as the controller saw it then. */
export const InboxPush = z.object({
  version: z.literal(1),
  pushId: z.string().min(1),
  node: Name,
  seq: z.number().int().min(1),
  sentAt: z.iso.datetime(),
  adopted: z.boolean(),
  hostRoot: AbsolutePath,
  taken: z.array(Name),
  modules: z.array(ModuleSpec),
  resourceIds: z.array(ResourceId),
});
export type InboxPush = z.infer<typeof InboxPush>;
