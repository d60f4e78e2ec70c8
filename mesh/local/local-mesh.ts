import { watch } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename, isAbsolute, resolve } from 'node:path';
import { DockerEngine } from '../../docker/engine';
import { LOCAL_MESH_LABELS } from '../../docker/container-labels';
import { MeshRefusedError } from '../errors';
import type { MeshPort } from '../port';
import {
  UpgradePolicy,
  type ModuleSpec,
  type ApplyReport,
  type ModuleSpecInput,
  type NodeState,
  type PushReceipt,
} from '../schemas';
import { buildModule, type BuildResult } from './build';
import { checkModuleSpec } from './module-spec';
import { checkName, ControllerStore, requireModule, requireNode } from './controller-store';
import { readJsonIfExists, writeJsonAtomic } from './json-files';
import { StateLayout } from './layout';
import { emptyNodeAgentState, readNodeAgentState } from './node-store';
import { pushResources } from './resources';
import { wakeNodeAgent } from './spawn-agent';
import { NodeAgentState, type InboxPush } from './state-schemas';

export interface LocalMeshOptions {
  stateDir: string;
  engine?: DockerEngine;
  /** Starts the node's agent after a push; by default a detached process that outlives the caller. */
  startAgent?: (node: string) => void;
  /** How long that process stays for the next push (default AGENT_LINGER_MS). */
  agentLingerMs?: number;
}

export interface CreateNodeOptions {
  /** The node existed before mesh: data found on it is held until its module is taken. */
  adopted: boolean;
  /** Where the node's host paths live here; default `<stateDir>/nodes/<node>/root`. */
  hostRoot?: string;
}

/** The reference mesh over the local Docker engine (docs/design.md §6), state in files under `stateDir`. */
export class LocalMesh implements MeshPort {
  readonly layout: StateLayout;
  readonly containerLabels = LOCAL_MESH_LABELS;
  private readonly controller: ControllerStore;
  private readonly engine: DockerEngine;
  private readonly startAgent: (node: string) => void;

  constructor(options: LocalMeshOptions) {
    this.layout = new StateLayout(resolve(options.stateDir));
    this.controller = new ControllerStore(this.layout);
    this.engine = options.engine ?? new DockerEngine();
    this.startAgent =
      options.startAgent ?? ((node) => wakeNodeAgent(this.layout, node, options.agentLingerMs));
  }

  /** Idempotent for the same options; a node cannot be re-created differently. */
  async createNode(name: string, { adopted, hostRoot }: CreateNodeOptions): Promise<NodeState> {
    checkName('node', name);
    if (hostRoot !== undefined && !isAbsolute(hostRoot)) {
      throw new MeshRefusedError(`The host root of node ${name} must be an absolute path, not ${hostRoot}.`);
    }
    const root = resolve(hostRoot ?? this.layout.defaultHostRoot(name));
    await this.controller.update(async (state) => {
      const existing = state.nodes[name];
      if (existing && (existing.adopted !== adopted || existing.hostRoot !== root)) {
        throw new MeshRefusedError(
          `Node ${name} already exists (${existing.adopted ? 'adopted' : 'not adopted'}, host root ${existing.hostRoot}).`,
        );
      }
      if (existing) return;
      await mkdir(root, { recursive: true });
      await mkdir(this.layout.inboxDir(name), { recursive: true });
      const file = this.layout.nodeStateFile(name);
      if (!(await readJsonIfExists(NodeAgentState, file)))
        await writeJsonAtomic(file, emptyNodeAgentState(name));
      state.nodes[name] = { adopted, hostRoot: root, assigned: [], taken: [], pushSeq: 0 };
    });
    return this.nodeState(name);
  }

  async defineModule(input: ModuleSpecInput): Promise<ModuleSpec> {
    const spec = checkModuleSpec(input);
    await this.controller.update((state) => {
      state.modules[spec.module] = spec;
    });
    return spec;
  }

  async setModuleSpec(spec: ModuleSpec): Promise<void> {
    await this.defineModule(spec);
  }

  async moduleSpec(module: string): Promise<ModuleSpec> {
    return requireModule(await this.controller.read(), module);
  }

  async moduleNodes(module: string): Promise<string[]> {
    const state = await this.controller.read();
    requireModule(state, module);
    return Object.entries(state.nodes)
      .filter(([, entry]) => entry.assigned.includes(module))
      .map(([node]) => node)
      .sort();
  }

  async listModules(): Promise<ModuleSpec[]> {
    const state = await this.controller.read();
    return Object.keys(state.modules)
      .sort()
      .map((name) => requireModule(state, name));
  }

  async setUpgradePolicy(module: string, policy: UpgradePolicy): Promise<void> {
    const parsed = UpgradePolicy.safeParse(policy);
    if (!parsed.success)
      throw new MeshRefusedError(`Upgrade policy must be manual or roll-out, not ${policy}.`);
    await this.controller.update((state) => {
      requireModule(state, module).upgradePolicy = parsed.data;
    });
  }

  async assign(module: string, node: string): Promise<void> {
    await this.controller.update((state) => {
      const entry = requireNode(state, node);
      requireModule(state, module);
      if (!entry.assigned.includes(module)) entry.assigned.push(module);
    });
  }

  async unassign(module: string, node: string): Promise<void> {
    await this.controller.update((state) => {
      const entry = requireNode(state, node);
      requireModule(state, module);
      entry.assigned = entry.assigned.filter((m) => m !== module);
      entry.taken = entry.taken.filter((m) => m !== module);
    });
  }

  async take(module: string, node: string): Promise<void> {
    await this.controller.update((state) => {
      const entry = requireNode(state, node);
      requireModule(state, module);
      if (!entry.assigned.includes(module)) {
        throw new MeshRefusedError(
          `Module ${module} is not assigned to node ${node}; assign it before taking its data.`,
        );
      }
      if (!entry.taken.includes(module)) entry.taken.push(module);
    });
  }

  /** Writes the push into the node's inbox and starts the node's agent; returns before the node applies. */
  async push(node: string): Promise<PushReceipt> {
    const inbox = await this.controller.update(
      (state): InboxPush => {
        const entry = requireNode(state, node);
        entry.pushSeq += 1;
        const modules = entry.assigned.map((m) => requireModule(state, m));
        return {
          version: 1,
          pushId: `${node}-${entry.pushSeq}`,
          node,
          seq: entry.pushSeq,
          sentAt: new Date().toISOString(),
          adopted: entry.adopted,
          hostRoot: entry.hostRoot,
          taken: entry.taken.filter((m) => entry.assigned.includes(m)),
          modules,
          resourceIds: pushResources(modules).map((r) => r.id),
        };
      },
      (push) => writeJsonAtomic(this.layout.inboxFile(node, push.pushId), push),
    );
    this.startAgent(node);
    return { pushId: inbox.pushId, node, sent: inbox.resourceIds.length, resourceIds: inbox.resourceIds };
  }

  async applyReport(node: string, pushId: string): Promise<ApplyReport | undefined> {
    requireNode(await this.controller.read(), node);
    const state = await readNodeAgentState(this.layout, node);
    return state.reports.find((report) => report.pushId === pushId);
  }

  /** The node's agent replaces its state file (its reports) by a rename: watch the node's directory for it. */
  watchReports(node: string, onChange: () => void): () => void {
    try {
      const watcher = watch(this.layout.nodeDir(node), (_event, file) => {
        if (file === null || file === basename(this.layout.nodeStateFile(node))) onChange();
      });
      watcher.on('error', () => onChange());
      return () => watcher.close();
    } catch {
      return () => undefined; // no directory yet: the caller's slow looks still find the report
    }
  }

  /** The controller's view of the node merged with the node's own: its holds and last apply. */
  async nodeState(node: string): Promise<NodeState> {
    const entry = requireNode(await this.controller.read(), node);
    const agent = await readNodeAgentState(this.layout, node);
    const lastApply = agent.reports.at(-1) ?? null;
    return {
      node,
      adopted: entry.adopted,
      hostRoot: entry.hostRoot,
      assigned: [...entry.assigned],
      taken: [...entry.taken],
      holds: lastApply?.held ?? [],
      lastApply,
    };
  }

  /** Where each node's host paths are on this machine, as the controller recorded them at createNode. */
  async hostRoots(): Promise<Record<string, string>> {
    const { nodes } = await this.controller.read();
    return Object.fromEntries(Object.entries(nodes).map(([node, entry]) => [node, entry.hostRoot]));
  }

  async listNodes(): Promise<NodeState[]> {
    const state = await this.controller.read();
    return Promise.all(
      Object.keys(state.nodes)
        .sort()
        .map((node) => this.nodeState(node)),
    );
  }

  /** Rebuilds the module's images; under `roll-out` that recreates its running containers (see build.ts). */
  async build(module: string): Promise<BuildResult> {
    return buildModule({ layout: this.layout, controller: this.controller, engine: this.engine }, module);
  }
}
