import { DockerEngine, LABEL } from './engine';

/** Removes every container labelled with one of these nodes, whatever state it is in. */
export async function removeNodeContainers(nodes: string[], engine = new DockerEngine()): Promise<void> {
  for (const node of nodes) {
    const containers = await engine.listByLabels({ [LABEL.node]: node });
    await Promise.all(containers.map((c) => engine.remove(c.Id)));
  }
}
