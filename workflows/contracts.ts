import type { QueryDefinition, SignalDefinition, UpdateDefinition } from '@temporalio/common';
import { ApplicationFailure } from '@temporalio/common/lib/failure';
import { z } from 'zod';
import { Name } from '../mesh/schemas';
import { firstIssueText } from '../base/zod-issue';
import { VerdictKind } from './verdict';

/**
 * The one place wire names live: task queue, workflow ids, inputs, status, decisions and failure types.
 * Bundle-safe (zod and @temporalio/common's failure only); CLI, worker, workflows and activities import it.
 * Not the workflow SDK: `mesh runbook status` would load it, and all of @temporalio/common, to read one name.
 */

export const TASK_QUEUE = 'mesh-runbook';

/**
 * Activities that read or change a node's disk or its Docker engine. Revision-2 runbooks schedule them on
 * the node's own task queue (`nodeTaskQueue`), polled only by a worker on that node; every other activity
 * (mesh, probes, policy, reminders, runs) stays on the runbook's queue.
 */
export const NODE_LOCAL_ACTIVITIES = [
  'preflightMove',
  'copyTree',
  'verifyTree',
  'removeTree',
  'recordBaseline',
  'catchUpCopy',
  'targetTruth',
  'oldPathChanges',
  'containersUsingPath',
  'inspectModuleContainers',
  'observeModuleContainers',
  'watchModuleContainers',
  'watchPathUsers',
  'stopModuleContainers',
  'startModuleContainers',
  'runningModuleContainers',
  'moduleContainerStates',
  'stopContainers',
  'startContainers',
  'recreateContainers',
  'removeStaleContainers',
  'nodeFingerprint',
  'pathExists',
  'markPath',
  'pathHasMark',
  'unmarkPath',
] as const;

/**
 * Which host a node worker works on: its Docker engine's ID and its host's machine id. A runbook records
 * each node's at preflight; every later node-local activity carries it, and a worker on another host refuses.
 */
export const HostFingerprint = z.strictObject({
  engineId: z.string().min(1).max(200),
  machineId: z.string().min(1).max(200).nullable(),
});
export type HostFingerprint = z.infer<typeof HostFingerprint>;

/** `engine ABCD:EFGH:IJKL, machine 0f3c9a21`: short enough for a sentence, long enough to tell hosts apart. */
export function describeHost({ engineId, machineId }: HostFingerprint): string {
  return `engine ${engineId.slice(0, 14)}${machineId ? `, machine ${machineId.slice(0, 8)}` : ''}`;
}

/** The field of a node-local activity's input that carries the host the runbook recorded for its node. */
export const EXPECTED_HOST = 'expectHost';

export function isNodeLocalActivity(name: string): boolean {
  return (NODE_LOCAL_ACTIVITIES as readonly string[]).includes(name);
}

/** The memo field `startRunbook` records the runbook's task queue in (see workflows/runbook/queue.ts). */
export const QUEUE_MEMO = 'taskQueue';

/** The task queue of node `node`'s worker beside the runbook queue `queue`: `mesh-runbook@novox`. */
export function nodeTaskQueue(queue: string, node: string): string {
  return `${queue}@${node}`;
}

/** One runbook per node at a time: the id is the node's, so Temporal itself refuses a second start. */
export function runbookWorkflowId(node: string): string {
  return `runbook-${node}`;
}

import { RunbookKind } from './kinds';
export { RUNBOOK_KINDS, RunbookKind } from './kinds';
export { FleetApproval, HeaderName, PredictedVerdicts, SignedStart, Timings } from './input-parts';
export { EdgeFlipInput, type EdgeFlipInputArg } from './edge-flip-input';
export { DataPathMoveFleetPart, DataPathMoveInput, type DataPathMoveInputArg } from './data-path-move-input';

export const PHASES = ['running', 'waiting', 'completed', 'rolled-back', 'aborted', 'failed'] as const;
export const Phase = z.enum(PHASES);
export type Phase = z.infer<typeof Phase>;

export const STEP_STATES = [
  'pending',
  'running',
  'waiting',
  'done',
  'skipped',
  'failed',
  'compensated',
] as const;
export const StepState = z.enum(STEP_STATES);
export type StepState = z.infer<typeof StepState>;

export const StepRun = z.object({
  state: StepState,
  startedAt: z.string().optional(),
  endedAt: z.string().optional(),
  /** One line of evidence: counts, probes, containers. */
  note: z.string().optional(),
});
export type StepRun = z.infer<typeof StepRun>;

export const Step = StepRun.extend({
  name: z.string(),
  /** The step's earlier runs, oldest first, when it ran more than once (a push after take or recreate). */
  earlier: z.array(StepRun).optional(),
});
export type Step = z.infer<typeof Step>;

/** A gate's verdict, or `approval` for a gate that waits for a yes before a destructive step. */
export const WaitingVerdict = z.union([VerdictKind, z.literal('approval')]);
export type WaitingVerdict = z.infer<typeof WaitingVerdict>;

export const Waiting = z.object({
  gate: z.string(),
  verdict: WaitingVerdict,
  reason: z.string(),
  actions: z.array(z.string()),
  /** The evidence behind the sentence, one line each: counts, the node's reasons, mounts, probes. */
  facts: z.array(z.string()),
  /** Short hash of gate, verdict, sentence, actions and facts; a decision must carry it. */
  evidence: z.string(),
  since: z.string(),
  /** Reminders sent to the operators while this gate waits. */
  reminders: z.number().int().min(0),
  /** Where the last reminder went, or why it could not be sent. */
  lastReminder: z.string().optional(),
});
export type Waiting = z.infer<typeof Waiting>;

/** Where a decision's `by` came from: the CLI's OS user, its `--as`, or typed into the Web UI. */
export const IDENTITY_SOURCES = ['os-user', 'as-flag', 'web-ui'] as const;

export const Decision = z.strictObject({
  /** The gate the operator decides on; the current one when left out. */
  gate: z.string().optional(),
  action: z.string().min(1),
  /** Who decides: the OS user or `--as` from the CLI; self-declared from the Web UI. */
  by: z.string().trim().min(1, 'by must name who decides'),
  /** Where `by` came from; absent from older clients. */
  identity: z.enum(IDENTITY_SOURCES).optional(),
  /** The evidence hash of the gate as the operator saw it; a stale one is refused. */
  evidence: z.string().optional(),
  comment: z.string().optional(),
  /** An armored SSH signature (`ssh-keygen -Y sign -n mesh-runbook`) of the decision's statement (workflows/signing). */
  signature: z.string().optional(),
  /** When the signature was made (ISO 8601): part of what it signs. */
  signedAt: z.string().optional(),
});
export type Decision = z.infer<typeof Decision>;

/** Whose key signed a decision, as the runbook verified it against its policy's signers. */
export const Signer = z.strictObject({ principal: z.string(), fingerprint: z.string() });
export type Signer = z.infer<typeof Signer>;

export const RecordedDecision = Decision.extend({
  gate: z.string(),
  at: z.string(),
  signer: Signer.optional(),
});
export type RecordedDecision = z.infer<typeof RecordedDecision>;

/** A decision the runbook refused (stale evidence, approver not allowed, four eyes), kept on record. */
export const RefusedDecision = RecordedDecision.extend({ refusal: z.string() });
export type RefusedDecision = z.infer<typeof RefusedDecision>;

/**
 * What a worker tells a runbook about one of its long activities (copy, verify, catch-up): its progress
 * has not moved for `stalledAfterMs` though the worker still beats for it (`stalled`), or it moves again.
 */
export const WorkStalled = z.object({
  activity: z.string(),
  activityId: z.string(),
  /** The queue of the worker that runs it: `mesh-runbook@novox` names the node. */
  taskQueue: z.string(),
  stalled: z.boolean(),
  /** When its progress last moved. */
  since: z.string(),
  stalledAfterMs: z.number().int().positive(),
  /** Where it stands, in words: `120 of 2,000 files, ...`. */
  progress: z.string().optional(),
});
export type WorkStalled = z.infer<typeof WorkStalled>;
export const workStalledSignal = { type: 'signal', name: 'work-stalled' } as SignalDefinition<[WorkStalled]>;

/** A long activity shown as stalled, at the step that runs it. */
export const Stalled = WorkStalled.omit({ stalled: true }).extend({ step: z.string() });
export type Stalled = z.infer<typeof Stalled>;

/** Who asks a runbook to hold at its next step boundary, and why (the `pause` Update). */
export const PauseRequest = z.strictObject({
  by: z.string().trim().min(1, 'by must name who pauses'),
  reason: z.string().trim().min(1, 'say why it pauses'),
  identity: z.enum(IDENTITY_SOURCES).optional(),
});
export type PauseRequest = z.infer<typeof PauseRequest>;

/** Who resumes a paused runbook (the `resume` Update). */
export const ResumeRequest = z.strictObject({
  by: z.string().trim().min(1, 'by must name who resumes'),
  identity: z.enum(IDENTITY_SOURCES).optional(),
});
export type ResumeRequest = z.infer<typeof ResumeRequest>;

/** A pause in force: asked by whom, why, when; `holdsBefore` once it holds at a boundary (else it is on its way). */
export const Paused = PauseRequest.extend({
  at: z.string(),
  holdsBefore: z.string().optional(),
});
export type Paused = z.infer<typeof Paused>;

export const RunbookStatus = z.object({
  id: z.string(),
  kind: RunbookKind,
  node: Name,
  module: Name,
  startedBy: z.string(),
  phase: Phase,
  waiting: Waiting.nullable(),
  steps: z.array(Step),
  decisions: z.array(RecordedDecision),
  refused: z.array(RefusedDecision),
  /** Why the runbook failed or rolled back, when it did. */
  outcome: z.string().optional(),
  /** A copy, verify or catch-up whose progress stands still while its worker beats for it. */
  stalled: Stalled.nullable().optional(),
  /** A pause asked for and not yet resumed; absent from runbooks that were never paused. */
  paused: Paused.nullable().optional(),
  /** The key that signed the start, when it was signed: who started it, proven. */
  startSigner: Signer.optional(),
});
export type RunbookStatus = z.infer<typeof RunbookStatus>;

/** As the workflow SDK's `defineQuery` writes a query's definition (a test holds the two equal). */
export const statusQuery = { type: 'query', name: 'status' } as QueryDefinition<RunbookStatus>;
/** Every decision (approve, take, retry, recreate, recheck, abort) is one Update with a validator. */
export const decideUpdate = { type: 'update', name: 'decide' } as UpdateDefinition<
  RecordedDecision,
  [Decision]
>;

/** Holds the runbook at its next step boundary (never inside a step, nor where the plan forbids it). */
export const pauseUpdate = { type: 'update', name: 'pause' } as UpdateDefinition<Paused, [PauseRequest]>;
/** Lets a paused runbook go on; resolves to the pause it ended. */
export const resumeUpdate = { type: 'update', name: 'resume' } as UpdateDefinition<Paused, [ResumeRequest]>;

/** Failure types the CLI maps to messages and exit codes. */
export const FAILURE = {
  invalidInput: 'InvalidInput',
  preflightFailed: 'PreflightFailed',
  verificationFailed: 'VerificationFailed',
  rolledBack: 'RolledBack',
  rollbackFailed: 'RollbackFailed',
  aborted: 'Aborted',
  /** The node's last runbook ended with its rollback failed; `mesh runbook clear` after a look. */
  nodeNeedsClearing: 'NodeNeedsClearing',
  /** No worker on the node took its work in time (`mesh runbook worker --node <node>` is not running). */
  noNodeWorker: 'NoNodeWorker',
  /** A node worker on another host than the one the runbook recorded for its node refused the work. */
  wrongHost: 'WrongHost',
  /** A start was asked for, but the module has no container on the node: only a push brings it back. */
  containersGone: 'ContainersGone',
  /** A data move's B already holds the live data (a runbook reset to before its copy): not copied over. */
  targetIsTruth: 'TargetIsTruth',
} as const;

/** Workflow input parsed on the first line; bad input fails the run, not the task. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw ApplicationFailure.nonRetryable(firstIssueText(parsed.error), FAILURE.invalidInput);
}

/**
 * What the copy and verify activities heartbeat, at least once a second: files and bytes done of the
 * totals. A retried copy resumes from it; `mesh runbook` shows it as a progress bar.
 */
export const CopyProgress = z.object({
  files: z.number().int().min(0),
  bytes: z.number().int().min(0),
  totalFiles: z.number().int().min(0),
  totalBytes: z.number().int().min(0),
  bytesPerSecond: z.number().min(0),
});
export type CopyProgress = z.infer<typeof CopyProgress>;
