import { setTimeout as sleep } from 'node:timers/promises';
import { getClient } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import { carrierOf, heldBy, inFlightSentence, isLeft, leftSentence, readNodeMark } from './node-marks';
import { markSourceOf } from './node-marks-sdk';
import type { RunRef } from '../../workflows/lock-hold';
import { CLEARANCE_TYPE } from '../../workflows/clearance-names';
import { visibilityString } from '../../base/visibility-string';
import { runbookWorkflowId } from '../../workflows/contracts';
import { nodeMarkId, type Clearance, type RunState } from '../../workflows/node-mark-contracts';
import { heartbeat } from '../../base/activity-heartbeat';

const POLL_MS = 200;
/** How long a clearance is looked for: the list of runs is eventually consistent, its latest run is not. */
const CLEARANCE_SEEN_MS = 5_000;
/** How long a check waits for a mark whose runbook ended cleanly to close before it calls the node busy. */
const GOING_WAIT_MS = 30_000;

/** The nodes' durable marks (workflows/node-mark.ts), read through the worker's own Temporal client. */
export function createMarkActivities() {
  return {
    /**
     * Each node left marked by a run other than `self` that did not end cleanly, or still being changed by
     * another run, with the sentence that says so. A mark whose runbook ended cleanly is waited for: it goes.
     */
    async nodesNeedingClearing(input: {
      nodes: string[];
      self: RunRef;
    }): Promise<{ node: string; sentence: string }[]> {
      const source = markSourceOf(getClient());
      const refusals: { node: string; sentence: string }[] = [];
      for (const node of input.nodes) {
        let reading = await readNodeMark(source, node);
        for (
          const deadline = Date.now() + GOING_WAIT_MS;
          reading.kind === 'going' && Date.now() < deadline;
        ) {
          heartbeat();
          await sleep(POLL_MS);
          reading = await readNodeMark(source, node);
        }
        if (isLeft(reading)) refusals.push({ node, sentence: leftSentence(reading) });
        else if (reading.kind === 'in-flight') {
          if (!heldBy(reading, input.self)) refusals.push({ node, sentence: inFlightSentence(reading) });
        } else if (reading.kind === 'going')
          refusals.push({
            node,
            sentence: `${node}'s mark (${nodeMarkId(node)}) says its runbook ended cleanly but has not closed in ${GOING_WAIT_MS / 1000} s; is a worker running on its task queue?`,
          });
      }
      return refusals;
    },

    /**
     * Whether a clearance of `node` with these words ran: a run of `clearNode` under the node's runbook id,
     * started by mesh runbook clear (or any client), whose result is this clearance. A clear-mark signal
     * from anyone else names none, and the mark stays.
     */
    async clearanceOf(input: { node: string } & Clearance): Promise<boolean> {
      const client = getClient();
      const workflowId = runbookWorkflowId(input.node);
      const query = `WorkflowId = ${visibilityString(workflowId)} AND WorkflowType = ${visibilityString(CLEARANCE_TYPE)}`;
      for (const deadline = Date.now() + CLEARANCE_SEEN_MS; ;) {
        const latest = await client.workflow
          .getHandle(workflowId)
          .describe()
          .catch((error: unknown) => {
            if (error instanceof WorkflowNotFoundError) return undefined;
            throw error;
          });
        const runIds = latest ? [latest.runId] : [];
        for await (const run of client.workflow.list({ query })) runIds.push(run.runId);
        for (const runId of new Set(runIds)) {
          heartbeat();
          const handle = client.workflow.getHandle(workflowId, runId);
          if ((await handle.describe()).type !== CLEARANCE_TYPE) continue;
          const said = (await handle.result().catch(() => undefined)) as Clearance | undefined;
          if (said?.by === input.by && said.reason === input.reason && said.at === input.at) return true;
        }
        if (Date.now() > deadline) return false;
        await sleep(1_000);
      }
    },

    /** Whether `node`'s open mark is held by `self`: it marked the node, or a reset carried that run on to it. */
    async markHeldBy(input: { node: string; self: RunRef }): Promise<boolean> {
      const reading = await readNodeMark(markSourceOf(getClient()), input.node);
      return reading.kind !== 'none' && heldBy(reading, input.self);
    },

    /**
     * How a run stands, followed through the resets that carried it on (carrierOf), waiting up to `waitMs`
     * for it to close: a mark told its runbook ends reads this.
     */
    async runEnding(input: RunRef & { waitMs: number }): Promise<RunState> {
      const source = markSourceOf(getClient());
      const deadline = Date.now() + input.waitMs;
      for (;;) {
        const { state } = await carrierOf(source, input);
        if (state.state !== 'running' || Date.now() >= deadline) return state;
        heartbeat();
        await sleep(POLL_MS);
      }
    },
  };
}
