import type { Command } from 'commander';
import { z } from 'zod';
import { Name } from '../../mesh/schemas';
import { OPERATOR_KINDS, type OperatorRegistry } from '../../cli/runbook/operator-kinds';
import { defineOperatorKind } from '../../cli/runbook/operator-kinds/operator-kind';
import { KINDS, type KindRegistry } from '../../workflows/kinds';
import type { PlanReport } from '../../workflows/plan-report';
import { defineKind } from '../../workflows/runbook/kind';
import { definePlan } from '../../workflows/runbook/plan';
import { LOCKS_STEP, preflightStep } from '../../workflows/runbook/step-declarations';

/**
 * A runbook kind that exists only in tests: registered in a registry of its own (the real kinds and it),
 * which the surfaces are handed as the CLI and the worker are handed the real one. Its planner is the
 * fixture's own answer; nothing of it runs on a node.
 */
export const FIXTURE_PLAN = definePlan({
  kind: 'fixture-kind',
  purpose: 'Turn a module inside out on a node, for the registry test.',
  steps: [
    LOCKS_STEP,
    preflightStep('the module is assigned to the node'),
    { name: 'turn-inside-out', kind: 'action', does: 'turn the module inside out' },
    {
      name: 'approve-fixture-turn',
      kind: 'approval',
      does: 'wait for a yes before the module stays inside out',
      actions: ['approve', 'abort'],
      fourEyes: true,
    },
  ],
});

export const FixtureInput = z.strictObject({ node: Name, module: Name, startedBy: z.string().min(1) });

export const FIXTURE_KIND = defineKind({
  kind: 'fixture-kind',
  plan: FIXTURE_PLAN,
  input: FixtureInput,
  workflowType: 'fixtureKind',
  describe: (i) => ({
    summary: `fixture-kind on ${i.node}: ${i.module} inside out (started by ${i.startedBy})`,
    parameters: [`**module:** ${i.module}`],
  }),
  locks: ({ node, module }) => ({ nodes: [node], modules: [module], what: `fixture-kind of ${module}` }),
  fleet: {
    workflowType: 'fixtureKindFleet',
    locks: ({ module }) => ({ nodes: [], modules: [module], what: `fixture-kind fleet of ${module}` }),
  },
});

export const FIXTURE_REGISTRY: KindRegistry = [...KINDS, FIXTURE_KIND];

/** What the fixture's planner was asked, in order. */
export const planned: z.output<typeof FixtureInput>[] = [];

export const FIXTURE_OPERATOR = defineOperatorKind({
  descriptor: FIXTURE_KIND,
  registerStart: (start: Command) =>
    start
      .command('fixture-kind')
      .description('turn a module inside out (a test fixture)')
      .requiredOption('--node <node>', 'the node')
      .requiredOption('--module <module>', 'the module'),
  registerPlan: (plan, show) => {
    plan
      .command('fixture-kind')
      .requiredOption('--node <node>', 'the node')
      .requiredOption('--module <module>', 'the module')
      .option('--json', 'one JSON document')
      .action((options: { node: string; module: string; json?: boolean }) =>
        show({ node: options.node, module: options.module, startedBy: 'alice' }, options.json ?? false),
      );
  },
  planner: () => async (_reader, input) => {
    planned.push(input);
    return fixtureReport(input);
  },
});

export const FIXTURE_OPERATORS: OperatorRegistry = [...OPERATOR_KINDS, FIXTURE_OPERATOR];

/** The fixture planner's answer: every step runs, the approval waits (exit 3). */
function fixtureReport(input: z.output<typeof FixtureInput>): PlanReport {
  const report = {
    version: 1,
    kind: 'fixture-kind',
    node: input.node,
    module: input.module,
    nodes: [input.node],
    moduleNodes: [input.node],
    outcome: 'decision',
    exitCode: 3,
    refusals: [],
    holds: [],
    unrecreated: [],
    pathUsers: [],
    steps: FIXTURE_PLAN.steps.map((step) => ({
      name: step.name,
      kind: step.kind,
      does: step.does,
      when: null,
      predicted: step.kind === 'approval' ? 'asks' : 'runs',
      because: 'the fixture says so',
    })),
    decisions: [],
    notChecked: [],
  };
  // The report's kind is a real kind's name in PlanReport's type; this one exists in tests only.
  return report as unknown as PlanReport;
}
