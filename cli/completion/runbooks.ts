import { setTimeout as delay } from 'node:timers/promises';
import { TemporalReads } from '../../client/temporal-reads/reads';
import { temporalConnection, unreachable } from '../../worker/connection';
import { runbookWorkflowId } from '../../workflows/contracts';
import { MESH_NODE } from '../../workflows/search-attributes';
import { effectiveConfig } from '../config-command';
import { runbooksQuery } from '../runbook/kinds';
import { taskQueueFromEnv } from '../runbook/options';

/** How long a completion may ask Temporal in all: a shell waits for it at the Tab key. */
export const ASK_BUDGET_MS = 1_500;

/** The budget: MESH_COMPLETION_WAIT_MS (milliseconds, for a slow link or a loaded machine), else ASK_BUDGET_MS. */
export function askBudgetMs(env: NodeJS.ProcessEnv = process.env): number {
  const asked = Number(env.MESH_COMPLETION_WAIT_MS);
  return Number.isInteger(asked) && asked > 0 ? asked : ASK_BUDGET_MS;
}
/** The most runbooks offered: the newest. */
const MOST = 200;

/** The runbooks on the task queue, newest first, each once: `<id> <node>` (a fleet: its id alone). */
async function runbookLines(budgetMs: number): Promise<string[]> {
  const { options, namespace } = temporalConnection(effectiveConfig());
  if (!options.tls && (await unreachable(options))) return [];
  const reads = new TemporalReads(options, namespace);
  const lines = new Map<string, string>();
  try {
    for await (const info of reads.list(runbooksQuery(taskQueueFromEnv()), MOST, budgetMs)) {
      const attribute = info.searchAttributes[MESH_NODE.name];
      const prefix = runbookWorkflowId('');
      const node =
        typeof attribute === 'string'
          ? attribute
          : info.workflowId.startsWith(prefix)
            ? info.workflowId.slice(prefix.length)
            : '';
      if (!lines.has(info.workflowId)) lines.set(info.workflowId, `${info.workflowId} ${node}`.trimEnd());
      if (lines.size >= MOST) break;
    }
  } finally {
    reads.close();
  }
  return [...lines.values()];
}

/**
 * What a completion offers for a runbook id or a node, asked of Temporal within `budgetMs`: nothing when
 * it does not answer in time, is not configured or refuses (a completion never hangs a shell or says why).
 */
export async function runbookCompletions(budgetMs = askBudgetMs()): Promise<string[]> {
  const late = new AbortController();
  try {
    return await Promise.race([
      runbookLines(budgetMs).catch(() => []),
      delay(budgetMs, [], { signal: late.signal }),
    ]);
  } finally {
    late.abort();
  }
}
