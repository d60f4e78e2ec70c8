import type { z } from 'zod';
import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowCancellationType,
  ChildWorkflowFailure,
  isCancellation,
  ParentClosePolicy,
  setHandler,
  startChild,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import {
  FAILURE,
  QUEUE_MEMO,
  runbookWorkflowId,
  type Phase,
  type RunbookStatus,
  type Waiting,
} from '../contracts';
import { kindNamed, launchDescription, type KindOf, type RunbookKind } from '../kinds';
import { failureMessage } from '../runbook/failures';
import type { Progress } from '../runbook/progress';
import { runbookQueue } from '../runbook/queue';
import { MESH_KIND, MESH_MODULE, MESH_NODE, MESH_PHASE } from '../search-attributes';
import { childReportSignal, type ChildReport, type FleetNodeEnd } from './contracts';

type Ended = Exclude<Phase, 'running' | 'waiting'>;

/** One node's runbook as its fleet starts it: the kind and that kind's input for the node. */
export type FleetChild = {
  [K in RunbookKind]: { kind: K; input: z.output<KindOf<K>['input']> };
}[RunbookKind];

/** Names as one line an operator reads: every one of a few, the first and last of many and how many. */
export function namesLine(names: readonly string[], most = 10): string {
  if (names.length <= most) return names.join(', ');
  return `${names.length} nodes: ${names.slice(0, 5).join(', ')}, …, ${names.slice(-2).join(', ')}`;
}

interface NodeRun {
  node: string;
  last?: ChildReport;
  ended?: { phase: Ended; outcome: string };
  /** Its final status, once it completed. */
  final?: RunbookStatus;
  /** The operator answered the pause its bad end caused (continue). */
  acknowledged: boolean;
  /** Not run by this fleet: it was done before (skip). */
  skipped?: true;
  settled: Promise<void>;
}

/**
 * The fleet's nodes: each one's runbook started as a child workflow under the node's own runbook id, what
 * it reported last (waiting at a gate, running) and how it ended. Every change bumps `version`, which the
 * fleet's script waits on; each node's step in the fleet's status says where the node is.
 */
export class FleetNodes {
  version = 0;
  private readonly runs = new Map<string, NodeRun>();
  /** Every child starts in here, so an abort decided at the fleet cancels exactly the running ones. */
  private readonly children = new CancellationScope();

  /** `ended`: the nodes earlier runs of the fleet started, as they ended (a fleet continued as new). */
  constructor(
    private readonly progress: Progress,
    ended: readonly FleetNodeEnd[] = [],
  ) {
    for (const { node, phase, outcome, acknowledged } of ended)
      this.runs.set(node, { node, ended: { phase, outcome }, acknowledged, settled: Promise.resolve() });
    setHandler(childReportSignal, (report) => {
      const run = this.runs.get(report.node);
      if (!run || run.ended || (run.last && run.last.seq >= report.seq)) return;
      run.last = report;
      if (report.waiting)
        this.progress.mark(
          report.node,
          'waiting',
          `waits at ${report.waiting.gate} (${report.waiting.verdict})`,
        );
      else this.progress.mark(report.node, 'running', `${runbookWorkflowId(report.node)} ${report.phase}`);
      this.version++;
    });
  }

  /** Starts the node's own runbook as a child; a start Temporal refuses (the node is busy) ends the node failed. */
  async start(runbook: FleetChild): Promise<void> {
    const { node } = runbook.input;
    const run: NodeRun = { node, acknowledged: false, settled: Promise.resolve() };
    this.runs.set(node, run);
    this.progress.mark(node, 'running', `starting ${runbookWorkflowId(node)}`);
    try {
      const child = await this.children.run(() => startNodeRunbook(runbook));
      run.settled = child.result().then(
        (status) => {
          run.final = status;
          this.end(run, 'completed', status.outcome ?? 'completed');
        },
        (error: unknown) => this.end(run, phaseOfFailure(error), failureMessage(causeOf(error))),
      );
    } catch (error) {
      this.end(run, 'failed', `${runbookWorkflowId(node)} did not start: ${failureMessage(error)}`);
    }
  }

  /** A node the fleet does not run (it moved before): it counts as completed, and its step says why. */
  skip(node: string, why: string): void {
    const ended = { phase: 'completed' as const, outcome: why };
    this.runs.set(node, { node, ended, acknowledged: true, skipped: true, settled: Promise.resolve() });
    this.progress.mark(node, 'skipped', why);
  }

  /** Whether this fleet started the node already, in this run or one before. */
  started(node: string): boolean {
    return this.runs.has(node);
  }

  /** Every node started so far, as it ended: what a run the fleet continues as needs. Only when none runs. */
  ends(): FleetNodeEnd[] {
    return [...this.runs.values()].flatMap(({ node, ended, acknowledged }) =>
      ended ? [{ node, ...ended, acknowledged }] : [],
    );
  }

  /** The first node that waits at a gate now (by start order), with what it waits for. */
  waiting(): { node: string; waiting: Waiting } | undefined {
    for (const run of this.runs.values())
      if (!run.ended && run.last?.waiting) return { node: run.node, waiting: run.last.waiting };
    return undefined;
  }

  /** Whether the node no longer waits at the gate with this evidence: it moved on, or ended. */
  movedOn(node: string, evidence: string): boolean {
    const run = this.runs.get(node);
    return !run || run.ended !== undefined || run.last?.waiting?.evidence !== evidence;
  }

  /** The first node that ended other than completed and whose end the operator has not answered yet. */
  endedBadly(): { node: string; phase: Ended; outcome: string } | undefined {
    for (const run of this.runs.values())
      if (run.ended && run.ended.phase !== 'completed' && !run.acknowledged)
        return { node: run.node, ...run.ended };
    return undefined;
  }

  /** How many nodes ended failed, rolled back or aborted so far. */
  badEnds(): number {
    return [...this.runs.values()].filter((run) => run.ended && run.ended.phase !== 'completed').length;
  }

  /** The node's final status when it completed; undefined while it runs or when it ended otherwise. */
  completedWith(node: string): RunbookStatus | undefined {
    return this.runs.get(node)?.final;
  }

  acknowledge(node: string): void {
    const run = this.runs.get(node);
    if (run) run.acknowledged = true;
  }

  running(): number {
    return [...this.runs.values()].filter((run) => !run.ended).length;
  }

  /** Asks every running node's runbook to abort (a cancellation: its undo steps run); waits until all ended. */
  async abortRunning(): Promise<void> {
    this.children.cancel();
    await CancellationScope.nonCancellable(() => Promise.all([...this.runs.values()].map((r) => r.settled)));
  }

  /** `3 of 4 completed; novox rolled-back; lyra not started`. */
  summary(all: readonly string[]): string {
    const ended = [...this.runs.values()].flatMap((run) => (run.ended ? [run] : []));
    const completed = ended.filter((run) => run.ended?.phase === 'completed').length;
    const others = ended
      .filter((run) => run.ended?.phase !== 'completed')
      .map((run) => `${run.node} ${run.ended?.phase}`);
    const unstarted = all.filter((node) => !this.runs.has(node));
    const skipped = ended.filter((run) => run.skipped).map((run) => run.node);
    return [
      `${completed} of ${all.length} completed`,
      ...(skipped.length > 0 ? [`done before this fleet, not run again: ${namesLine(skipped)}`] : []),
      ...others,
      ...(unstarted.length > 0 ? [`not started: ${namesLine(unstarted)}`] : []),
    ].join('; ');
  }

  private end(run: NodeRun, phase: Ended, outcome: string): void {
    run.ended = { phase, outcome };
    const state = phase === 'completed' ? 'done' : phase === 'failed' ? 'failed' : 'compensated';
    this.progress.mark(run.node, state, `${phase}: ${outcome}`);
    this.version++;
  }
}

/** The node's runbook as a child; its result, whatever the kind, is the node's final status. */
async function startNodeRunbook(runbook: FleetChild): Promise<{ result(): Promise<RunbookStatus> }> {
  const { workflowType } = kindNamed(runbook.kind);
  return startChild<(input: unknown) => Promise<RunbookStatus>>(workflowType, {
    ...childOptions(runbook),
    args: [runbook.input],
  });
}

/** The child runs as a single start would: the node's id, the same summary, details and search attributes. */
function childOptions({ kind, input }: FleetChild) {
  const described = launchDescription(kind, input);
  return {
    workflowId: runbookWorkflowId(input.node),
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    memo: { [QUEUE_MEMO]: runbookQueue() },
    staticSummary: described.summary,
    staticDetails: `${described.parameters.join('\n\n')}\n\n${described.plan}`,
    typedSearchAttributes: [
      { key: MESH_NODE, value: input.node },
      { key: MESH_MODULE, value: input.module },
      { key: MESH_KIND, value: kind },
      { key: MESH_PHASE, value: 'running' },
    ],
    // An abort waits for the node's compensations; a fleet that ends any other way asks its nodes to abort.
    cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
    parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
  };
}

function causeOf(error: unknown): unknown {
  return error instanceof ChildWorkflowFailure && error.cause ? error.cause : error;
}

function phaseOfFailure(error: unknown): Ended {
  const cause = causeOf(error);
  if (isCancellation(cause)) return 'aborted';
  const type = cause instanceof ApplicationFailure ? cause.type : undefined;
  if (type === FAILURE.aborted) return 'aborted';
  if (type === FAILURE.rolledBack) return 'rolled-back';
  return 'failed';
}
