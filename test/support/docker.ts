import { DockerEngine } from '../../docker/engine';

export { removeNodeContainers } from '../../docker/cleanup';

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
