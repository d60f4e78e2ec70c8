import { z } from 'zod';
import { AbsolutePath, ApplyReport, Name, NodeState, PushReceipt } from '../../mesh/schemas';

/**
 * The evidence a gate classifies (docs/design.md §3). Activities gather it; `classify` judges it.
 * Everything here is plain data, so it crosses the Temporal boundary and is replayed unchanged.
 */

/** An input that did not parse: where it came from and the parse error, as the adapter said it. */
export const Unreadable = z.object({
  readable: z.literal(false),
  /** Where the document came from, e.g. `novox state.json` or `mesh push --json`. */
  source: z.string().min(1),
  /** The parse error, e.g. a MeshUnreadableError's message. */
  error: z.string().min(1),
});
export type Unreadable = z.infer<typeof Unreadable>;

function readableOr<T extends z.ZodType>(value: T) {
  return z.discriminatedUnion('readable', [z.object({ readable: z.literal(true), value }), Unreadable]);
}

export const ReceiptEvidence = readableOr(PushReceipt);
export type ReceiptEvidence = z.infer<typeof ReceiptEvidence>;
export const ReportEvidence = readableOr(ApplyReport);
export type ReportEvidence = z.infer<typeof ReportEvidence>;
export const NodeStateEvidence = readableOr(NodeState);
export type NodeStateEvidence = z.infer<typeof NodeStateEvidence>;

/** A bind mount. Both sources are host paths on the node (the inspecting activity strips `hostRoot`). */
export const Mount = z.object({ source: z.string().min(1), destination: z.string().min(1) });
export type Mount = z.infer<typeof Mount>;

export const ContainerStateName = z.enum(['running', 'exited', 'created', 'restarting', 'paused', 'dead']);
export type ContainerStateName = z.infer<typeof ContainerStateName>;
/** `none`: the container has no healthcheck. */
export const ContainerHealth = z.enum(['healthy', 'unhealthy', 'starting', 'none']);
export type ContainerHealth = z.infer<typeof ContainerHealth>;

/** What the node's Docker engine says about one expected container, read directly (not via mesh). */
export const Inspection = z.discriminatedUnion('exists', [
  z.object({ exists: z.literal(false) }),
  z.object({
    exists: z.literal(true),
    state: ContainerStateName,
    health: ContainerHealth,
    restartCount: z.number().int().min(0),
    /** False when the restart count rose between two inspections of the same gate. */
    restartCountStable: z.boolean(),
    mounts: z.array(Mount),
    /** The Docker container id: a new id is a new container, whose restarts count from zero. */
    id: z.string().min(1).optional(),
    /** When the container last started (Docker's State.StartedAt). */
    startedAt: z.string().optional(),
    /** The image reference it was created from (Config.Image). */
    image: z.string().optional(),
    /** The spec digest mesh labelled it with when it created it. */
    specHash: z.string().optional(),
  }),
]);
export type Inspection = z.infer<typeof Inspection>;

/** One container the step expects, paired with its inspection so none can be forgotten. */
export const ContainerEvidence = z.object({
  module: Name,
  /** The container's name in the module spec. */
  container: Name,
  /** The Docker container name on the node. */
  name: z.string().min(1),
  desiredMounts: z.array(z.object({ source: AbsolutePath, destination: AbsolutePath })),
  /** What the current spec asks for: the image reference and the spec digest mesh would label it with. */
  desiredImage: z.string().optional(),
  desiredSpecHash: z.string().optional(),
  observed: Inspection,
});
export type ContainerEvidence = z.infer<typeof ContainerEvidence>;

export const FirstSeen = z.object({
  id: z.string().min(1),
  restartCount: z.number().int().min(0),
  /** When the runbook first saw it (workflow time). */
  at: z.string(),
  /** The runbook's own push created it: its restarts count from its creation (restartCount 0), not from `at`. */
  createdByRunbook: z.boolean().optional(),
});
export type FirstSeen = z.infer<typeof FirstSeen>;

export const Evidence = z.object({
  /** The runbook's node; every document must be about it. */
  node: Name,
  /** The runbook's module: `take` is offered only for holds of this module. */
  module: Name,
  receipt: ReceiptEvidence,
  report: ReportEvidence,
  nodeState: NodeStateEvidence,
  containers: z.array(ContainerEvidence),
  /** Host paths being moved away from (data-path move): a running container mounting one is unrecreated. */
  oldHostPaths: z.array(AbsolutePath).optional(),
  /**
   * Whether the step's health deadline has passed. Before it, a `starting` container gives `pending`
   * (gather again later); after it, the same container is `failed`.
   */
  healthDeadlinePassed: z.boolean(),
  /**
   * Each container as the runbook first saw it, by Docker name: a restart since then is a failure, however
   * slowly it crash-loops; a new id is a new container. Absent: the runbook keeps no memory (revision 1).
   */
  firstSeen: z.record(z.string(), FirstSeen).optional(),
  /**
   * The gate rule's revision the runbook started under. 1 (absent): as recorded in older histories. 2: an
   * unreadable report still shows the containers' problems, and containers running an older spec are drift.
   */
  revision: z.number().int().min(1).max(2).optional(),
  /**
   * The modules judged: absent, the whole node; else only these (an undo judges what its runbook changed),
   * and other modules' resources (held, failed, missing) become `details.elsewhere`, never a verdict.
   */
  judgedModules: z.array(Name).min(1).optional(),
});
export type Evidence = z.infer<typeof Evidence>;
