import { markSourceOf } from '../../../activities/runbook/node-marks-sdk';
import {
  inFlightSentence,
  isLeft,
  leftSentence,
  leftSuggestion,
  readNodeMark,
} from '../../../activities/runbook/node-marks';
import { UsageError } from '../../errors';
import type { RunbookClient } from '../client';

/**
 * `start` on a node left marked by a runbook that did not end cleanly, or being changed by another run: refused
 * here, nothing starts and nothing is recorded (the runbook refuses itself too, NodeNeedsClearing).
 */
export async function refuseMarkedNodes(rb: RunbookClient, nodes: readonly string[]): Promise<void> {
  const source = markSourceOf(rb.client);
  for (const node of new Set(nodes)) {
    const reading = await readNodeMark(source, node);
    if (isLeft(reading)) throw new UsageError(leftSentence(reading), leftSuggestion(reading));
    if (reading.kind === 'in-flight')
      throw new UsageError(
        inFlightSentence(reading),
        `Start this runbook once ${reading.mark.by.workflowId} has ended.`,
      );
  }
}
