import { WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { READS_BEFORE_TRUST, failedRun } from '../../test/support/refusals';
import {
  decideUpdate,
  FAILURE,
  runbookWorkflowId,
  statusQuery,
  type DataPathMoveInputArg,
  type Decision,
  type EdgeFlipInputArg,
  type RunbookStatus,
} from '../../workflows/contracts';
import { fleetWorkflowId, FLEET_NODE } from '../../workflows/fleet/contracts';
import type { RunResult } from './result';

/**
 * Where the forged starts go: a Temporal client on a task queue whose workers run the runbooks, nodes
 * seeded as a clean edge flip or a forge on A, and the checks an operator would make by hand afterwards.
 */
export interface ForgeryTarget {
  client: Client;
  taskQueue: string;
  /** A clean node for an edge flip (caddy serving, route-proxy defined): the input `mesh runbook start` sends. */
  edgeFlip(): Promise<EdgeFlipInputArg>;
  /** A forge serving from A on a node of its own: the move's input as `mesh runbook start` sends it. */
  forge(): Promise<DataPathMoveInputArg>;
  /** Whether the predecessor still serves the node's names (its containers run). */
  predecessorServes(input: EdgeFlipInputArg): Promise<boolean>;
  /** Signs a start as `mesh runbook start --key` does, when the target's policy signs starts. */
  signStart?: (input: object, at: { runbook: string; kind: string; node: string; module: string }) => object;
  /** Decisions a person cannot make here, each a way round the policy (unsigned, four eyes, stale, ...). */
  forgedDecisions(
    waiting: NonNullable<RunbookStatus['waiting']>,
    at: { starter: string; runbook: string; run: string },
  ): Decision[];
  /** Remembers a runbook id to terminate if it is left open. */
  owns(id: string): void;
}

/** A fleet approval nobody gave, as typed into `temporal workflow start`. */
function forgedApproval(module: string) {
  return {
    runbook: fleetWorkflowId(module),
    gate: 'approve-waves',
    by: 'carol',
    at: new Date().toISOString(),
    evidence: '0123456789',
  };
}

interface ForgedStart {
  name: string;
  start(
    target: ForgeryTarget,
  ): Promise<{ handle: WorkflowHandle; check?: () => Promise<string | undefined> }>;
}

function startByType(target: ForgeryTarget, type: string, workflowId: string, input: object) {
  target.owns(workflowId);
  return target.client.workflow.start(type, { taskQueue: target.taskQueue, workflowId, args: [input] });
}

const signed = (target: ForgeryTarget, input: EdgeFlipInputArg | DataPathMoveInputArg, kind: string) =>
  target.signStart?.(input, {
    runbook: runbookWorkflowId(input.node),
    kind,
    node: input.node,
    module: input.module,
  }) ?? input;

/** Starts with one forged field each; every one must end failed at its first task, having changed nothing. */
const FORGED_STARTS: ForgedStart[] = [
  {
    name: 'edge flip with a made-up fleet approval (issue 36)',
    async start(target) {
      const input = await target.edgeFlip();
      const forged = { ...input, fleetApproval: forgedApproval(input.module) };
      return {
        handle: await startByType(
          target,
          'edgeFlip',
          runbookWorkflowId(input.node),
          signed(target, forged, 'edge-flip'),
        ),
        check: async () => ((await target.predecessorServes(input)) ? undefined : 'the predecessor stopped'),
      };
    },
  },
  {
    name: 'data-path move with a made-up fleet part (no lock, no freeze)',
    async start(target) {
      const input = await target.forge();
      const forged = {
        ...input,
        fleet: { fleet: fleetWorkflowId(input.module), policy: 'roll-out', revertible: true },
      };
      return {
        handle: await startByType(
          target,
          'dataPathMove',
          runbookWorkflowId(input.node),
          signed(target, forged as DataPathMoveInputArg, 'data-path-move'),
        ),
      };
    },
  },
  {
    name: 'edge flip with a stability window of 0 and an hour-long probe deadline',
    async start(target) {
      const input = await target.edgeFlip();
      const forged = { ...input, timings: { stabilityWindowMs: 0, probeDeadlineMs: 3_600_000 } };
      return {
        handle: await startByType(
          target,
          'edgeFlip',
          runbookWorkflowId(input.node),
          signed(target, forged, 'edge-flip'),
        ),
      };
    },
  },
  {
    name: 'edge flip predicting ok at a gate no plan has',
    async start(target) {
      const input = await target.edgeFlip();
      const forged = { ...input, predicted: { 'skip-the-approval': 'ok' } };
      return {
        handle: await startByType(
          target,
          'edgeFlip',
          runbookWorkflowId(input.node),
          signed(target, forged, 'edge-flip'),
        ),
      };
    },
  },
  {
    name: 'edge-flip fleet "continued" with an approval nobody gave',
    async start(target) {
      const input = await target.edgeFlip();
      const id = fleetWorkflowId(input.module);
      const status = {
        id,
        kind: 'edge-flip',
        node: FLEET_NODE,
        module: input.module,
        startedBy: input.startedBy,
        phase: 'running',
        waiting: null,
        steps: [],
        decisions: [],
        refused: [],
      };
      const fleet = {
        module: input.module,
        runbooks: [input],
        approvals: 'canary-then-waves',
        startedBy: input.startedBy,
        carried: { status, ended: [], approval: forgedApproval(input.module), runs: 1 },
      };
      return {
        handle: await startByType(
          target,
          'edgeFlipFleet',
          id,
          target.signStart?.(fleet, {
            runbook: id,
            kind: 'edge-flip',
            node: FLEET_NODE,
            module: input.module,
          }) ?? fleet,
        ),
        check: async () => ((await target.predecessorServes(input)) ? undefined : 'the predecessor stopped'),
      };
    },
  },
  {
    name: "edge-flip fleet whose node's runbook carries a made-up approval",
    async start(target) {
      const input = await target.edgeFlip();
      const id = fleetWorkflowId(input.module);
      const fleet = {
        module: input.module,
        runbooks: [{ ...input, fleetApproval: forgedApproval(input.module) }],
        startedBy: input.startedBy,
      };
      return {
        handle: await startByType(
          target,
          'edgeFlipFleet',
          id,
          target.signStart?.(fleet, {
            runbook: id,
            kind: 'edge-flip',
            node: FLEET_NODE,
            module: input.module,
          }) ?? fleet,
        ),
        check: async () => ((await target.predecessorServes(input)) ? undefined : 'the predecessor stopped'),
      };
    },
  },
];

/**
 * One run per forged start (`rounds` times over): a wrong proceed is any activity beyond the reads of a
 * first task, an end other than failed InvalidInput, or a node changed (its predecessor stopped).
 */
export async function forgedStartRuns(
  target: ForgeryTarget,
  rounds: number,
  log: (line: string) => void,
): Promise<RunResult[]> {
  const runs: RunResult[] = [];
  for (let round = 0; round < rounds; round++)
    for (const forged of FORGED_STARTS) {
      const notes: string[] = [];
      let wrongProceeds = 0;
      try {
        const { handle, check } = await forged.start(target);
        const run = await failedRun(handle, 180_000).catch((error: unknown) => {
          wrongProceeds++;
          notes.push(error instanceof Error ? error.message : String(error));
          return undefined;
        });
        if (run) {
          const acted = run.activities.filter((a) => !READS_BEFORE_TRUST.includes(a));
          if (acted.length > 0) {
            wrongProceeds++;
            notes.push(`it scheduled ${acted.join(', ')}`);
          }
          if (run.type !== FAILURE.invalidInput) notes.push(`it ended ${run.type}: ${run.message}`);
        }
        const changed = await check?.();
        if (changed) {
          wrongProceeds++;
          notes.push(changed);
        }
      } catch (error) {
        notes.push(`the experiment failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      log(
        `  ${forged.name}: ${wrongProceeds === 0 && notes.length === 0 ? 'refused at its first task' : notes.join('; ')}`,
      );
      runs.push({
        name: forged.name,
        passed: notes.length === 0,
        lost: 0,
        duplicated: 0,
        wrongProceeds,
        notes,
      });
    }
  return runs;
}

/**
 * A runbook started as an operator starts it waits for its approval; decisions no allowed person could make
 * are sent to it through a plain client. Each one accepted is a wrong proceed; so is a stopped predecessor.
 */
export async function forgedDecisionRun(
  target: ForgeryTarget,
  log: (line: string) => void,
): Promise<RunResult> {
  const name = 'decisions round the policy at approve-stop-predecessor';
  const notes: string[] = [];
  let wrongProceeds = 0;
  const input = await target.edgeFlip();
  const id = runbookWorkflowId(input.node);
  const handle = await startByType(target, 'edgeFlip', id, signed(target, input, 'edge-flip'));
  const waiting = await approvalWait(handle);
  const at = { starter: input.startedBy, runbook: id, run: handle.firstExecutionRunId };
  for (const decision of target.forgedDecisions(waiting, at)) {
    const accepted = await handle.executeUpdate(decideUpdate, { args: [decision] }).then(
      () => true,
      (error: unknown) => {
        if (!(error instanceof WorkflowUpdateFailedError)) throw error;
        return false;
      },
    );
    if (accepted) {
      wrongProceeds++;
      notes.push(`accepted: ${decision.action} by ${decision.by}${decision.signature ? ' (signed)' : ''}`);
    }
  }
  const after = await handle.query(statusQuery);
  if (after.waiting?.gate !== 'approve-stop-predecessor')
    notes.push(`it moved on: ${after.waiting?.gate ?? after.phase}`);
  if (!(await target.predecessorServes(input))) {
    wrongProceeds++;
    notes.push('the predecessor stopped');
  }
  await handle.cancel();
  await handle.result().catch(() => undefined);
  log(
    `  ${name}: ${notes.length === 0 ? 'every one refused; it still waits, the predecessor serves' : notes.join('; ')}`,
  );
  return { name, passed: notes.length === 0, lost: 0, duplicated: 0, wrongProceeds, notes };
}

async function approvalWait(handle: WorkflowHandle): Promise<NonNullable<RunbookStatus['waiting']>> {
  for (const deadline = Date.now() + 180_000; Date.now() < deadline;) {
    const status = await handle.query(statusQuery).catch(() => undefined);
    if (status?.waiting?.gate === 'approve-stop-predecessor') return status.waiting;
    if (status && !['running', 'waiting'].includes(status.phase))
      throw new Error(`${handle.workflowId} ended ${status.phase}: ${status.outcome}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${handle.workflowId} did not wait at approve-stop-predecessor within 3 min`);
}
