import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { DockerEngine } from '../../docker/engine';
import { acquireLock, LocalMesh } from '../../mesh/local';
import type { ModuleSpecInput } from '../../mesh/schemas';
import { removeImages, removeNodeContainers } from './docker';
import { Scratch } from './scratch';

/**
 * A local mesh in a scratch state dir, with unique node and image names, that removes everything it
 * made (containers, images, dirs) in `cleanup`, even after a failed test. `makeMesh` builds the mesh
 * over the state dir, e.g. a LocalMesh subclass that misbehaves on purpose.
 */
export class LocalWorld<M extends LocalMesh = LocalMesh> {
  readonly engine = new DockerEngine();
  private readonly nodes: string[] = [];
  private readonly images: string[] = [];

  private constructor(
    readonly mesh: M,
    readonly stateDir: string,
    private readonly scratch: Scratch,
  ) {}

  static async create(): Promise<LocalWorld>;
  static async create<M extends LocalMesh>(makeMesh: (stateDir: string) => M): Promise<LocalWorld<M>>;
  static async create(
    makeMesh: (stateDir: string) => LocalMesh = (stateDir) => new LocalMesh({ stateDir }),
  ): Promise<LocalWorld<LocalMesh>> {
    const scratch = new Scratch();
    const stateDir = await scratch.dir('mesh-local-');
    return new LocalWorld(makeMesh(stateDir), stateDir, scratch);
  }

  /** A node name no other test (or earlier run) uses. */
  nodeName(): string {
    const name = `t${randomBytes(4).toString('hex')}`;
    this.nodes.push(name);
    return name;
  }

  /** A `mesh-local/...` image tag of this test's own, so builds do not touch other tests' images. */
  imageName(module: string): string {
    const image = `mesh-local/${randomBytes(4).toString('hex')}-${module}:latest`;
    this.images.push(image);
    return image;
  }

  async cleanup(): Promise<void> {
    for (const node of this.nodes) await this.emptyInbox(node);
    await removeNodeContainers(this.nodes, this.engine);
    await removeImages(this.images, this.engine);
    await this.scratch.cleanup();
  }

  /** Ends a node's work before the world ends: no pending push, no container (its files stay until cleanup). */
  async retireNode(node: string): Promise<void> {
    await this.emptyInbox(node);
    await removeNodeContainers([node], this.engine);
  }

  /** Waits for a running agent, then empties the inbox so an agent started later has nothing to do. */
  private async emptyInbox(node: string): Promise<void> {
    const release = await acquireLock(this.mesh.layout.nodeLock(node), { timeoutMs: 60_000 }).catch(
      () => undefined,
    );
    await rm(this.mesh.layout.inboxDir(node), { recursive: true, force: true });
    await release?.();
  }
}

/** What a seeding helper needs of a world: its mesh and fresh node and image names. */
export type Seedable = Pick<LocalWorld, 'mesh' | 'nodeName' | 'imageName'>;

/** A module of three long-running containers, each mounting one of its data dirs. */
export function threeContainerModule(
  module: string,
  image: string,
  dataRoot = `/var/lib/${module}`,
): ModuleSpecInput {
  const sleeper = (name: string, dir: string) => ({
    name,
    image,
    command: ['sleep', '3600'],
    mounts: [{ hostPath: `${dataRoot}/${dir}`, containerPath: `/${dir}` }],
  });
  return {
    module,
    dataDirs: [`${dataRoot}/ca`, `${dataRoot}/certs`, `${dataRoot}/logs`],
    containers: [sleeper('edge', 'ca'), sleeper('acme', 'certs'), sleeper('logs', 'logs')],
  };
}
