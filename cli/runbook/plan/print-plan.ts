import { printJson, printLine } from '../../output';
import { forTerminal } from '../../terminal-text';
import { load } from '../lazy';
import type { OperatorRegistry } from '../operator-kinds';

export const EXIT_CODES =
  '\nExit codes: 0 every gate is predicted ok, 3 a gate is predicted to wait for a decision, 2 preflight would refuse the runbook (or bad input), 1 the plan could not be made; a fleet: the worst of its nodes.\n' +
  '--json prints the plan as one document (client/plan, schema PlanReport in workflows/plan-report.ts).';

/** `mesh runbook plan <kind>`: the kind's plan of this input, printed; the exit code says what it predicts. */
export async function printPlan(
  kind: string,
  input: unknown,
  json: boolean,
  registry?: OperatorRegistry,
): Promise<void> {
  const { planFor, planAsLines } = load.plan();
  const report = await planFor(kind, input, { registry });
  if (json) printJson(report);
  else for (const line of planAsLines(forTerminal(report))) printLine(line);
  process.exitCode = report.exitCode;
}
