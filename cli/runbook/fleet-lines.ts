import { STEP_STATES, type RunbookStatus, type Step, type StepState } from '../../workflows/contracts';
import { FLEET_NODE } from '../../workflows/fleet/contracts';
import { colour } from '../output';

/** A fleet with more nodes than this lists its nodes in need first, the others counted. */
export const FLEET_LINES = 20;

/** What an operator looks at first: nodes waiting, then those that ended badly, then those running. */
const FIRST: readonly StepState[] = ['waiting', 'failed', 'compensated', 'running'];

/**
 * A big fleet's steps (its nodes): a count per state, then the nodes waiting, failed, rolled back or running
 * (at most FLEET_LINES), then how many are left out. Undefined for a runbook or a fleet small enough to list.
 */
export function bigFleetSteps(
  status: RunbookStatus,
): { counts: string; shown: Step[]; left: string } | undefined {
  if (status.node !== FLEET_NODE || status.steps.length <= FLEET_LINES) return undefined;
  const counts = STEP_STATES.flatMap((state) => {
    const n = status.steps.filter((step) => step.state === state).length;
    return n > 0 ? [`${n} ${state}`] : [];
  }).join(', ');
  const inNeed = FIRST.flatMap((state) => status.steps.filter((step) => step.state === state));
  const shown = inNeed.slice(0, FLEET_LINES);
  const leftOut = status.steps.length - shown.length;
  const left = `${leftOut} more not listed (\`mesh runbook status ${status.id} --json\` has every node)`;
  return { counts: `${status.steps.length} steps: ${counts}`, shown, left };
}

export function bigFleetLines(
  big: NonNullable<ReturnType<typeof bigFleetSteps>>,
  line: (step: Step) => string,
): string[] {
  return [`  ${big.counts}`, ...big.shown.map((step) => `  ${line(step)}`), colour.dim(`  … ${big.left}`)];
}
