import { LABEL } from '../../../docker/labels';
import { containerLabels, containerName, hostPathOnNode } from '../../../docker/placement';
import { specHash } from '../../../docker/container-options';
import { pushResources } from '../../../mesh/local/resources';
import type { ApplyReport, ModuleSpec } from '../../../mesh/schemas';
import { SimulatedEngine } from './simulated-engine';

/** What the simulated controller sends a node: every module it should run, under one push id. */
export interface SimulatedPush {
  pushId: string;
  modules: ModuleSpec[];
}

/** Reports a node keeps: enough for any runbook's latest pushes, bounded for a fleet of thousands. */
const KEPT_REPORTS = 20;

/**
 * A simulated node's agent: applies a push at once to its node's SimulatedEngine as the local mesh's agent
 * would (a missing container created and started, a stopped one started, a running one left alone, the
 * containers of modules no longer pushed removed) and reports it. Holds nothing: every simulated node is
 * clean. Used by the bench only.
 */
export class SimulatedNodeAgent {
  readonly engine: SimulatedEngine;
  private readonly reports: ApplyReport[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly node: string,
    readonly hostRoot: string,
  ) {
    this.engine = new SimulatedEngine(node);
  }

  apply(push: SimulatedPush): void {
    const resources = pushResources(push.modules);
    for (const resource of resources)
      if (resource.kind === 'container') this.ensureRunning(resource.module, resource.spec);
    const pushed = new Set(push.modules.map((m) => m.module));
    for (const c of this.engine.labelled({}))
      if (!pushed.has(c.labels[LABEL.module] ?? '')) void this.engine.remove(c.id);
    this.reports.push({
      pushId: push.pushId,
      node: this.node,
      applied: resources.length,
      appliedIds: resources.map((r) => r.id),
      held: [],
      failed: [],
      finishedAt: new Date().toISOString(),
    });
    this.reports.splice(0, Math.max(0, this.reports.length - KEPT_REPORTS));
    for (const listener of this.listeners) listener();
  }

  report(pushId: string): ApplyReport | undefined {
    return this.reports.find((r) => r.pushId === pushId);
  }

  get lastApply(): ApplyReport | null {
    return this.reports.at(-1) ?? null;
  }

  onReport(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private ensureRunning(module: string, spec: ModuleSpec['containers'][number]): void {
    const labels = containerLabels(this.node, module, spec.name);
    const [found] = this.engine.labelled(labels);
    if (found) return void this.engine.start(found.id);
    this.engine.run({
      name: containerName(this.node, module, spec.name),
      labels: { ...labels, [LABEL.specHash]: specHash(spec) },
      image: spec.image,
      healthy: spec.healthcheck ? true : undefined,
      mounts: spec.mounts.map((m) => ({
        source: hostPathOnNode(this.hostRoot, m.hostPath),
        destination: m.containerPath,
      })),
    });
  }
}
