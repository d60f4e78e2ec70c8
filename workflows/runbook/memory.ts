import { containerLook, type ContainerEvidence, type FirstSeen } from '../verdict';

/**
 * What the runbook remembers of each container from its first look on: its id and restart count, so a
 * crash loop slower than any one look still shows, and a recheck judges against that count, never afresh.
 * Kept per node and Docker name: a real mesh gives a module's containers the same names on every node.
 */
export class ContainerMemory {
  private readonly firstSeen: Record<string, Record<string, FirstSeen>> = {};
  private readonly lastSeen: Record<string, Record<string, FirstSeen>> = {};
  /** Each node's containers as the last judgment saw them (`containerLook`): what a waiting gate rests on. */
  private readonly lastLooks: Record<string, string[]> = {};

  /**
   * `createdByRunbook`: every container it judges was created by the runbook's own push (an edge flip's
   * successor, which preflight proved not running): restarts count from its creation, so a crash loop that
   * began before the first look shows at once.
   */
  constructor(private readonly createdByRunbook = false) {}

  /** Keeps the first sighting of each of the node's containers; a new id (a recreated container) starts afresh. */
  remember(node: string, containers: ContainerEvidence[], at: string): void {
    const first = (this.firstSeen[node] ??= {});
    const last = (this.lastSeen[node] ??= {});
    this.lastLooks[node] = containers.map(containerLook);
    for (const c of containers) {
      const o = c.observed;
      if (!o.exists || o.id === undefined) continue;
      const now = { id: o.id, restartCount: o.restartCount, at };
      last[c.name] = now;
      if (first[c.name]?.id !== o.id)
        first[c.name] = this.createdByRunbook ? { ...now, restartCount: 0, createdByRunbook: true } : now;
    }
  }

  /** The node's containers as first seen, by Docker name: the evidence's `firstSeen`. */
  firstSeenOn(node: string): Record<string, FirstSeen> {
    return { ...this.firstSeen[node] };
  }

  /** The node's containers as last judged, one look each; empty before any judgment. */
  lastJudged(node: string): string[] {
    return [...(this.lastLooks[node] ?? [])];
  }

  /** The operator accepted the restarts seen so far: they count from the last look on, on every node. */
  acceptRestarts(): void {
    for (const [node, last] of Object.entries(this.lastSeen))
      this.firstSeen[node] = { ...this.firstSeen[node], ...last };
  }
}
