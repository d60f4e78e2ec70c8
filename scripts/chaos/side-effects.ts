import { readFile } from 'node:fs/promises';
import { LABEL, type DockerEngine } from '../../docker/engine';
import { ContainerEventLog } from '../bench/docker-events';

/** The lifecycle actions that are side effects on a container; health checks and execs are not. */
const LIFECYCLE = new Set(['create', 'start', 'stop', 'die', 'destroy', 'kill']);

/** Side effects on one node: pushes its agent applied (its journal) and its containers' lifecycle events. */
export interface SideEffects {
  pushes: number;
  /** `<module>.<container> <action>` → how many times, from Docker's live event stream. */
  lifecycle: Record<string, number>;
}

/**
 * Records Docker's events of the node's containers from now on (live: the engine keeps only its last
 * ~1000 events) and reads the node's journal at the end.
 */
export class SideEffectRecorder {
  private constructor(
    private readonly log: ContainerEventLog,
    private readonly node: string,
    private readonly journal: string,
  ) {}

  static async open(engine: DockerEngine, node: string, journal: string): Promise<SideEffectRecorder> {
    return new SideEffectRecorder(
      await ContainerEventLog.open(engine, { [LABEL.node]: node }),
      node,
      journal,
    );
  }

  /** The counts so far, once late events arrived (Docker delivers them within a second). */
  async counts(): Promise<SideEffects> {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const lifecycle: Record<string, number> = {};
    for (const event of this.log.events) {
      if (!LIFECYCLE.has(event.action)) continue;
      // A data-path move's module has a name of its own per run (forge-1a2b3c): compare as `forge`.
      const container = event.name.slice(this.node.length + 1).replace(/^forge-[0-9a-f]+\./, 'forge.');
      const key = `${container} ${event.action}`;
      lifecycle[key] = (lifecycle[key] ?? 0) + 1;
    }
    const text = await readFile(this.journal, 'utf8').catch(() => '');
    return { pushes: text.split('\n').filter(Boolean).length, lifecycle };
  }

  close(): void {
    this.log.close();
  }
}

/** Lifecycle events beyond the undisturbed run's, one line each (`route-proxy.edge start: 2, not 1`). */
export function duplicatedEffects(run: SideEffects, undisturbed: SideEffects): string[] {
  return Object.entries(run.lifecycle).flatMap(([key, count]) => {
    const expected = undisturbed.lifecycle[key] ?? 0;
    return count > expected ? [`${key}: ${count}, not ${expected}`] : [];
  });
}

/** How many events beyond the undisturbed run's. */
export function duplicatedCount(run: SideEffects, undisturbed: SideEffects): number {
  return Object.entries(run.lifecycle).reduce(
    (n, [key, count]) => n + Math.max(0, count - (undisturbed.lifecycle[key] ?? 0)),
    0,
  );
}
