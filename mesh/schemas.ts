import { z } from 'zod';
import { ContainerSpec, HealthcheckSpec, MountSpec, PortSpec } from '../docker/container-spec';
import { NODE_TEXT_MAX, printable, unprintable } from '../base/printable';
import { AbsolutePath, NAME_MAX, NAME_PATTERN, Name } from '../base/value-schemas';

/**
 * Everything that crosses the mesh port is described here once and parsed on the way in. Objects are strict:
 * a field this code does not know (a newer mesh, a typo in a module file) is an error naming it, never dropped.
 */

// The port's vocabulary in one place: names, paths and container specs are defined below it, not twice.
export { NODE_TEXT_MAX, printable };
export { AbsolutePath, NAME_MAX, NAME_PATTERN, Name };
export { ContainerSpec, HealthcheckSpec, MountSpec, PortSpec };

const NodeText = z
  .string()
  .min(1)
  .transform((text) => printable(text));

export const UpgradePolicy = z.enum(['manual', 'roll-out']);
export type UpgradePolicy = z.infer<typeof UpgradePolicy>;

export const ModuleSpec = z.strictObject({
  module: Name,
  upgradePolicy: UpgradePolicy.default('manual'),
  dataDirs: z.array(AbsolutePath).default([]),
  containers: z.array(ContainerSpec).min(1),
});
export type ModuleSpec = z.infer<typeof ModuleSpec>;
/** What a module file may say before defaults are filled in. */
export type ModuleSpecInput = z.input<typeof ModuleSpec>;

/** Resource ids name what a push sends: `<module>/dir:<host path>` or `<module>/container:<name>`. */
export const ResourceId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]*\/(dir|container):.+$/, 'not a mesh resource id')
  .refine((id) => !unprintable(id), 'not a mesh resource id: control characters or line breaks');

const PushId = z
  .string()
  .min(1)
  .refine((id) => !unprintable(id), 'must not contain control characters or line breaks');

export const PushReceipt = z.strictObject({
  pushId: PushId,
  node: Name,
  sent: z.number().int().min(0),
  resourceIds: z.array(ResourceId),
});
export type PushReceipt = z.infer<typeof PushReceipt>;

export const HeldResource = z.strictObject({
  resource: ResourceId,
  module: Name,
  reason: NodeText,
});
export type HeldResource = z.infer<typeof HeldResource>;

export const FailedResource = z.strictObject({
  resource: ResourceId,
  module: Name,
  error: NodeText,
});
export type FailedResource = z.infer<typeof FailedResource>;

export const ApplyReport = z.strictObject({
  pushId: PushId,
  node: Name,
  applied: z.number().int().min(0),
  appliedIds: z.array(ResourceId),
  held: z.array(HeldResource),
  failed: z.array(FailedResource),
  finishedAt: z.iso.datetime(),
});
export type ApplyReport = z.infer<typeof ApplyReport>;

export const NodeState = z.strictObject({
  node: Name,
  adopted: z.boolean(),
  /** Where the node's host paths live on this machine: `/` for a real node. */
  hostRoot: AbsolutePath,
  assigned: z.array(Name),
  taken: z.array(Name),
  /** The node's own holds, as it decided them at its last apply, with its reasons. */
  holds: z.array(HeldResource),
  lastApply: ApplyReport.nullable(),
});
export type NodeState = z.infer<typeof NodeState>;

/** The nodes a module is assigned to, as the controller lists them. */
export const ModuleNodes = z.strictObject({
  module: Name,
  nodes: z.array(Name),
});
export type ModuleNodes = z.infer<typeof ModuleNodes>;

export function dirResourceId(module: string, hostPath: string): string {
  return `${module}/dir:${hostPath}`;
}

export function containerResourceId(module: string, container: string): string {
  return `${module}/container:${container}`;
}

/** The module a resource id names (its part before the first `/`). */
export function moduleOfResource(resource: string): string {
  return resource.slice(0, resource.indexOf('/'));
}
