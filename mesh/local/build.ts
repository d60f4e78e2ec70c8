import { BASE_IMAGE, type DockerEngine, type RebuiltImage } from '../../docker/engine';
import { LOCAL_STYLE, type HouseStyle } from '../../docker/placement';
import { MeshRefusedError } from '../errors';
import type { ModuleSpec, UpgradePolicy } from '../schemas';
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
  const result: BuildResult = {
    module,
    upgradePolicy: spec.upgradePolicy,
    images: await rebuildModuleImages(engine, spec),
    recreated: [],
    failed: [],
  };
  if (spec.upgradePolicy !== 'roll-out') return result;

  for (const [node, entry] of Object.entries(state.nodes)) {
    if (!entry.assigned.includes(module)) continue;
    await withLock(layout.nodeLock(node), { timeoutMs: 60_000 }, async () => {
      const rolled = await rollOutOnNode(engine, LOCAL_STYLE, { node, hostRoot: entry.hostRoot }, spec);
      result.recreated.push(...rolled.recreated);
      result.failed.push(...rolled.failed);
    });
  }
  return result;
}

/** A new build of each image the module runs, on this engine; never of the base image everyone shares. */
export async function rebuildModuleImages(engine: DockerEngine, spec: ModuleSpec): Promise<RebuiltImage[]> {
  const images = [...new Set(spec.containers.map((c) => c.image))];
  if (images.includes(BASE_IMAGE)) {
    throw new MeshRefusedError(
      `Module ${spec.module} runs the shared base image ${BASE_IMAGE}, which a build would change for everyone; give it its own tag such as mesh-local/${spec.module}:latest.`,
    );
  }
  const rebuilt: RebuiltImage[] = [];
  for (const image of images) {
    await ensureLocalImage(engine, image);
    if (!(await engine.inspectImage(image))) {
      throw new MeshRefusedError(
        `Image ${image} of module ${spec.module} does not exist on this engine and there is no registry.`,
      );
    }
    rebuilt.push(await engine.rebuildImage(image));
  }
  return rebuilt;
}

/** What a roll-out did on one node: each existing container of the module recreated from the current spec. */
export async function rollOutOnNode(
  engine: DockerEngine,
  style: HouseStyle,
  { node, hostRoot }: { node: string; hostRoot: string },
  spec: ModuleSpec,
): Promise<Pick<BuildResult, 'recreated' | 'failed'>> {
  const rolled: Pick<BuildResult, 'recreated' | 'failed'> = { recreated: [], failed: [] };
  for (const container of spec.containers) {
    const placement = style.placement(node, hostRoot, spec.module, container.name);
    if (!(await engine.inspect(placement.name))) continue;
    try {
      await engine.remove(placement.name);
      await engine.createAndStart(container, placement);
      rolled.recreated.push({ node, container: container.name, name: placement.name });
    } catch (error) {
      rolled.failed.push({ node, container: container.name, error: (error as Error).message });
    }
  }
  return rolled;
}
