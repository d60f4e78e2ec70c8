import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common/lib/search-attributes';

/**
 * The runbook's custom search attributes: what the Web UI's list and `mesh runbook list` filter on.
 * Registered by `mesh runbook dev` and the test harness; on a production cluster with
 * `temporal operator search-attribute create` (see docs/operators.md, "In the Temporal Web UI"). None is called `Status`, which Temporal owns.
 */
export const MESH_NODE = defineSearchAttributeKey('MeshNode', SearchAttributeType.KEYWORD);
export const MESH_MODULE = defineSearchAttributeKey('MeshModule', SearchAttributeType.KEYWORD);
export const MESH_KIND = defineSearchAttributeKey('MeshKind', SearchAttributeType.KEYWORD);
/** running | waiting | completed | rolled-back | aborted | failed */
export const MESH_PHASE = defineSearchAttributeKey('MeshPhase', SearchAttributeType.KEYWORD);
/** The gate a runbook waits at; unset while it does not wait for a decision. */
export const MESH_WAITING_ON = defineSearchAttributeKey('MeshWaitingOn', SearchAttributeType.KEYWORD);
/**
 * The workflow code revision a run started on (workflows/runbook/revision.ts); unset on runs started before
 * revision 3, which did not say.
 */
export const MESH_REVISION = defineSearchAttributeKey('MeshRevision', SearchAttributeType.INT);

export const MESH_SEARCH_ATTRIBUTES = [
  MESH_NODE,
  MESH_MODULE,
  MESH_KIND,
  MESH_PHASE,
  MESH_WAITING_ON,
  MESH_REVISION,
];

/** The type's name as `temporal operator search-attribute create --type` and `start-dev` take it. */
export function searchAttributeTypeName(key: { type: string }): string {
  return key.type === SearchAttributeType.INT ? 'Int' : 'Keyword';
}

/** `Name=Type` pairs for `temporal server start-dev --search-attribute` and the operator command. */
export function searchAttributeFlags(): string[] {
  return MESH_SEARCH_ATTRIBUTES.flatMap((key) => [
    '--search-attribute',
    `${key.name}=${searchAttributeTypeName(key)}`,
  ]);
}

/** The visibility query for every runbook waiting for a decision, as typed into the Web UI's list. */
export const WAITING_QUERY = `${MESH_WAITING_ON.name} IS NOT NULL AND ExecutionStatus = 'Running'`;
