import { userInfo } from 'node:os';
import { RUNBOOK_KINDS, runbookWorkflowId, type RunbookKind } from '../../workflows/contracts';
import { FLEET_WORKFLOW_TYPES } from '../../workflows/fleet/contracts';
import { Name } from '../../mesh/schemas';
import { UsageError } from '../errors';

type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

/** A kind's workflow type is the workflow function's name: the kind in camelCase (edge-flip → edgeFlip). */
export function workflowTypeOf<K extends RunbookKind>(kind: K): CamelCase<K> {
  return kind.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase()) as CamelCase<K>;
}

/** The kind of runbook a workflow type runs: its own, or for a fleet the kind each of its nodes runs. */
export function kindOfWorkflowType(type: string): RunbookKind | undefined {
  return (
    RUNBOOK_KINDS.find((kind) => workflowTypeOf(kind) === type) ??
    (FLEET_WORKFLOW_TYPES as Record<string, RunbookKind>)[type]
  );
}

/** Every workflow type that is a runbook: each kind's, and each fleet's. */
export function runbookWorkflowTypes(): string[] {
  return [...RUNBOOK_KINDS.map(workflowTypeOf), ...Object.keys(FLEET_WORKFLOW_TYPES)];
}

/** The visibility query for every runbook on one task queue. */
export function runbooksQuery(taskQueue: string): string {
  const types = runbookWorkflowTypes()
    .map((type) => `'${type}'`)
    .join(', ');
  return `WorkflowType IN (${types}) AND TaskQueue = '${taskQueue.replace(/'/g, "\\'")}'`;
}

const ID_PREFIX = runbookWorkflowId('');

/** A runbook id (`runbook-novox`) as given, or a bare node name (`novox`) turned into its runbook's id. */
export function resolveRunbookId(given: string): string {
  const node = given.startsWith(ID_PREFIX) ? given.slice(ID_PREFIX.length) : given;
  if (Name.safeParse(node).success) return runbookWorkflowId(node);
  throw new UsageError(
    `"${given}" is neither a runbook id (${runbookWorkflowId('<node>')}) nor a node name.`,
    'See the runbooks and their ids with `mesh runbook list`.',
  );
}

/** Who the operator is: `--as`, else the OS user. */
export function operator(as: string | undefined): string {
  if (as !== undefined) return as;
  try {
    return userInfo().username;
  } catch {
    return process.env.USER || process.env.LOGNAME || 'unknown';
  }
}

export function kindList(kinds: readonly string[] = RUNBOOK_KINDS): string {
  return kinds.length <= 1 ? kinds.join('') : `${kinds.slice(0, -1).join(', ')} and ${kinds.at(-1)}`;
}
