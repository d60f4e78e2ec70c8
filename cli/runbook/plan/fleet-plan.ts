import { fleetOrderLine, fleetRulesLine } from '../../../client/start-fleet';
import type { FleetPlanReport, PlanReport } from '../../../workflows/plan-report';
import { printJson, printLine } from '../../output';
import { forTerminal } from '../../terminal-text';
import type { EdgeFlipOptions } from '../start/edge-flip-input';
import { fleetInputFromMesh } from '../start/fleet-input';
import type { FleetOptions } from '../start/fleet-options';
import { nodeOutcomeLines, planFor } from './run-plan';

/**
 * `mesh runbook plan edge-flip --nodes a,b,c` (or `--all-nodes-with`): the fleet resolved and checked as
 * `start` does, then each node's plan, shown as `start` shows it before a fleet starts: its outcome, its
 * refusals and the decisions to expect there. Starts nothing.
 */
export async function printFleetPlan(
  options: Omit<EdgeFlipOptions, 'node'> & FleetOptions,
  startedBy: string,
  json: boolean,
): Promise<void> {
  const input = await fleetInputFromMesh(options, startedBy);
  const plans: PlanReport[] = [];
  const unplanned: FleetPlanReport['unplanned'] = [];
  for (const runbook of input.runbooks)
    await planFor('edge-flip', runbook).then(
      (plan) => plans.push(plan),
      (error: unknown) =>
        unplanned.push({
          node: runbook.node,
          problem: error instanceof Error ? error.message : String(error),
        }),
    );
  const report: FleetPlanReport = {
    version: 1,
    kind: 'edge-flip',
    module: input.module,
    fleet: fleetOrderLine(input),
    rules: fleetRulesLine(input),
    nodes: input.runbooks.map((runbook) => runbook.node),
    exitCode: worst(plans, unplanned.length > 0),
    plans,
    unplanned,
  };
  if (json) printJson(report);
  else {
    const shown = forTerminal(report);
    printLine(`plan: edge-flip fleet of ${shown.module}: ${shown.fleet} (exit ${shown.exitCode})`);
    printLine(`rules: ${shown.rules}`);
    for (const plan of shown.plans) nodeOutcomeLines(plan).forEach((line) => printLine(line));
    for (const { node, problem } of shown.unplanned) printLine(`${node}: no plan could be made (${problem})`);
    printLine('');
    printLine('Each node in full: `mesh runbook plan edge-flip --node <node>` with the same options.');
  }
  process.exitCode = report.exitCode;
}

/** A node that could not be planned (1), else one preflight would refuse (2), else one that waits (3). */
function worst(plans: PlanReport[], anyUnplanned: boolean): FleetPlanReport['exitCode'] {
  if (anyUnplanned) return 1;
  for (const code of [2, 3] as const) if (plans.some((plan) => plan.exitCode === code)) return code;
  return 0;
}
