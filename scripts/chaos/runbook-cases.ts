import type { WorkflowHandle } from '@temporalio/client';
import { dataPathMove, edgeFlip } from '../../workflows';
import { moveInput, seedForge } from '../../test/support/data-move';
import { seedEdgeFlip } from '../../test/support/edge-flip-seed';
import type { RunbookWorld } from '../../test/support/runbook-world';
import { dataPathMoveAnswer, edgeFlipAnswer, type Answer } from './drive';

/**
 * The tests' short timings, with room for a loaded machine: a report or a health check that is late under
 * load must not read as a fault the suite injected.
 */
export const CHAOS_TIMINGS = { applyReportMs: 120_000, healthDeadlineMs: 120_000, probeDeadlineMs: 60_000 };

/** A runbook the experiments run: how to seed its node and start it, and how the operator answers it. */
export interface RunbookCase {
  kind: 'edge-flip' | 'data-path-move';
  answer: Answer;
  /** Seeds a fresh node of the world; `start` then starts the runbook on it. */
  seed(world: RunbookWorld): Promise<{ node: string; start: () => Promise<WorkflowHandle> }>;
}

/** The edge-flip incident: leftovers held until take, then the approval before the predecessor stops. */
export const EDGE_FLIP: RunbookCase = {
  kind: 'edge-flip',
  answer: edgeFlipAnswer,
  async seed(world) {
    const input = await seedEdgeFlip(world, { leftovers: true });
    return {
      node: input.node,
      start: () => world.start(edgeFlip, { ...input, timings: { ...input.timings, ...CHAOS_TIMINGS } }),
    };
  },
};

/** The forge incident: a recreate on the new path at the gate, then keep the old data. */
export const DATA_PATH_MOVE: RunbookCase = {
  kind: 'data-path-move',
  answer: dataPathMoveAnswer,
  async seed(world) {
    const forge = await seedForge(world);
    return { node: forge.node, start: () => world.start(dataPathMove, moveInput(forge, {}, CHAOS_TIMINGS)) };
  },
};

export const RUNBOOK_CASES = [EDGE_FLIP, DATA_PATH_MOVE];
