import type Dockerode from 'dockerode';
import type { DockerEngine } from '../../docker/engine';
import { moduleLabelFilter, type ContainerLabels } from '../../docker/container-labels';

/** A container found by its mesh labels: its engine id and Docker name (without the leading `/`). */
export interface LabelledContainer {
  id: string;
  name: string;
  state: string;
  /** The spec name of the module container it runs (its container label). */
  container: string | undefined;
  /** The digest of the container spec it was created from, where the mesh labels it. */
  specHash: string | undefined;
}

function described(info: Dockerode.ContainerInfo, labels: ContainerLabels): LabelledContainer {
  const name = (info.Names[0] ?? info.Id).replace(/^\//, '');
  const found = info.Labels ?? {};
  return {
    id: info.Id,
    name,
    state: info.State,
    container: found[labels.container],
    specHash: labels.specHash ? found[labels.specHash] : undefined,
  };
}

/** Where a module's containers are looked for: the node's engine and how its mesh labels them. */
export interface ModuleContainersAt {
  engine: DockerEngine;
  labels: ContainerLabels;
}

/** Every container (any state) of `module` on `node`, or of one of its containers, sorted by name. */
export async function findModuleContainers(
  { engine, labels }: ModuleContainersAt,
  node: string,
  module: string,
  container?: string,
): Promise<LabelledContainer[]> {
  const found = await engine.listByLabels(moduleLabelFilter(labels, { node, module, container }));
  return found
    .map((info) => described(info, labels))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
