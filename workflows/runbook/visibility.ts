import { upsertSearchAttributes } from '@temporalio/workflow';
import type { RunbookStatus } from '../contracts';
import {
  MESH_KIND,
  MESH_MODULE,
  MESH_NODE,
  MESH_PHASE,
  MESH_REVISION,
  MESH_WAITING_ON,
} from '../search-attributes';
import { RUNBOOK_REVISION } from './revision';

/**
 * Keeps the runbook's search attributes in step with its status; upserts only what changed. The first upsert
 * also says the revision the run started on (an upsert's attributes are not compared on replay).
 */
export function searchAttributePublisher(): (status: RunbookStatus) => void {
  let published: { phase?: string; waitingOn?: string | null } | undefined;
  return (status) => {
    const waitingOn = status.waiting?.gate ?? null;
    if (!published) {
      upsertSearchAttributes([
        { key: MESH_NODE, value: status.node },
        { key: MESH_MODULE, value: status.module },
        { key: MESH_KIND, value: status.kind },
        { key: MESH_PHASE, value: status.phase },
        { key: MESH_REVISION, value: RUNBOOK_REVISION },
        ...(waitingOn ? [{ key: MESH_WAITING_ON, value: waitingOn }] : []),
      ]);
      published = { phase: status.phase, waitingOn };
      return;
    }
    if (published.phase === status.phase && published.waitingOn === waitingOn) return;
    upsertSearchAttributes([
      { key: MESH_PHASE, value: status.phase },
      { key: MESH_WAITING_ON, value: waitingOn },
    ]);
    published = { phase: status.phase, waitingOn };
  };
}
