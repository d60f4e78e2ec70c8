import assert from 'node:assert/strict';
import { WorkflowFailedError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { LABEL, type DockerEngine } from '../../docker/engine';
import { decideUpdate, RunbookStatus, statusQuery } from '../../workflows/contracts';

/** A free TCP port of this test file's own, for edge containers on the host network. */
export { freePort } from './ports';

/**
 * Polls the runbook's status until `until` holds; fails with the last status after `timeoutMs` (generous:
 * it only bounds a wait that went wrong, and a loaded machine may take minutes over what takes seconds).
 */
export async function statusWhen(
  handle: WorkflowHandle,
  until: (status: RunbookStatus) => boolean,
  timeoutMs = 180_000,
): Promise<RunbookStatus> {
  const deadline = Date.now() + timeoutMs;
  let last: RunbookStatus | undefined;
  for (;;) {
    try {
      last = await handle.query(statusQuery);
      if (until(last)) return last;
    } catch (error) {
      if (Date.now() >= deadline) throw error;
    }
    if (Date.now() >= deadline) throw new Error(`timed out; last status: ${JSON.stringify(last, null, 2)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export const waitingAt = (gate: string) => (status: RunbookStatus) => status.waiting?.gate === gate;

export function stepState(status: RunbookStatus, name: string): string | undefined {
  return status.steps.find((step) => step.name === name)?.state;
}

/**
 * Short waits so a runbook test takes seconds (the defaults are for real nodes). The public port's bind
 * window is as long as the probe's deadline: a test that does not measure it never races it under load
 * (test/integration/edge-flip-public-bind.test.ts measures the default).
 */
export const FAST_TIMINGS = {
  applyReportMs: 20_000,
  healthDeadlineMs: 20_000,
  stabilityWindowMs: 500,
  recheckEveryMs: 300,
  probeDeadlineMs: 8_000,
  publicBindMs: 8_000,
};

/** Decides as an operator who looked first: the decision carries the evidence hash the runbook shows now. */
export async function decide(handle: WorkflowHandle, action: string, gate?: string, by = 'bob') {
  const { waiting } = await handle.query(statusQuery);
  return handle.executeUpdate(decideUpdate, {
    args: [{ action, gate, by, evidence: waiting?.evidence }],
  });
}

/** Asserts the decision was refused by the runbook's validator; returns the refusal's message. */
export async function decisionRefusal(decision: Promise<unknown>): Promise<string> {
  const error = await decision.then(
    () => assert.fail('the decision was accepted'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof WorkflowUpdateFailedError, `not an update failure: ${String(error)}`);
  return error.cause?.message ?? '';
}

/** Whether the container exists and runs. */
export async function isRunning(engine: DockerEngine, name: string): Promise<boolean> {
  return (await engine.inspect(name))?.State.Running === true;
}

/** Docker names of the module's containers on the node, whatever their state. */
export async function moduleContainers(
  engine: DockerEngine,
  node: string,
  module: string,
): Promise<string[]> {
  const found = await engine.listByLabels({ [LABEL.node]: node, [LABEL.module]: module });
  return found.flatMap((c) => c.Names);
}

/** The body of GET / at a 127.0.0.1 address. */
export async function httpBody(address: string): Promise<string> {
  return (await fetch(`${address}/`)).text();
}

/**
 * A runbook's final status as it ended itself: its result, or its failure's details. Nothing asks a worker,
 * which would replay the closed run's whole history for a query (timed out once at 35 s on a loaded machine).
 */
export async function endedStatus(handle: WorkflowHandle): Promise<RunbookStatus> {
  return handle.result().then(
    (result: unknown) => RunbookStatus.parse(result),
    (error: unknown) => {
      assert.ok(error instanceof WorkflowFailedError, `not a workflow failure: ${String(error)}`);
      return RunbookStatus.parse((error.cause as { details?: unknown[] } | undefined)?.details?.[0]);
    },
  );
}

/** Awaits a runbook that must fail; its failure's cause and its status queried after it closed. */
export async function closedFailing(
  handle: WorkflowHandle,
): Promise<{ cause: unknown; status: RunbookStatus }> {
  const error = await handle.result().then(
    () => assert.fail('the runbook completed'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof WorkflowFailedError, `not a workflow failure: ${String(error)}`);
  // A closed run's query replays its whole history on a worker: on a loaded machine it may time out once.
  return { cause: error.cause, status: await statusWhen(handle, () => true) };
}
