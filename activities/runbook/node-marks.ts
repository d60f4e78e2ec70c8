import { FAILURE, runbookWorkflowId } from '../../workflows/contracts';
import type { RunRef } from '../../workflows/lock-hold';
import {
  endedCleanly,
  type NodeMarkInput,
  type RunEnded,
  type RunState,
} from '../../workflows/node-mark-contracts';

/** Where a node's mark and its runbook's run are read from: the client SDK, or the CLI's light reads. */
export interface MarkSource {
  /** The node's open mark, as its current run's input says; none when no mark is open. */
  openMark(node: string): Promise<NodeMarkInput | undefined>;
  /** How a run stands now; `gone` when Temporal no longer knows it (deleted, past retention). */
  runState(run: RunRef): Promise<RunState>;
  /** The run a Temporal Reset of `run` started, when that reset is what terminated `run`; else none. */
  resetInto(run: RunRef): Promise<string | undefined>;
}

/** Who Temporal's server says terminated a run that a Reset replaced (its consts.IdentityResetter). */
export const RESETTER_IDENTITY = 'history-resetter';

/** A chain of resets longer than this is read where it stops: a run so often reset wants a person. */
const RESET_HOPS = 20;

/**
 * The run that carries on what `run` began, and how it stands: `run` itself or, when a Temporal Reset (the
 * Web UI's Reset button, `temporal workflow reset`) terminated it, the run that reset started, through
 * every further reset. A reset run is its base run going on: it holds the base's mark, and how it ends is
 * how the mark's runbook ended. A run a person terminated stays terminated, reset later or not.
 */
export async function carrierOf(
  source: MarkSource,
  run: RunRef,
): Promise<{ runId: string; state: RunState }> {
  let runId = run.runId;
  for (let hop = 0; ; hop++) {
    const state = await source.runState({ workflowId: run.workflowId, runId });
    if (hop >= RESET_HOPS || state.state !== 'ended' || state.status !== 'TERMINATED')
      return { runId, state };
    const next = await source.resetInto({ workflowId: run.workflowId, runId });
    if (!next) return { runId, state };
    runId = next;
  }
}

/** The run a Temporal Reset carried the marking run on to, when one did (see carrierOf). */
interface Carried {
  resetTo?: string;
}

/**
 * A node's durable mark as it stands: none; in flight (its runbook still runs); going (its runbook ended
 * cleanly, the mark is about to close); or left (its runbook did not end cleanly: the node needs clearing).
 */
export type NodeMarkReading =
  | { kind: 'none'; node: string }
  | ({ kind: 'in-flight'; node: string; mark: NodeMarkInput } & Carried)
  | ({ kind: 'going'; node: string; mark: NodeMarkInput } & Carried)
  | ({
      kind: 'left';
      node: string;
      mark: NodeMarkInput;
      ended?: RunEnded;
      historyGone: boolean;
    } & Carried);

type HeldMark = Exclude<NodeMarkReading, { kind: 'none' }>;

/** The run that holds the node's mark now: the marking run, or the run a reset carried it on to. */
export function holdingRunId(reading: HeldMark): string {
  return reading.resetTo ?? reading.mark.by.runId;
}

/** Whether `run` holds the mark: it marked the node, or a reset carried the marking run on to it. */
export function heldBy(reading: HeldMark, run: RunRef): boolean {
  return reading.mark.by.workflowId === run.workflowId && holdingRunId(reading) === run.runId;
}

export type LeftMark = Extract<NodeMarkReading, { kind: 'left' }>;

export async function readNodeMark(source: MarkSource, node: string): Promise<NodeMarkReading> {
  const mark = await source.openMark(node);
  if (!mark) return { kind: 'none', node };
  const { runId, state: run } = await carrierOf(source, mark.by);
  const carried = runId === mark.by.runId ? {} : { resetTo: runId };
  if (run.state === 'running') return { kind: 'in-flight', node, mark, ...carried };
  if (run.state === 'gone')
    return {
      kind: 'left',
      node,
      mark,
      historyGone: true,
      ...carried,
      ...(mark.left ? { ended: mark.left } : {}),
    };
  const ended = endedOf(run);
  if (endedCleanly(ended)) return { kind: 'going', node, mark, ...carried };
  return { kind: 'left', node, mark, ended, historyGone: false, ...carried };
}

export function isLeft(reading: NodeMarkReading): reading is LeftMark {
  return reading.kind === 'left';
}

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ');

/**
 * The run that marked `node`, as a sentence names it: its type and run, its id when it is another node's,
 * and the run it was reset from when a reset carried it on.
 */
function whoMarked(reading: HeldMark): string {
  const { by } = reading.mark;
  const id = by.workflowId === runbookWorkflowId(reading.node) ? '' : ` ${by.workflowId}`;
  return `${by.type}${id}, ${runNamed(reading)}`;
}

/** "run 01a…", or "run 9f…, reset from run 01a…" when a Temporal Reset carried the marking run on. */
function runNamed(reading: HeldMark): string {
  const reset = reading.resetTo ? `, reset from run ${reading.mark.by.runId}` : '';
  return `run ${holdingRunId(reading)}${reset}`;
}

function howItEnded(node: string, ended: RunEnded | undefined): string {
  const outcome = ended?.outcome ? ` (${oneLine(ended.outcome)})` : '';
  if (!ended || ended.status === 'UNKNOWN') return `changed ${node} and did not end cleanly`;
  if (ended.status === 'FAILED' && ended.failureType === FAILURE.rollbackFailed)
    return `ended with its rollback failed${outcome || ' (no outcome)'}`;
  if (ended.status === 'TERMINATED') return `was terminated while it changed ${node}${outcome}`;
  if (ended.status === 'TIMED_OUT') return `timed out while it changed ${node}`;
  return `ended ${ended.status.toLowerCase()} while it changed ${node}, without undoing it${outcome}`;
}

/** What left the node marked: "the last runbook on novox (edgeFlip, run …) was terminated while it changed novox". */
export function leftWhat(left: LeftMark): string {
  const gone = left.historyGone ? '; its history is gone now (past the namespace retention)' : '';
  return `the last runbook on ${left.node} (${whoMarked(left)}) ${howItEnded(left.node, left.ended)}${gone}`;
}

/** Why a node needs clearing, and how to clear it: one sentence for the CLI, the runbook and `status`. */
export function leftSentence(left: LeftMark): string {
  const what = leftWhat(left);
  return `${what.charAt(0).toUpperCase()}${what.slice(1)}; look at ${left.node}, then clear it: mesh runbook clear ${left.node} --reason "<what you found and did>".`;
}

/** A node another run is changing right now (a move over several nodes started elsewhere). */
export function inFlightSentence(reading: Extract<NodeMarkReading, { kind: 'in-flight' }>): string {
  const { by } = reading.mark;
  return `${reading.node} is being changed by ${by.workflowId} (${by.what}, ${runNamed(reading)}), which still runs; wait for it to end: mesh runbook watch ${by.workflowId}.`;
}

/** Where to see what the run that left a mark did. */
export function leftSuggestion(left: LeftMark): string {
  if (left.historyGone) return `Its history is gone; look at ${left.node} itself before you clear it.`;
  const id = left.mark.by.workflowId;
  const which = id === runbookWorkflowId(left.node) ? left.node : id;
  return `See what it did and left with \`mesh runbook history ${which}\`.`;
}

function endedOf(run: Extract<RunState, { state: 'ended' }>): RunEnded {
  return {
    status: run.status,
    ...(run.failureType ? { failureType: run.failureType } : {}),
    ...(run.outcome ? { outcome: run.outcome } : {}),
  };
}
