import { defaultPayloadConverter } from '@temporalio/common';
import type { History } from '@temporalio/common/lib/proto-utils';
import { REVISION_2_MARKER } from '../../client/retired-markers';
import { HAD_REVISION_1 } from '../../client/revision-runs';
import { MESH_REVISION } from '../../workflows/search-attributes';

/** The patch ids of a history's patch markers. */
export function patchIds(history: History): string[] {
  return (history.events ?? []).flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') return [];
    const payload = marker.details?.['patch-data']?.payloads?.[0];
    const data = payload ? defaultPayloadConverter.fromPayload<{ id?: string }>(payload) : undefined;
    return data?.id ? [data.id] : [];
  });
}

/**
 * The revision a recorded run started on: what its MeshRevision says (its first upsert, or the attributes it
 * started with), else 2 when it holds revision 2's marker or is of a type revision 1 did not have, else 1.
 */
export function revisionOf(history: History): number {
  const events = history.events ?? [];
  for (const event of events) {
    const fields =
      event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ??
      event.workflowExecutionStartedEventAttributes?.searchAttributes?.indexedFields;
    const said = fields?.[MESH_REVISION.name];
    if (said) return Number(defaultPayloadConverter.fromPayload<number>(said));
  }
  const type = events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '';
  return HAD_REVISION_1.includes(type) && !patchIds(history).includes(REVISION_2_MARKER) ? 1 : 2;
}
