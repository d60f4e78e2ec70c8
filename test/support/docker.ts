import { DockerEngine, LABEL } from '../../docker/engine';

/** Removes every container labelled with one of these nodes (whatever state a failed test left). */
export async function removeNodeContainers(nodes: string[], engine = new DockerEngine()): Promise<void> {
  for (const node of nodes) {
    const containers = await engine.listByLabels({ [LABEL.node]: node });
    await Promise.all(containers.map((c) => engine.remove(c.Id)));
  }
}

/** Removes these image tags (and the untagged builds under them); a missing one is fine. */
export async function removeImages(images: string[], engine = new DockerEngine()): Promise<void> {
  for (const image of images) {
    await engine.docker
      .getImage(image)
      .remove()
      .catch((error: { statusCode?: number }) => {
        if (error.statusCode !== 404) throw error;
      });
  }
}
