import type { Phase } from '../../../workflows/contracts';
import { MESH_NODE, MESH_PHASE, WAITING_QUERY } from '../../../workflows/search-attributes';
import { CLEARANCE_TYPE } from '../../../workflows/clearance-names';
import { NODE_MARK_TYPE } from '../../../workflows/node-mark-contracts';
import { KINDS, runbookWorkflowTypes, type KindRegistry } from '../../../workflows/kinds';
import { visibilityString } from '../../../base/visibility-string';

export interface ListFilters {
  node?: string | undefined;
  phase?: Phase | undefined;
  /** Only runbooks waiting for a decision now. */
  waiting?: boolean | undefined;
}

/**
 * A phase as a visibility clause. A runbook that waits or runs is an open execution (a terminated one keeps
 * its last MeshPhase); one closed from outside the runbook (terminated, timed out) never said it failed, but
 * is failed all the same, as `status` reports it.
 */
function phaseClause(phase: Phase): string {
  const said = `${MESH_PHASE.name} = ${visibilityString(phase)}`;
  if (phase === 'running' || phase === 'waiting') return `${said} AND ExecutionStatus = 'Running'`;
  if (phase === 'failed') return `(${said} OR ExecutionStatus IN ('Terminated', 'TimedOut'))`;
  return said;
}

/**
 * Every run under a node's runbook id on one task queue: its runbooks and its clearances, and the nodes'
 * open marks (a node left by a runbook that did not end cleanly is listed even after that run is gone).
 */
export function nodeRunsQuery(taskQueue: string, registry: KindRegistry = KINDS): string {
  const types = [...runbookWorkflowTypes(registry), CLEARANCE_TYPE].map((type) => `'${type}'`).join(', ');
  const openMarks = `(WorkflowType = '${NODE_MARK_TYPE}' AND ExecutionStatus = 'Running')`;
  return `(WorkflowType IN (${types}) OR ${openMarks}) AND TaskQueue = ${visibilityString(taskQueue)}`;
}

/** The visibility query for `mesh runbook list`: every runbook and clearance on the task queue, filters ANDed. */
export function listQuery(taskQueue: string, filters: ListFilters, registry: KindRegistry = KINDS): string {
  return [
    nodeRunsQuery(taskQueue, registry),
    ...(filters.node !== undefined ? [`${MESH_NODE.name} = ${visibilityString(filters.node)}`] : []),
    ...(filters.phase !== undefined ? [phaseClause(filters.phase)] : []),
    ...(filters.waiting ? [WAITING_QUERY] : []),
  ].join(' AND ');
}
