import type { ContainerLabels } from '../docker/container-labels';
import type { ApplyReport, ModuleSpec, NodeState, PushReceipt, UpgradePolicy } from './schemas';

/**
 * The verbs a runbook uses to talk to mesh (docs/design.md §2, §6). Every adapter returns values parsed by
 * the schemas in ./schemas and throws MeshUnreadableError for anything that does not parse.
 */
export interface MeshPort {
  /** The labels this mesh puts on its containers: how a node's worker finds a module's containers. */
  readonly containerLabels: ContainerLabels;
  /** Module M should run on node N. Idempotent. */
  assign(module: string, node: string): Promise<void>;
  /** M should no longer run on N; the next push removes its containers (data stays). Idempotent. */
  unassign(module: string, node: string): Promise<void>;
  /** Sends node N every resource it should hold. The node applies asynchronously. */
  push(node: string): Promise<PushReceipt>;
  /** On an adopted node, mesh now owns M's data already on disk. Takes effect on the next push. */
  take(module: string, node: string): Promise<void>;
  /** The node's apply report for this push, or undefined while the node has not applied it yet. */
  applyReport(node: string, pushId: string): Promise<ApplyReport | undefined>;
  nodeState(node: string): Promise<NodeState>;
  moduleSpec(module: string): Promise<ModuleSpec>;
  /** The nodes module M is assigned to, sorted: a spec or policy change reaches every one of them. */
  moduleNodes(module: string): Promise<string[]>;
  /** Replaces a module's spec (e.g. a changed mount path). Takes effect on the next push. */
  setModuleSpec(spec: ModuleSpec): Promise<void>;
  setUpgradePolicy(module: string, policy: UpgradePolicy): Promise<void>;
  /**
   * Calls `onChange` whenever the node may have written a new apply report; returns how to stop. An
   * adapter without a way to be told (a remote controller) leaves it out and callers look again on a backoff.
   */
  watchReports?(node: string, onChange: () => void): () => void;
}
