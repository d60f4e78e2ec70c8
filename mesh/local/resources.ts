import { containerResourceId, dirResourceId, type ContainerSpec, type ModuleSpec } from '../schemas';

export type PlannedResource =
  | { kind: 'dir'; id: string; module: string; path: string }
  | { kind: 'container'; id: string; module: string; spec: ContainerSpec };

/** What a push sends for these modules, in apply order: each module's data dirs, then its containers. */
export function pushResources(modules: ModuleSpec[]): PlannedResource[] {
  return modules.flatMap((spec): PlannedResource[] => [
    ...spec.dataDirs.map((path) => ({
      kind: 'dir' as const,
      id: dirResourceId(spec.module, path),
      module: spec.module,
      path,
    })),
    ...spec.containers.map((container) => ({
      kind: 'container' as const,
      id: containerResourceId(spec.module, container.name),
      module: spec.module,
      spec: container,
    })),
  ]);
}
