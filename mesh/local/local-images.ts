import type { DockerEngine } from '../../docker/engine';

/** Images this local mesh may make itself: there is no registry, so they start as the base image. */
export const LOCAL_IMAGE_PREFIX = 'mesh-local/';

/** Makes a missing `mesh-local/...` image from the base image; any other missing image stays missing. */
export async function ensureLocalImage(engine: DockerEngine, image: string): Promise<void> {
  if (image.startsWith(LOCAL_IMAGE_PREFIX)) await engine.ensureImage(image);
}
