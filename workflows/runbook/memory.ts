import type { ContainerEvidence, FirstSeen } from '../verdict';

/**
 * What the runbook remembers of each container from its first look on: its id and restart count, so a
 * crash loop slower than any one look still shows, and a recheck judges against that count, never afresh.
 */
export class ContainerMemory {
  readonly firstSeen: Record<string, FirstSeen> = {};
  private readonly lastSeen: Record<string, FirstSeen> = {};

  /** Keeps the first sighting of each container; a new id (a recreated container) starts afresh. */
  remember(containers: ContainerEvidence[], at: string): void {
    for (const c of containers) {
      const o = c.observed;
      if (!o.exists || o.id === undefined) continue;
      const now = { id: o.id, restartCount: o.restartCount, at };
      this.lastSeen[c.name] = now;
      if (this.firstSeen[c.name]?.id !== o.id) this.firstSeen[c.name] = now;
    }
  }

  /** The operator accepted the restarts seen so far: they count from the last look on. */
  acceptRestarts(): void {
    for (const [name, last] of Object.entries(this.lastSeen)) this.firstSeen[name] = last;
  }
}
