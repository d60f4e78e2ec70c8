import { BASE_IMAGE, type DockerEngine, type RebuiltImage } from '../../docker/engine';
import { placementOn } from '../../docker/placement';
import { MeshRefusedError } from '../errors';
import type { UpgradePolicy } from '../schemas';
import { requireModule, type ControllerStore } from './controller-store';
import type { StateLayout } from './layout';
import { ensureLocalImage } from './local-images';
import { withLock } from './lock';

export interface BuildResult {
  module: string;
  upgradePolicy: UpgradePolicy;
  images: RebuiltImage[];
  /** Containers the roll-out policy recreated, with the module's current spec. */
  recreated: { node: string; container: string; name: string }[];
  failed: { node: string; container: string; error: string }[];
}

export interface BuildDeps {
  layout: StateLayout;
  controller: ControllerStore;
  engine: DockerEngine;
}

/**
 * A new build of each image the module runs. Under `roll-out`, the build then recreates the module's
 * existing containers on every node it is assigned to, with the module's CURRENT spec: an ordinary
 * build becomes a deployment (docs/design.md §1, incident 2). Under `manual` nothing is recreated.
 */
export async function buildModule(
  { layout, controller, engine }: BuildDeps,
  module: string,
): Promise<BuildResult> {
  const state = await controller.read();
  const spec = requireModule(state, module);
  const images = [...new Set(spec.containers.map((c) => c.image))];
  if (images.includes(BASE_IMAGE)) {
    throw new MeshRefusedError(
      `Module ${module} runs the shared base image ${BASE_IMAGE}, which a build would change for everyone; give it its own tag such as mesh-local/${module}:latest.`,
    );
  }
  const rebuilt: RebuiltImage[] = [];
  for (const image of images) {
    await ensureLocalImage(engine, image);
    if (!(await engine.inspectImage(image))) {
      throw new MeshRefusedError(
        `Image ${image} of module ${module} does not exist on this engine and there is no registry.`,
      );
    }
    rebuilt.push(await engine.rebuildImage(image));
  }
  const result: BuildResult = {
    module,
    upgradePolicy: spec.upgradePolicy,
    images: rebuilt,
    recreated: [],
    failed: [],
  };
  if (spec.upgradePolicy !== 'roll-out') return result;

  for (const [node, entry] of Object.entries(state.nodes)) {
    if (!entry.assigned.includes(module)) continue;
    await withLock(layout.nodeLock(node), { timeoutMs: 60_000 }, async () => {
      for (const container of spec.containers) {
        const placement = placementOn(node, entry.hostRoot, module, container.name);
        if (!(await engine.inspect(placement.name))) continue;
        try {
          await engine.remove(placement.name);
          await engine.createAndStart(container, placement);
          result.recreated.push({ node, container: container.name, name: placement.name });
        } catch (error) {
          result.failed.push({ node, container: container.name, error: (error as Error).message });
        }
      }
    });
  }
  return result;
}
