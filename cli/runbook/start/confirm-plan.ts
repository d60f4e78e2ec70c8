import { createInterface } from 'node:readline/promises';
import type { PlanReport } from '../../../workflows/plan-report';
import { UsageError } from '../../errors';
import { errorColour } from '../../output';
import { load } from '../lazy';

export interface ConfirmOptions {
  /** Start without asking. */
  yes: boolean;
  json: boolean;
  /** Only what the plan refuses, not its lines (a fleet's plan of every node at once). */
  quiet?: boolean;
  /** The question on a terminal, instead of `start <kind> on <node>?`. */
  question?: string;
  /** A move fleet's nodes, planned as the fleet moves them (a node on B already is left out). */
  asFleet?: boolean;
}

/**
 * Before a start: the runbook's plan from the node as it is (see `mesh runbook plan`), shown, and on a
 * terminal one question, unless --yes. Without a terminal nothing is asked. A plan that cannot be made (the
 * node cannot be read) is a note, not a refusal: the runbook's own preflight still checks the node; an input
 * its kind's schema refuses is refused here. Returns the plan, if any.
 */
export async function showPlanAndConfirm(
  kind: string,
  input: unknown,
  options: ConfirmOptions,
): Promise<PlanReport | null> {
  const asking = !options.yes && Boolean(process.stdin.isTTY);
  const plan = await planOrNote(kind, input, options.asFleet ?? false);
  if (plan?.outcome === 'refused') throw refusedByPlan([plan]);
  if (plan && !options.quiet) {
    const { planAsLines } = load.plan();
    // stdout is for JSON under --json: the plan is in the `started` document, and shown on stderr to ask.
    const out = options.json ? (asking ? process.stderr : undefined) : process.stdout;
    out?.write(`${planAsLines(plan).join('\n')}\n\n`);
  }
  const question = options.question ?? `start ${kind} on ${(input as { node: string }).node}? [y/N] `;
  if (asking && !(await yes(question)))
    throw new UsageError(
      'Not started: the answer was not yes.',
      'Run the same command with --yes to start without asking.',
    );
  return plan;
}

/**
 * Before a fleet's start: each node's plan, shown as its outcome and the decisions to expect there, then
 * one question on a terminal for the whole fleet (unless --yes). Without a terminal nothing is asked.
 * Returns each node's plan, by node.
 */
export async function showFleetPlansAndConfirm(
  inputs: { node: string }[],
  module: string,
  options: ConfirmOptions,
): Promise<Map<string, PlanReport>> {
  const asking = !options.yes && Boolean(process.stdin.isTTY);
  const out = options.json ? (asking ? process.stderr : undefined) : process.stdout;
  const plans = new Map<string, PlanReport>();
  for (const input of inputs) {
    const plan = await planOrNote('edge-flip', input);
    if (!plan) continue;
    plans.set(input.node, plan);
  }
  const refused = [...plans.values()].filter((plan) => plan.outcome === 'refused');
  if (refused.length > 0) throw refusedByPlan(refused);
  for (const plan of plans.values()) out?.write(`${load.plan().nodeOutcomeLines(plan).join('\n')}\n`);
  const nodes = inputs.map((input) => input.node).join(', ');
  if (asking && !(await yes(`\nstart the edge-flip fleet of ${module} on ${nodes}? [y/N] `)))
    throw new UsageError(
      'Not started: the answer was not yes.',
      'Run the same command with --yes to start without asking.',
    );
  return plans;
}

/**
 * What the runbook's own preflight would refuse is refused here, with the plan's sentences: nothing is
 * started, no lock is taken (exit 2), instead of a runbook waiting at preflight.
 */
function refusedByPlan(plans: PlanReport[]): UsageError {
  const [first] = plans;
  const where = plans.map((plan) => `${plan.node}: ${plan.refusals.map(asClause).join('; ')}`).join('; ');
  const again =
    plans.length === 1 ? `mesh runbook plan ${first?.kind ?? ''} with the same options` : 'mesh runbook plan';
  return new UsageError(
    `Not started: preflight would refuse ${first?.kind ?? 'the runbook'} of ${first?.module ?? 'the module'} on ${where}.`,
    `Fix the node, then start again; \`${again}\` shows the same without starting anything.`,
  );
}

/** A refusal's sentence as a clause of a longer one: its capital lowered and its full stop dropped. */
function asClause(sentence: string): string {
  const clause = sentence.replace(/\.$/, '');
  return /^[A-Z][a-z]/.test(clause) ? `${clause[0]?.toLowerCase()}${clause.slice(1)}` : clause;
}

async function planOrNote(kind: string, input: unknown, asFleet = false): Promise<PlanReport | null> {
  const { planFor, UnplannableInput } = load.plan();
  try {
    return await planFor(kind, input, { asFleet });
  } catch (error) {
    if (error instanceof UnplannableInput) throw error;
    const why = error instanceof Error ? error.message : String(error);
    process.stderr.write(
      `${errorColour.yellow('note:')} no plan could be made (${why}); the runbook's preflight still checks the node.\n`,
    );
    return null;
  }
}

/** One question on the terminal; only `y` or `yes` is yes, Ctrl-C is no. */
async function yes(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  const ctrlC = new AbortController();
  prompt.on('SIGINT', () => ctrlC.abort());
  try {
    const answer = await prompt.question(question, { signal: ctrlC.signal });
    return /^y(es)?$/i.test(answer.trim());
  } catch (error) {
    if (ctrlC.signal.aborted) return false;
    throw error;
  } finally {
    prompt.close();
  }
}
