import { retiredRuns } from '../../../client/revision-runs';
import { TemporalReads } from '../../../client/temporal-reads/reads';
import type { TemporalConnectionOptions } from '../../../config';
import { OLDEST_SUPPORTED_REVISION, RUNBOOK_REVISION } from '../../../workflows/runbook/revision';
import { MESH_REVISION } from '../../../workflows/search-attributes';
import { UsageError } from '../../errors';

/**
 * Refuses to start a worker that cannot replay a run open on its queue: one started on a revision this code
 * retired (its branches and frozen copies are gone, so the run would fail on its next workflow task). Also
 * refuses when the namespace lacks MeshRevision, which every run of this release sets at its first step.
 */
export async function refuseRetiredRuns(
  options: TemporalConnectionOptions,
  namespace: string,
  taskQueue: string,
  suggestion = 'Let them finish on a worker of the release they started on (or end them: mesh runbook abort <node>), then start this one; see them with mesh runbook list --revision.',
): Promise<void> {
  const reads = new TemporalReads(options, namespace);
  try {
    const retired = await retiredRuns(reads, taskQueue).catch((error: unknown) => {
      throw unregistered(error, namespace) ?? error;
    });
    if (retired.length === 0) return;
    const named = retired.map(
      ({ run, revision }) => `${run.workflowId} (revision ${revision}, run ${run.runId})`,
    );
    throw new UsageError(
      `This worker runs revision ${RUNBOOK_REVISION}, which no longer replays runs older than revision ${OLDEST_SUPPORTED_REVISION}, and ${retired.length} such run${retired.length === 1 ? ' is' : 's are'} open on task queue ${taskQueue}: ${named.join(', ')}.`,
      suggestion,
    );
  } finally {
    reads.close();
  }
}

function unregistered(error: unknown, namespace: string): UsageError | undefined {
  const message = error instanceof Error ? error.message : String(error);
  if (!message.includes(MESH_REVISION.name)) return undefined;
  return new UsageError(
    `Namespace ${namespace} has no search attribute ${MESH_REVISION.name}, which every run of this release sets when it starts (its workflow task would fail without it).`,
    `Register it once: temporal operator search-attribute create --namespace ${namespace} --name ${MESH_REVISION.name} --type Int`,
  );
}
