import { z } from 'zod';
import { NODE_TEXT_MAX, printable, unprintable } from './printable';

/**
 * Everything that crosses the mesh port is described here once and parsed on the way in. Objects are strict:
 * a field this code does not know (a newer mesh, a typo in a module file) is an error naming it, never dropped.
 */

export { NODE_TEXT_MAX, printable };

export const NAME_PATTERN = /^[a-z0-9][a-z0-9-]*$/;
/** As long as a host name's label may be: a node's name becomes part of its runbook's workflow id and queue. */
export const NAME_MAX = 63;
export const Name = z
  .string()
  .max(NAME_MAX, `at most ${NAME_MAX} characters`)
  .regex(NAME_PATTERN, 'lower-case letters, digits and dashes, not starting with a dash');

const NodeText = z
  .string()
  .min(1)
  .transform((text) => printable(text));

export const AbsolutePath = z
  .string()
  .refine((p) => p.startsWith('/'), 'must be an absolute path')
  .refine((p) => !p.split('/').includes('..'), 'must not contain ..')
  .refine((p) => !unprintable(p), 'must not contain control characters or line breaks');

export const UpgradePolicy = z.enum(['manual', 'roll-out']);
export type UpgradePolicy = z.infer<typeof UpgradePolicy>;

export const MountSpec = z.strictObject({
  hostPath: AbsolutePath,
  containerPath: AbsolutePath,
  readOnly: z.boolean().default(false),
});
export type MountSpec = z.infer<typeof MountSpec>;

export const PortSpec = z.strictObject({
  host: z.number().int().min(1).max(65535),
  container: z.number().int().min(1).max(65535),
  hostIp: z.string().default('127.0.0.1'),
});

export const HealthcheckSpec = z.strictObject({
  test: z.array(z.string()).min(1),
  intervalSeconds: z.number().positive().default(2),
  timeoutSeconds: z.number().positive().default(2),
  retries: z.number().int().min(1).default(3),
  startPeriodSeconds: z.number().min(0).default(0),
});

export const ContainerSpec = z.strictObject({
  name: Name,
  image: z.string().min(1),
  command: z.array(z.string()).optional(),
  mounts: z.array(MountSpec).default([]),
  ports: z.array(PortSpec).default([]),
  /** `host` shares the node's network, as edge proxies that bind the node's public ports do. */
  network: z.enum(['bridge', 'host']).default('bridge'),
  env: z.record(z.string(), z.string()).default({}),
  healthcheck: HealthcheckSpec.optional(),
});
export type ContainerSpec = z.infer<typeof ContainerSpec>;

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
