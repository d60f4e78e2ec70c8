import { randomBytes } from 'node:crypto';
import './defer-unused-modules';
import Dockerode from 'dockerode';
import type { ContainerSpec } from './container-spec';
import { containerCreateOptions } from './container-options';
import { DEFAULT_SOCKET } from './endpoint-config';
import type { Placement } from './placement';
import { BASE_IMAGE, LABEL } from './labels';

export { BASE_IMAGE, LABEL } from './labels';
export type { Placement } from './placement';

export { DEFAULT_SOCKET };

/**
 * A dockerode client, or the dockerode options to make one (the local socket when empty). A node's
 * configured `DockerEndpoint` (socket, tcp, ssh) becomes these options in `endpoints.ts`.
 */
export type DockerConnection = Dockerode | Dockerode.DockerOptions;

export interface RebuiltImage {
  image: string;
  previousId: string;
  imageId: string;
  /** The `mesh.build` label of the new image: one more than the previous image's. */
  build: number;
}

/** One small verb per Docker operation mesh needs. Removing or stopping what is gone already is success. */
export class DockerEngine {
  readonly docker: Dockerode;

  constructor(connection: DockerConnection = {}) {
    this.docker =
      connection instanceof Dockerode
        ? connection
        : new Dockerode(connection.host ? connection : { socketPath: DEFAULT_SOCKET, ...connection });
  }

  async ping(): Promise<void> {
    await this.docker.ping();
  }

  /** Creates the container from its spec, labelled, then starts it. A failed start leaves it created. */
  async createAndStart(spec: ContainerSpec, placement: Placement): Promise<Dockerode.ContainerInspectInfo> {
    const container = await this.docker.createContainer(containerCreateOptions(spec, placement));
    await container.start();
    return container.inspect();
  }

  async inspect(nameOrId: string): Promise<Dockerode.ContainerInspectInfo | undefined> {
    return ifFound(() => this.docker.getContainer(nameOrId).inspect());
  }

  /** Every container (running or not) that carries all these labels. */
  async listByLabels(labels: Record<string, string>): Promise<Dockerode.ContainerInfo[]> {
    const label = Object.entries(labels).map(([key, value]) => `${key}=${value}`);
    return this.docker.listContainers({ all: true, filters: { label } });
  }

  /** Every container (running or not) that carries this label, whatever its value. */
  async listLabelled(key: string): Promise<Dockerode.ContainerInfo[]> {
    return this.docker.listContainers({ all: true, filters: { label: [key] } });
  }

  /** Every container on the engine, in any state, labelled or not. */
  async listAll(): Promise<Dockerode.ContainerInfo[]> {
    return this.docker.listContainers({ all: true });
  }

  /** Starting a running container is success. */
  async start(nameOrId: string): Promise<void> {
    await tolerate([304], () => this.docker.getContainer(nameOrId).start());
  }

  /** Stopping a stopped or missing container is success. */
  async stop(nameOrId: string, timeoutSeconds = 10): Promise<void> {
    await tolerate([304, 404], () => this.docker.getContainer(nameOrId).stop({ t: timeoutSeconds }));
  }

  /** Force-removes the container (its data on bind mounts stays). Removing a missing one is success. */
  async remove(nameOrId: string): Promise<void> {
    await tolerate([404, 409], () => this.docker.getContainer(nameOrId).remove({ force: true }));
  }

  async inspectImage(image: string): Promise<Dockerode.ImageInspectInfo | undefined> {
    return ifFound(() => this.docker.getImage(image).inspect());
  }

  /** Makes `image` exist locally, tagging it from `from` when missing (there is no registry to pull from). */
  async ensureImage(image: string, from = BASE_IMAGE): Promise<string> {
    const found = await this.inspectImage(image);
    if (found) return found.Id;
    await this.docker.getImage(from).tag(splitImageTag(image));
    const made = await this.inspectImage(image);
    if (!made) throw new Error(`tagging ${from} as ${image} did not produce an image`);
    return made.Id;
  }

  /** A new build of `image`: same content, a new `mesh.build` label, hence a new image id under the same tag. */
  async rebuildImage(image: string): Promise<RebuiltImage> {
    const previous = await this.inspectImage(image);
    if (!previous) throw new Error(`image ${image} does not exist on this engine`);
    const build = Number(previous.Config?.Labels?.[LABEL.build] ?? 0) + 1;
    const temp = await this.docker.createContainer({
      name: `mesh-rebuild-${randomBytes(6).toString('hex')}`,
      Image: previous.Id,
    });
    try {
      await temp.commit({ ...splitImageTag(image), changes: `LABEL ${LABEL.build}=${build}`, pause: false });
    } finally {
      await this.remove(temp.id);
    }
    const rebuilt = await this.inspectImage(image);
    if (!rebuilt) throw new Error(`committing a new build of ${image} did not produce an image`);
    return { image, previousId: previous.Id, imageId: rebuilt.Id, build };
  }
}

/** `repo[:tag]` into its parts; a colon inside a registry host:port is part of the repo. */
export function splitImageTag(image: string): { repo: string; tag: string } {
  const colon = image.lastIndexOf(':');
  if (colon <= image.lastIndexOf('/')) return { repo: image, tag: 'latest' };
  return { repo: image.slice(0, colon), tag: image.slice(colon + 1) };
}

function statusOf(error: unknown): number | undefined {
  return (error as { statusCode?: number }).statusCode;
}

async function ifFound<T>(call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    if (statusOf(error) === 404) return undefined;
    throw error;
  }
}

async function tolerate(statuses: number[], call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    const status = statusOf(error);
    if (status === undefined || !statuses.includes(status)) throw error;
  }
}
