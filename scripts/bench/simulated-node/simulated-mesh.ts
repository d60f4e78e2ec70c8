import { LOCAL_MESH_LABELS } from '../../../docker/container-labels';
import { MeshRefusedError } from '../../../mesh/errors';
import type { MeshPort } from '../../../mesh/port';
import { pushResources } from '../../../mesh/local/resources';
import {
  ModuleSpec,
  type ApplyReport,
  type ModuleSpecInput,
  type NodeState,
  type PushReceipt,
  type UpgradePolicy,
} from '../../../mesh/schemas';
import { SimulatedNodeAgent } from './simulated-node-agent';

interface SimulatedNodeEntry {
  agent: SimulatedNodeAgent;
  assigned: string[];
  taken: string[];
  pushSeq: number;
}

/**
 * A mesh controller in memory for the bench's simulated fleet: the runbooks' mesh verbs as the local mesh
 * answers them, each push handed to the node's SimulatedNodeAgent, which applies and reports it on the next
 * turn of the event loop (the port says a node applies after the push returns). Used by the bench only.
 */
export class SimulatedMesh implements MeshPort {
  readonly containerLabels = LOCAL_MESH_LABELS;
  private readonly modules = new Map<string, ModuleSpec>();
  private readonly nodes = new Map<string, SimulatedNodeEntry>();

  defineModule(input: ModuleSpecInput): ModuleSpec {
    const spec = ModuleSpec.parse(input);
    this.modules.set(spec.module, spec);
    return spec;
  }

  addNode(node: string, hostRoot: string): SimulatedNodeAgent {
    const agent = new SimulatedNodeAgent(node, hostRoot);
    this.nodes.set(node, { agent, assigned: [], taken: [], pushSeq: 0 });
    return agent;
  }

  agent(node: string): SimulatedNodeAgent {
    return this.node(node).agent;
  }

  async assign(module: string, node: string): Promise<void> {
    const entry = this.node(node);
    this.spec(module);
    if (!entry.assigned.includes(module)) entry.assigned.push(module);
  }

  async unassign(module: string, node: string): Promise<void> {
    const entry = this.node(node);
    this.spec(module);
    entry.assigned = entry.assigned.filter((m) => m !== module);
    entry.taken = entry.taken.filter((m) => m !== module);
  }

  async take(module: string, node: string): Promise<void> {
    const entry = this.node(node);
    if (!entry.assigned.includes(module))
      throw new MeshRefusedError(`Module ${module} is not assigned to node ${node}.`);
    if (!entry.taken.includes(module)) entry.taken.push(module);
  }

  async push(node: string): Promise<PushReceipt> {
    const entry = this.node(node);
    entry.pushSeq += 1;
    const pushId = `${node}-${entry.pushSeq}`;
    const modules = entry.assigned.map((m) => this.spec(m));
    setImmediate(() => entry.agent.apply({ pushId, modules }));
    const resourceIds = pushResources(modules).map((r) => r.id);
    return { pushId, node, sent: resourceIds.length, resourceIds };
  }

  async applyReport(node: string, pushId: string): Promise<ApplyReport | undefined> {
    return this.agent(node).report(pushId);
  }

  watchReports(node: string, onChange: () => void): () => void {
    return this.agent(node).onReport(onChange);
  }

  async nodeState(node: string): Promise<NodeState> {
    const { agent, assigned, taken } = this.node(node);
    return {
      node,
      adopted: false,
      hostRoot: agent.hostRoot,
      assigned: [...assigned],
      taken: [...taken],
      holds: [],
      lastApply: agent.lastApply,
    };
  }

  async moduleSpec(module: string): Promise<ModuleSpec> {
    return this.spec(module);
  }

  async moduleNodes(module: string): Promise<string[]> {
    this.spec(module);
    return [...this.nodes].flatMap(([node, e]) => (e.assigned.includes(module) ? [node] : [])).sort();
  }

  async setModuleSpec(spec: ModuleSpec): Promise<void> {
    this.defineModule(spec);
  }

  async setUpgradePolicy(module: string, policy: UpgradePolicy): Promise<void> {
    this.spec(module).upgradePolicy = policy;
  }

  private node(node: string): SimulatedNodeEntry {
    const entry = this.nodes.get(node);
    if (!entry) throw new MeshRefusedError(`No simulated node ${node}.`);
    return entry;
  }

  private spec(module: string): ModuleSpec {
    const spec = this.modules.get(module);
    if (!spec) throw new MeshRefusedError(`No module ${module}.`);
    return spec;
  }
}
