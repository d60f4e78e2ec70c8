import { mkdir, stat } from 'node:fs/promises';
import type { DockerEngine } from '../../docker/engine';
import { hostPathOnNode, LOCAL_STYLE, type HouseStyle } from '../../docker/placement';
import { ownerOf } from '../../docker/container-labels';
import { containerResourceId, type ApplyReport, type FailedResource, type HeldResource } from '../schemas';
import { containerHoldReason, dirHoldReason, heldDirMountedBy, isDirHeld } from './holds';
import { ensureLocalImage } from './local-images';
import { pushResources, type PlannedResource } from './resources';
import type { InboxPush } from './state-schemas';

export interface ApplyOutcome {
  report: ApplyReport;
  /** The dirs mesh owns on the node after this apply. */
  owned: string[];
}

type Planned<K extends PlannedResource['kind']> = Extract<PlannedResource, { kind: K }>;

/**
 * What a node agent does with one push (docs/design.md §2), faithful to both incidents: held data and the
 * containers mounting it are skipped with a reason; a running container is left as it is even when its
 * spec changed, without a word; containers of modules no longer pushed are removed (their data stays).
 * `style` is how this mesh names, labels and configures the containers it runs.
 */
export async function applyPush(
  push: InboxPush,
  owned: string[],
  engine: DockerEngine,
  style: HouseStyle = LOCAL_STYLE,
): Promise<ApplyOutcome> {
  const ownedDirs = new Set(owned);
  const appliedIds: string[] = [];
  const held: HeldResource[] = [];
  const failed: FailedResource[] = [];
  /** held dir → the module that must be taken to release it */
  const heldDirs = new Map<string, string>();
  const resources = pushResources(push.modules);

  for (const dir of resources.filter((r): r is Planned<'dir'> => r.kind === 'dir')) {
    try {
      if (await applyDir(push, dir, ownedDirs)) {
        appliedIds.push(dir.id);
      } else {
        held.push({ resource: dir.id, module: dir.module, reason: dirHoldReason(dir.module, dir.path) });
        heldDirs.set(dir.path, dir.module);
      }
    } catch (error) {
      failed.push({ resource: dir.id, module: dir.module, error: messageOf(error) });
    }
  }

  const runnable: Planned<'container'>[] = [];
  for (const container of resources.filter((r): r is Planned<'container'> => r.kind === 'container')) {
    const heldDir = heldDirMountedBy(container.spec, [...heldDirs.keys()]);
    if (heldDir === undefined) {
      runnable.push(container);
      continue;
    }
    const reason = containerHoldReason(heldDirs.get(heldDir) ?? container.module, heldDir);
    held.push({ resource: container.id, module: container.module, reason });
  }
  // Containers are independent of each other: started together, as an operator's shell would with `&`.
  const images = new OnceEach((image: string) => ensureLocalImage(engine, image));
  const outcomes = await Promise.all(
    runnable.map((container) =>
      runContainer(push, container, engine, images, style).then(
        () => undefined,
        (error: unknown) => messageOf(error),
      ),
    ),
  );
  runnable.forEach((container, i) => {
    const error = outcomes[i];
    if (error === undefined) appliedIds.push(container.id);
    else failed.push({ resource: container.id, module: container.module, error });
  });

  failed.push(...(await removeUnpushedContainers(push, engine, style)));
  const report: ApplyReport = {
    pushId: push.pushId,
    node: push.node,
    applied: appliedIds.length,
    appliedIds,
    held,
    failed,
    finishedAt: new Date().toISOString(),
  };
  return { report, owned: [...ownedDirs].sort() };
}

/** Creates the dir and records it as owned, unless it is held: then returns false and touches nothing. */
async function applyDir(push: InboxPush, dir: Planned<'dir'>, ownedDirs: Set<string>): Promise<boolean> {
  const path = hostPathOnNode(push.hostRoot, dir.path);
  const facts = {
    adopted: push.adopted,
    taken: push.taken.includes(dir.module),
    existsOnDisk: await exists(path),
    owned: ownedDirs.has(dir.path),
  };
  if (isDirHeld(facts)) return false;
  await mkdir(path, { recursive: true });
  ownedDirs.add(dir.path);
  return true;
}

/** Creates a missing container, starts a stopped one as it is, and leaves a running one untouched. */
async function runContainer(
  push: InboxPush,
  container: Planned<'container'>,
  engine: DockerEngine,
  images: OnceEach<string>,
  style: HouseStyle,
): Promise<void> {
  const placement = style.placement(push.node, push.hostRoot, container.module, container.spec.name);
  const existing = await engine.inspect(placement.name);
  if (!existing) {
    await images.run(container.spec.image);
    await engine.createAndStart(container.spec, placement);
  } else if (!existing.State.Running) {
    await engine.start(placement.name);
  }
}

/** Runs `work` once per key, however many callers ask for that key at the same time. */
class OnceEach<K> {
  private readonly runs = new Map<K, Promise<void>>();

  constructor(private readonly work: (key: K) => Promise<void>) {}

  run(key: K): Promise<void> {
    let running = this.runs.get(key);
    if (!running) this.runs.set(key, (running = this.work(key)));
    return running;
  }
}

/** The mesh's own containers on the node that no pushed module has any more: removed, their data stays. */
async function removeUnpushedContainers(
  push: InboxPush,
  engine: DockerEngine,
  style: HouseStyle,
): Promise<FailedResource[]> {
  const wanted = new Set(push.modules.flatMap((m) => m.containers.map((c) => `${m.module}/${c.name}`)));
  const { labels } = style;
  const mine = labels.node
    ? engine.listByLabels({ [labels.node]: push.node })
    : engine.listLabelled(labels.module);
  const failed: FailedResource[] = [];
  for (const info of await mine) {
    const { module, node, container } = ownerOf(labels, info.Labels, push.node);
    if (!module || !container || node !== push.node || wanted.has(`${module}/${container}`)) continue;
    try {
      await engine.remove(info.Id);
    } catch (error) {
      failed.push({ resource: containerResourceId(module, container), module, error: messageOf(error) });
    }
  }
  return failed;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.trim() === '' ? 'unknown error' : text;
}
