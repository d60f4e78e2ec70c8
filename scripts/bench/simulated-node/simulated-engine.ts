import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import Dockerode from 'dockerode';
import { DockerEngine } from '../../../docker/engine';

/** One container a simulated node runs: what `docker inspect` would say about it. */
export interface SimulatedContainer {
  id: string;
  name: string;
  labels: Record<string, string>;
  image: string;
  running: boolean;
  startedAt: string;
  healthy: boolean | undefined;
  mounts: { source: string; destination: string }[];
}

type NewContainer = Omit<SimulatedContainer, 'id' | 'running' | 'startedAt'>;

/**
 * A dockerode whose only answers are the engine's ID and its event stream; any other call fails, so nothing
 * the bench simulates can reach the machine's real Docker engine by accident.
 */
function simulatedDockerode(engineId: string, events: () => PassThrough): Dockerode {
  const docker = Object.create(Dockerode.prototype) as Dockerode;
  return Object.assign(docker, {
    info: async () => ({ ID: engineId }),
    getEvents: async () => events(),
  });
}

/**
 * A simulated node's Docker engine, in memory: the bench's simulated node agent creates, starts and stops
 * its containers at once, and the node's real activities read them through the DockerEngine verbs they
 * use (list by labels, inspect, start, stop) and its event stream. Used by the bench only.
 */
export class SimulatedEngine extends DockerEngine {
  private readonly containers = new Map<string, SimulatedContainer>();
  private readonly streams = new Set<PassThrough>();

  constructor(readonly node: string) {
    super(
      simulatedDockerode(`simulated-engine-${node}`, () => {
        const stream = new PassThrough();
        this.streams.add(stream);
        stream.once('close', () => this.streams.delete(stream));
        return stream;
      }),
    );
  }

  /** A new container, started now (`docker run`); healthy at once when it has a health check. */
  run(container: NewContainer): SimulatedContainer {
    const made = { ...container, id: randomBytes(32).toString('hex'), running: true, startedAt: now() };
    this.containers.set(made.id, made);
    this.tell('start', made);
    return made;
  }

  labelled(labels: Record<string, string>): SimulatedContainer[] {
    return [...this.containers.values()].filter((c) =>
      Object.entries(labels).every(([key, value]) => c.labels[key] === value),
    );
  }

  override async inspect(nameOrId: string): Promise<Dockerode.ContainerInspectInfo | undefined> {
    const c = this.find(nameOrId);
    if (!c) return undefined;
    return {
      Id: c.id,
      Name: `/${c.name}`,
      RestartCount: 0,
      State: {
        Status: c.running ? 'running' : 'exited',
        StartedAt: c.startedAt,
        ...(c.healthy === undefined ? {} : { Health: { Status: c.healthy ? 'healthy' : 'unhealthy' } }),
      },
      Config: { Image: c.image, Labels: c.labels },
      Mounts: c.mounts.map((m) => ({ Type: 'bind', Source: m.source, Destination: m.destination })),
    } as unknown as Dockerode.ContainerInspectInfo;
  }

  override async listByLabels(labels: Record<string, string>): Promise<Dockerode.ContainerInfo[]> {
    return this.labelled(labels).map(listed);
  }

  override async listLabelled(key: string): Promise<Dockerode.ContainerInfo[]> {
    return [...this.containers.values()].filter((c) => key in c.labels).map(listed);
  }

  override async listAll(): Promise<Dockerode.ContainerInfo[]> {
    return [...this.containers.values()].map(listed);
  }

  override async start(nameOrId: string): Promise<void> {
    const c = this.find(nameOrId);
    if (!c) throw Object.assign(new Error(`no such container: ${nameOrId}`), { statusCode: 404 });
    if (c.running) return;
    Object.assign(c, { running: true, startedAt: now() });
    this.tell('start', c);
  }

  override async stop(nameOrId: string): Promise<void> {
    const c = this.find(nameOrId);
    if (!c?.running) return;
    c.running = false;
    this.tell('die', c);
  }

  override async remove(nameOrId: string): Promise<void> {
    const c = this.find(nameOrId);
    if (!c) return;
    this.containers.delete(c.id);
    this.tell('destroy', c);
  }

  private find(nameOrId: string): SimulatedContainer | undefined {
    return this.containers.get(nameOrId) ?? [...this.containers.values()].find((c) => c.name === nameOrId);
  }

  /** As Docker's event stream says it, to every watcher (they filter nothing: a wake too many only looks again). */
  private tell(action: string, c: SimulatedContainer): void {
    const line = JSON.stringify({
      Action: action,
      Actor: { Attributes: { name: c.name } },
      time: 0,
      timeNano: Date.now() * 1e6,
    });
    for (const stream of this.streams) stream.write(`${line}\n`);
  }
}

const now = () => new Date().toISOString();

function listed(c: SimulatedContainer): Dockerode.ContainerInfo {
  return {
    Id: c.id,
    Names: [`/${c.name}`],
    State: c.running ? 'running' : 'exited',
    Labels: c.labels,
  } as Dockerode.ContainerInfo;
}
