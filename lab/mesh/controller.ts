import { z } from 'zod';
import { MeshRefusedError } from '../../mesh/errors';
import { checkModuleSpec } from '../../mesh/local/module-spec';
import { readJsonIfExists, writeJsonAtomic } from '../../mesh/local/json-files';
import { pushResources } from '../../mesh/local/resources';
import {
  AbsolutePath,
  ApplyReport,
  HeldResource,
  ModuleSpec,
  Name,
  NAME_PATTERN,
  UpgradePolicy,
  type NodeState,
  type PushReceipt,
} from '../../mesh/schemas';
import type { AgentPush } from './host-agent';
import { callJson, type Routes } from './http-json';

const LabNode = z.strictObject({
  /** The node agent's address, inside the host's own network. */
  agent: z.url(),
  adopted: z.boolean(),
  assigned: z.array(Name),
  taken: z.array(Name),
  pushSeq: z.number().int().min(0),
});
type LabNode = z.infer<typeof LabNode>;

const LabState = z.strictObject({
  version: z.literal(1),
  nodes: z.record(Name, LabNode),
  modules: z.record(Name, ModuleSpec),
});
type LabState = z.infer<typeof LabState>;

/** What a host agent says of itself. */
const AgentState = z.strictObject({
  node: Name,
  hostRoot: AbsolutePath,
  holds: z.array(HeldResource),
  lastApply: ApplyReport.nullable(),
});

const NewNode = z.strictObject({ node: Name, agent: z.url(), adopted: z.boolean().default(false) });
const Placement = z.strictObject({ module: Name, node: Name });
const Policy = z.strictObject({ policy: UpgradePolicy });

const EMPTY: LabState = { version: 1, nodes: {}, modules: {} };

function named(kind: 'node' | 'module', name: string | undefined): string {
  if (name === undefined || !NAME_PATTERN.test(name))
    throw new MeshRefusedError(`"${name ?? ''}" is not a valid ${kind} name.`);
  return name;
}

/**
 * The lab's mesh controller (`meshd`): nodes, modules, assignments and takes in one state file, and the
 * verbs the runbook's command adapter drives through `meshctl`. It reaches each node only through that
 * node's agent (`mesh-host`), over the network: no Docker engine of any host is reachable from here.
 */
export class Controller {
  private line: Promise<unknown> = Promise.resolve();

  constructor(private readonly stateFile: string) {}

  routes(): Routes {
    const ok = (body: unknown = { ok: true }) => ({ status: 200, body });
    return {
      // Answers from the state file alone: the readiness check, while the hosts' agents may still be down.
      'GET /health': async () => ok({ nodes: Object.keys((await this.read()).nodes).length }),
      'POST /reset': async () => ok(await this.update((s) => void Object.assign(s, structuredClone(EMPTY)))),
      'POST /nodes': async (_, body) => ok(await this.addNode(NewNode.parse(body))),
      'GET /nodes': async () => {
        const { nodes } = await this.read();
        return ok(
          await Promise.all(
            Object.keys(nodes)
              .sort()
              .map((n) => this.nodeState(n)),
          ),
        );
      },
      'GET /nodes/:node': async ([node]) => ok(await this.nodeState(named('node', node))),
      'GET /nodes/:node/reports/:pushId': async ([node, pushId]) => {
        const entry = this.requireNode(await this.read(), named('node', node));
        return ok(await callJson(entry.agent, 'GET', `/reports/${encodeURIComponent(pushId ?? '')}`));
      },
      'POST /nodes/:node/push': async ([node]) => ok(await this.push(named('node', node))),
      'POST /modules': async (_, body) => {
        const spec = checkModuleSpec(body as never);
        return ok(await this.update((s) => void (s.modules[spec.module] = spec)));
      },
      'GET /modules/:module': async ([module]) =>
        ok(this.requireModule(await this.read(), named('module', module))),
      'GET /modules/:module/nodes': async ([module]) => {
        const state = await this.read();
        this.requireModule(state, named('module', module));
        const nodes = Object.keys(state.nodes).filter((n) => state.nodes[n]?.assigned.includes(module ?? ''));
        return ok({ module, nodes: nodes.sort() });
      },
      'POST /modules/:module/policy': async ([module], body) => {
        const { policy } = Policy.parse(body);
        return ok(
          await this.update(
            (s) => void (this.requireModule(s, named('module', module)).upgradePolicy = policy),
          ),
        );
      },
      'POST /modules/:module/build': async ([module]) => ok(await this.build(named('module', module))),
      'POST /assign': async (_, body) => ok(await this.assign(Placement.parse(body))),
      'POST /unassign': async (_, body) => ok(await this.unassign(Placement.parse(body))),
      'POST /take': async (_, body) => ok(await this.take(Placement.parse(body))),
    };
  }

  private async addNode({ node, agent, adopted }: z.infer<typeof NewNode>) {
    return this.update((state) => {
      const existing = state.nodes[node];
      if (existing && (existing.agent !== agent || existing.adopted !== adopted))
        throw new MeshRefusedError(`Node ${node} exists already with agent ${existing.agent}.`);
      state.nodes[node] ??= { agent, adopted, assigned: [], taken: [], pushSeq: 0 };
    });
  }

  private assign({ module, node }: z.infer<typeof Placement>) {
    return this.update((state) => {
      const entry = this.requireNode(state, node);
      this.requireModule(state, module);
      if (!entry.assigned.includes(module)) entry.assigned.push(module);
    });
  }

  private unassign({ module, node }: z.infer<typeof Placement>) {
    return this.update((state) => {
      const entry = this.requireNode(state, node);
      this.requireModule(state, module);
      entry.assigned = entry.assigned.filter((m) => m !== module);
      entry.taken = entry.taken.filter((m) => m !== module);
    });
  }

  private take({ module, node }: z.infer<typeof Placement>) {
    return this.update((state) => {
      const entry = this.requireNode(state, node);
      this.requireModule(state, module);
      if (!entry.assigned.includes(module))
        throw new MeshRefusedError(
          `Module ${module} is not assigned to node ${node}; assign it before taking its data.`,
        );
      if (!entry.taken.includes(module)) entry.taken.push(module);
    });
  }

  /** Counts the push, sends it to the node's agent, and returns what it sent; the node applies on its own. */
  private async push(node: string): Promise<PushReceipt> {
    const { push, agent } = await this.update((state) => {
      const entry = this.requireNode(state, node);
      entry.pushSeq += 1;
      const modules = entry.assigned.map((m) => this.requireModule(state, m));
      const push: AgentPush = {
        version: 1,
        pushId: `${node}-${entry.pushSeq}`,
        node,
        seq: entry.pushSeq,
        sentAt: new Date().toISOString(),
        adopted: entry.adopted,
        taken: entry.taken.filter((m) => entry.assigned.includes(m)),
        modules,
        resourceIds: pushResources(modules).map((r) => r.id),
      };
      return { push, agent: entry.agent };
    });
    await callJson(agent, 'POST', '/push', push);
    return { pushId: push.pushId, node, sent: push.resourceIds.length, resourceIds: push.resourceIds };
  }

  private async nodeState(node: string): Promise<NodeState> {
    const entry = this.requireNode(await this.read(), node);
    const agent = AgentState.parse(await callJson(entry.agent, 'GET', '/state'));
    return {
      node,
      adopted: entry.adopted,
      hostRoot: agent.hostRoot,
      assigned: [...entry.assigned],
      taken: [...entry.taken],
      holds: agent.holds,
      lastApply: agent.lastApply,
    };
  }

  /** Each node the module is assigned to rebuilds its images; under roll-out, recreates its containers. */
  private async build(module: string) {
    const state = await this.read();
    const spec = this.requireModule(state, module);
    const results = [];
    for (const [node, entry] of Object.entries(state.nodes)) {
      if (!entry.assigned.includes(module)) continue;
      results.push({ node, ...((await callJson(entry.agent, 'POST', '/build', { spec })) as object) });
    }
    return { module, upgradePolicy: spec.upgradePolicy, nodes: results };
  }

  private requireNode(state: LabState, node: string): LabNode {
    const entry = state.nodes[node];
    if (!entry) throw new MeshRefusedError(`There is no node "${node}" in this mesh; add it first.`);
    return entry;
  }

  private requireModule(state: LabState, module: string): ModuleSpec {
    const spec = state.modules[module];
    if (!spec) throw new MeshRefusedError(`There is no module "${module}" in this mesh; apply it first.`);
    return spec;
  }

  private async read(): Promise<LabState> {
    return (await readJsonIfExists(LabState, this.stateFile)) ?? structuredClone(EMPTY);
  }

  /** One change at a time, read and written whole. */
  private update<T>(change: (state: LabState) => T): Promise<T> {
    const next = this.line.then(async () => {
      const state = await this.read();
      const result = change(state);
      await writeJsonAtomic(this.stateFile, state);
      return result;
    });
    this.line = next.catch(() => undefined);
    return next;
  }
}
