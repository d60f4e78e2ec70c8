import { OLDEST_SUPPORTED_REVISION } from '../workflows/runbook/revision';
import { REVISION_2_MARKER } from './retired-markers';
import { MESH_REVISION } from '../workflows/search-attributes';
import { visibilityString } from '../base/visibility-string';
import { RunNotFound, type RunInfo, type TemporalReads } from './temporal-reads/reads';

/** Temporal's own attribute: the patch ids a run's `patched()` calls found true (core upserts it). */
const CHANGE_VERSION = 'TemporalChangeVersion';
/** The workflow types revision 1 had; every other type began in revision 2. */
export const HAD_REVISION_1 = ['edgeFlip', 'dataPathMove'];

/** An open run and the revision it started on; `undefined`: no worker ran it yet, so it has none. */
export interface OpenRun {
  run: RunInfo;
  revision: number | undefined;
}

/** The revision its attributes say: MeshRevision, else 2 by revision 2's marker or a type revision 1 lacked. */
function revisionSaid(run: RunInfo): number | undefined {
  const said = run.searchAttributes[MESH_REVISION.name];
  if (typeof said === 'number') return said;
  const patches = run.searchAttributes[CHANGE_VERSION];
  if (Array.isArray(patches) && patches.includes(REVISION_2_MARKER)) return 2;
  return HAD_REVISION_1.includes(run.type) ? undefined : 2;
}

/**
 * The revision an open run started on: what its attributes say (revision 3 on: MeshRevision), else revision
 * 1 once a worker ran it at all. The visibility store may lag a run's first task, so a run it shows without
 * a revision is asked again of the run itself (describe reads the attributes as the run holds them).
 */
async function revisionOf(reads: TemporalReads, run: RunInfo): Promise<number | undefined> {
  const listed = revisionSaid(run);
  if (listed !== undefined) return listed;
  // Its first task is read before its attributes: a task completing between the two is then seen in both.
  if (!(await reads.hasRunAWorkflowTask(run.workflowId, run.runId))) return undefined;
  return revisionSaid(await reads.describe(run.workflowId, run.runId)) ?? 1;
}

/** The task queue's open runs with the revision each started on; `olderOnly`: only those that may be retired. */
export async function openRuns(
  reads: TemporalReads,
  taskQueue: string,
  olderOnly = false,
): Promise<OpenRun[]> {
  const older = `(${MESH_REVISION.name} < ${OLDEST_SUPPORTED_REVISION} OR ${MESH_REVISION.name} IS NULL)`;
  const query = [
    `ExecutionStatus = 'Running'`,
    `TaskQueue = ${visibilityString(taskQueue)}`,
    ...(olderOnly ? [older] : []),
  ].join(' AND ');
  const runs: OpenRun[] = [];
  for await (const run of reads.list(query, 1_000)) {
    // Ended since it was listed: it needs no worker any more.
    const revision = await revisionOf(reads, run).catch((error: unknown) => {
      if (error instanceof RunNotFound) return null;
      throw error;
    });
    if (revision !== null) runs.push({ run, revision });
  }
  return runs;
}

/** The open runs this code cannot replay: started on a revision older than the oldest it supports. */
export async function retiredRuns(reads: TemporalReads, taskQueue: string): Promise<OpenRun[]> {
  return (await openRuns(reads, taskQueue, true)).filter(
    (open) => open.revision !== undefined && open.revision < OLDEST_SUPPORTED_REVISION,
  );
}
