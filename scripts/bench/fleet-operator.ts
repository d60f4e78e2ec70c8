import type { Client } from '@temporalio/client';
import { runbookWorkflowId } from '../../workflows/contracts';
import { WAVES_GATE } from '../../workflows/fleet/contracts';
import { decideAt, edgeFlipAnswer, statusOf, UnexpectedWait, waitsAsTheyStart } from './decisions';

/** One decision the operator gave: on which runbook, at which gate, what. */
export interface OperatorDecision {
  runbook: string;
  gate: string;
  verdict: string;
  action: string;
}

/**
 * Answers a fleet's waits as an operator watching it would, as `by` (not the starter: four eyes), until
 * every run of the fleet's id has closed: the fleet's own approve-waves on the fleet; a wait for a node on
 * that node's own runbook (where the fleet says to decide it). Throws UnexpectedWait at anything else;
 * `decisions` holds what it gave so far, also when it throws.
 */
export async function operateFleet(
  client: Client,
  fleetId: string,
  by: string,
  decisions: OperatorDecision[] = [],
): Promise<OperatorDecision[]> {
  const fleet = client.workflow.getHandle(fleetId);
  // A run that continued as new is followed into the next one.
  do
    for await (const { gate } of waitsAsTheyStart(client, fleetId)) {
      const waiting = (await statusOf(fleet)).waiting;
      if (!waiting || waiting.gate !== gate) continue;
      const on = gate === WAVES_GATE ? fleet : client.workflow.getHandle(runbookWorkflowId(gate));
      const own = gate === WAVES_GATE ? waiting : (await statusOf(on)).waiting;
      if (!own) continue;
      const action = edgeFlipAnswer(own);
      if (action === undefined) throw new UnexpectedWait(own);
      await decideAt(on, own, action, by);
      decisions.push({ runbook: on.workflowId, gate: own.gate, verdict: own.verdict, action });
    }
  while ((await fleet.describe()).status.name === 'RUNNING');
  return decisions;
}
