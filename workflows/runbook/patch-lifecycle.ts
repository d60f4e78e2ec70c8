import { FLEET_REPORTS } from './parent-report';
import * as R from './revision';

/**
 * Where each patch stands in its lifecycle (docs/production.md, "Versions and their retirement"):
 * - `everyRunFrom`: the first revision every run of which holds the patch's marker. Runs of older revisions
 *   may have taken the old branch, so while such a revision is supported the call stays `patched()`.
 * - `deprecatedIn`: the revision that turned the call into `deprecatePatch()` and removed the old branch and
 *   its recorded histories, once no supported revision lacked the marker.
 * A deprecated patch is removed (call, constant and row) once no supported run can hold its marker
 * undeprecated: `deprecatedIn` ≤ OLDEST_SUPPORTED_REVISION. test/unit/revision-lifecycle.test.ts checks the
 * code and test/histories/ against this table.
 */
export interface PatchStage {
  id: string;
  everyRunFrom: number;
  deprecatedIn?: number;
}

/** Every patch marker the workflows write, oldest first. */
export const PATCHES: readonly PatchStage[] = [
  // Added while revision 2 ran: its runs started before each one lack it. Deprecated once revision 2 left;
  // removed once revision 3 leaves.
  ...[
    R.OFFER_RECHECK,
    R.REMINDER_BACKOFF,
    R.QUICK_DEAD_WORKER,
    R.PARALLEL_READS,
    R.STATUS_IN_FAILURE,
    R.RECREATE_THROUGH_MESH,
    R.LIGHT_THE_EDGE_FIRST,
    R.NODE_HOSTS,
    R.TARGET_TRUTH,
    R.OLD_DATA_DRY_RUN,
    R.START_ON_NEW,
    R.UNDO_AFTER_WORK_STOPS,
    R.STALLED_WORK,
    R.LOCKS_ASKED_AGAIN,
    R.KEEPER_ASKS_RUNS,
    R.DURABLE_NODE_MARKS,
    R.CLEARANCE_CLEARS_MARK,
    R.MEMORY_PER_NODE,
    R.KEEP_WHEN_REMOVAL_REFUSED,
    R.MARKS_FOLLOW_RESETS,
    R.UNDO_JUDGES_OWN_MODULE,
    R.APPROVAL_WATCHES_SUCCESSOR,
    R.SUCCESSOR_RESTARTS_SINCE_CREATED,
    R.PREFLIGHT_REFUSAL_ENDS,
    R.GATES_WATCH_CONTAINERS,
    R.OLD_DATA_APPROVAL_WATCHES_USERS,
    R.FLEET_CONTINUE_AS_NEW,
    FLEET_REPORTS,
  ].map((id) => ({ id, everyRunFrom: 3, deprecatedIn: 4 })),
  // Revision 3's own: every revision-3 run that gets there has it.
  { id: R.FLEET_APPROVAL_EXPIRES, everyRunFrom: 3, deprecatedIn: 4 },
  // Revision 4's own.
  { id: R.TRUSTED_INPUT, everyRunFrom: 4 },
  { id: R.GIVE_UP_ENDS_UNWIND, everyRunFrom: 4 },
  { id: R.PREDECESSOR_BEFORE_SUCCESSOR, everyRunFrom: 4 },
  { id: R.REASKS_BACK_OFF, everyRunFrom: 4 },
  { id: R.FLEET_REPORTS_BOUNDED, everyRunFrom: 4 },
  { id: R.PUBLIC_BIND_WINDOW, everyRunFrom: 4 },
  { id: R.UNDO_PASSES_HUNG_WORK, everyRunFrom: 4 },
  { id: R.MOVE_FLEET_RESUMES, everyRunFrom: 4 },
  { id: R.ONLY_ACTION_WHEN_DOWN, everyRunFrom: 4 },
  { id: R.OLD_DATA_SHARED_WAITS, everyRunFrom: 4 },
  { id: R.TARGET_TRUTH_BEFORE_STOP, everyRunFrom: 4 },
];
