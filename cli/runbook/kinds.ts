import { userInfo } from 'node:os';
import { runbookWorkflowId } from '../../workflows/contracts';
import {
  KINDS,
  kindOfWorkflowType,
  RUNBOOK_KINDS,
  runbookWorkflowTypes,
  type KindRegistry,
} from '../../workflows/kinds';
import { Name } from '../../mesh/schemas';
import { UsageError } from '../errors';

export { kindOfWorkflowType, runbookWorkflowTypes };

/** The visibility query for every runbook on one task queue. */
export function runbooksQuery(taskQueue: string, registry: KindRegistry = KINDS): string {
  const types = runbookWorkflowTypes(registry)
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

/** `edge-flip and data-path-move`: the kinds as a sentence names them. */
export function kindList(kinds: readonly string[] = RUNBOOK_KINDS, and = 'and'): string {
  return kinds.length <= 1 ? kinds.join('') : `${kinds.slice(0, -1).join(', ')} ${and} ${kinds.at(-1)}`;
}
