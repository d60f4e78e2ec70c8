import { z } from 'zod';
import { FailedResource, HeldResource } from '../../mesh/schemas';

/**
 * A gate's verdict, listed from least to most severe. When several problems coexist the most severe
 * one is the verdict; the reason and details still carry all of them (see classify.ts).
 */
export const VERDICTS = [
  'ok',
  'pending',
  'unrecreated-volume',
  'held',
  'failed',
  'drift',
  'unreadable',
] as const;
export const VerdictKind = z.enum(VERDICTS);
export type VerdictKind = z.infer<typeof VerdictKind>;

/**
 * What an operator (or, for `recheck`, the gate itself) may do about a verdict:
 * - `take`: run `take <module> <node>` for the runbook's own module, then push and gate again;
 * - `recreate`: recreate the listed containers on their desired mounts, then gate again;
 * - `retry`: push again and gate again;
 * - `recheck`: gather the evidence again without changing anything;
 * - `accept-restarts`: count restarts from now on (the operator saw them and judged them harmless);
 * - `abort`: cancel the runbook; its compensations run.
 */
export const ACTIONS = ['take', 'recreate', 'retry', 'recheck', 'accept-restarts', 'abort'] as const;
export const Action = z.enum(ACTIONS);
export type Action = z.infer<typeof Action>;

export const UnreadableInput = z.object({
  input: z.enum(['receipt', 'report', 'nodeState']),
  source: z.string(),
  error: z.string(),
});
export type UnreadableInput = z.infer<typeof UnreadableInput>;

/** A mount that differs from the spec; `null` on one side means the mount is missing or unwanted. */
export const MountMismatch = z.object({
  destination: z.string(),
  current: z.string().nullable(),
  desired: z.string().nullable(),
  /** The current source is (under) one of the old host paths of a data-path move. */
  oldPath: z.boolean(),
});
export type MountMismatch = z.infer<typeof MountMismatch>;

/** One expected container that is not as it should be. */
export const ContainerFinding = z.object({
  module: z.string(),
  container: z.string(),
  name: z.string(),
  running: z.boolean(),
  /** Phrases naming what is wrong, e.g. `is missing`, `is exited`, `is unhealthy`. */
  failures: z.array(z.string()),
  mounts: z.array(MountMismatch),
  /** How it differs from the current spec (its digest label, its image): it was left from an older spec. */
  staleSpec: z.array(z.string()),
  /** Restarts since the runbook first saw this container (0 without that memory). */
  restartedSince: z.number().int().min(0),
  /** Health is still `starting` and the deadline has not passed. */
  starting: z.boolean(),
});
export type ContainerFinding = z.infer<typeof ContainerFinding>;

export const VerdictDetails = z.object({
  unreadable: z.array(UnreadableInput),
  /** The node's holds (apply report and node state, one entry per resource). */
  held: z.array(HeldResource),
  /** Docker names of expected containers a hold keeps from running as specified. */
  heldBack: z.array(z.string()),
  /** Sent but not applied, and explained by no hold and no failure. */
  missing: z.array(z.string()),
  /** Applied but not sent. */
  notSent: z.array(z.string()),
  failedResources: z.array(FailedResource),
  /** Containers with a problem not explained by a hold. */
  containers: z.array(ContainerFinding),
  /** With `judgedModules`: the other modules' held, failed or missing resources, one sentence each. */
  elsewhere: z.array(z.string()).optional(),
});
export type VerdictDetails = z.infer<typeof VerdictDetails>;

export const Verdict = z.object({
  verdict: VerdictKind,
  /** One sentence an operator can act on, naming modules, counts, resources, containers and paths. */
  reason: z.string(),
  actions: z.array(Action),
  details: VerdictDetails,
});
export type Verdict = z.infer<typeof Verdict>;
