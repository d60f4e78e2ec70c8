import { z } from 'zod';
import { LABEL } from './labels';

/** A Docker label key: what `docker run --label <key>=<value>` accepts, nothing a filter would misread. */
const LabelKey = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/, 'a Docker label key (letters, digits, . _ / -)');

/**
 * The Docker labels by which a mesh's containers say whose they are. A node's worker finds a module's
 * containers on the node's own engine by them, whatever the controller names its containers: the names are
 * the controller's business, and a real controller gives them the same name on every node.
 */
export const ContainerLabels = z.strictObject({
  /** The module the container runs for. */
  module: LabelKey,
  /** The name of the module's container spec it runs (`edge`, `web`, ...). */
  container: LabelKey,
  /** The node it runs for, where one engine serves several nodes; left out where each node has its own engine. */
  node: LabelKey.optional(),
  /** The digest of the container spec it was created from, as docker/container-options `specHash` writes it. */
  specHash: LabelKey.optional(),
});
export type ContainerLabels = z.infer<typeof ContainerLabels>;

/** How the local reference mesh labels its containers. */
export const LOCAL_MESH_LABELS: ContainerLabels = {
  node: LABEL.node,
  module: LABEL.module,
  container: LABEL.container,
  specHash: LABEL.specHash,
};

/** The labels a module's containers (or one of them) carry on `node`'s engine, as a Docker filter wants them. */
export function moduleLabelFilter(
  labels: ContainerLabels,
  at: { node: string; module: string; container?: string | undefined },
): Record<string, string> {
  return {
    ...(labels.node ? { [labels.node]: at.node } : {}),
    [labels.module]: at.module,
    ...(at.container !== undefined ? { [labels.container]: at.container } : {}),
  };
}

/**
 * Whose a container on `node`'s engine is, read from its labels: the module and node it runs for, or
 * nothing for a container the mesh did not make. Without a node label, the engine's node is its node.
 */
export function ownerOf(
  labels: ContainerLabels,
  containerLabels: Record<string, string> | undefined,
  engineNode: string,
): { module?: string; node?: string; container?: string } {
  const found = containerLabels ?? {};
  const module = found[labels.module];
  if (module === undefined) return {};
  const node = labels.node ? found[labels.node] : engineNode;
  const container = found[labels.container];
  return {
    module,
    ...(node !== undefined ? { node } : {}),
    ...(container !== undefined ? { container } : {}),
  };
}
