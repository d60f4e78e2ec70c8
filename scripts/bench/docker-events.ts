import type { DockerEngine } from '../../docker/engine';
import { LABEL } from '../../docker/labels';

/** One container event as the Docker engine recorded it. */
export interface ContainerEvent {
  /** e.g. `start`, `die`, `health_status: healthy`. */
  action: string;
  name: string;
  /** Its role in its module, e.g. `edge` (the mesh.container label, or the label the log was opened with). */
  container: string;
  /** Engine time, ms since the epoch (from timeNano). */
  at: number;
}

interface RawEvent {
  Action?: string;
  timeNano?: number;
  Actor?: { Attributes?: Record<string, string> };
}

/**
 * The live event stream of the containers carrying all `labels`, recorded while a run goes on. Live, not
 * read back afterwards: the engine keeps only its last ~1000 events, and on a busy engine (a health check
 * is three events) those are minutes or less.
 */
export class ContainerEventLog {
  readonly events: ContainerEvent[] = [];
  private buffered = '';
  private readonly listeners: ((event: ContainerEvent) => void)[] = [];

  private constructor(
    private readonly stream: NodeJS.ReadableStream & { destroy(): void },
    private readonly roleLabel: string,
  ) {
    stream.on('data', (chunk: Buffer) => this.take(chunk.toString()));
    stream.on('error', () => undefined);
  }

  /**
   * `labels`: each label with its value, or (a string) every container that carries that label at all.
   * `roleLabel`: the label naming a container's role in its module (a controller of its own names it its way).
   */
  static async open(
    engine: DockerEngine,
    labels: Record<string, string> | string,
    roleLabel: string = LABEL.container,
  ): Promise<ContainerEventLog> {
    const label =
      typeof labels === 'string' ? [labels] : Object.entries(labels).map(([key, value]) => `${key}=${value}`);
    const stream = await engine.docker.getEvents({ filters: { type: ['container'], label } });
    return new ContainerEventLog(stream as NodeJS.ReadableStream & { destroy(): void }, roleLabel);
  }

  /** When the first `action` (of the module's `container`, if given) happened at or after `since`. */
  firstAt(action: string, since: number, container?: string): number | undefined {
    return this.events.find(
      (event) =>
        event.action === action &&
        event.at >= since &&
        (container === undefined || event.container === container),
    )?.at;
  }

  /** Calls `listener` with every event recorded from now on. */
  onEvent(listener: (event: ContainerEvent) => void): void {
    this.listeners.push(listener);
  }

  /** The module's containers seen, by their role. */
  containers(): string[] {
    return [...new Set(this.events.map((event) => event.container))];
  }

  close(): void {
    this.stream.destroy();
  }

  private take(text: string): void {
    const lines = (this.buffered + text).split('\n');
    this.buffered = lines.pop() ?? '';
    for (const line of lines.filter((l) => l.trim() !== '')) {
      const event = JSON.parse(line) as RawEvent;
      if (event.Action?.startsWith('exec_')) continue;
      const recorded: ContainerEvent = {
        action: event.Action ?? '',
        name: event.Actor?.Attributes?.name ?? '',
        container: event.Actor?.Attributes?.[this.roleLabel] ?? '',
        at: Math.floor((event.timeNano ?? 0) / 1e6),
      };
      this.events.push(recorded);
      for (const listener of this.listeners) listener(recorded);
    }
  }
}
