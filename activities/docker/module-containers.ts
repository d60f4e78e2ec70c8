import type Dockerode from 'dockerode';
import type { DockerEngine } from '../../docker/engine';
import { LABEL } from '../../docker/labels';

/** A container found by its mesh labels: its engine id and Docker name (without the leading `/`). */
export interface LabelledContainer {
  id: string;
  name: string;
  state: string;
  /** The spec name of the module container it runs (its `mesh.container` label). */
  container: string | undefined;
  /** The digest of the container spec it was created from (its `mesh.spec-hash` label). */
  specHash: string | undefined;
}

function described(info: Dockerode.ContainerInfo): LabelledContainer {
  const name = (info.Names[0] ?? info.Id).replace(/^\//, '');
  const labels = info.Labels ?? {};
  return {
    id: info.Id,
    name,
    state: info.State,
    container: labels[LABEL.container],
    specHash: labels[LABEL.specHash],
  };
}

/** Every container (any state) of `module` on `node`, or of one of its containers, sorted by name. */
export async function findModuleContainers(
  engine: DockerEngine,
  node: string,
  module: string,
  container?: string,
): Promise<LabelledContainer[]> {
  const labels: Record<string, string> = { [LABEL.node]: node, [LABEL.module]: module };
  if (container !== undefined) labels[LABEL.container] = container;
  const found = await engine.listByLabels(labels);
  return found.map(described).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
