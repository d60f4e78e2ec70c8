import { lstat, rm } from 'node:fs/promises';
import type { DockerEngine } from '../../docker/engine';
import type { MeshPort } from '../../mesh/port';
import type { HostRootOf } from '../host-root';
import { containersUsingPath } from '../docker/containers-using-path';
import { activitySignal, heartbeat } from '../../base/activity-heartbeat';
import { BaselineStore } from './baseline-store';
import { createCatchUpActivities } from './catch-up-activities';
import { copyTreeWithResume, type CopyResult } from './copy-tree';
import { moveRefusalsAreFinal, pathInUse } from './failures';
import { locateMove, locatePath, type MoveOnNode } from './locate';
import { checkMoveOnHost, type MoveSize } from './preflight';
import { checkResolvedMove, checkResolvedRemoval } from './real-path-checks';
import { previousProgress } from './resume';
import { createSharedPathActivities } from './shared-path';
import { refuseCopyOverTruth } from './target-truth';
import { startTicker } from './ticker';
import { verifyTrees, type VerifyResult } from './verify-tree';

export { checkMovePaths, checkNodePath, MovePathError } from './paths';
export type { CopyProgress } from '../../workflows/contracts';
export { copyTreeWithResume, type CopyResult } from './copy-tree';
export { verifyTrees, type Difference, type VerifyResult } from './verify-tree';
export type { MoveSize } from './preflight';
export type { MoveOnNode } from './locate';
export type { CatchUpResult } from './catch-up';
export type { CatchUpInput, OldPathChanges } from './catch-up-activities';
export { DATA_FAILURE } from './failures';
export { resolveRunbookStateDir } from './baseline-store';

export interface DataActivityDeps {
  /** The node's mesh: whose containers use a path, by the labels it puts on them. */
  mesh: MeshPort;
  /** Where each node's host paths are on this worker's machine (activities/host-root.ts). */
  hostRootOf: HostRootOf;
  /** The node's Docker engine: a removal rescans it for containers still mounting the path. */
  dockerFor(node: string): DockerEngine;
  /** Where this worker kept baselines before they moved to the node's disk: still read there. */
  stateDir: string;
}

/** Activities that read, copy, verify and remove a node's data directories (the data-path-move runbook). */
export function createDataActivities(deps: DataActivityDeps) {
  return {
    /**
     * Refuses (PreflightFailed) unless A is a directory B can receive, also where A and B really are
     * after symlinks; returns A's size.
     */
    preflightMove: (input: MoveOnNode): Promise<MoveSize & { from: string; to: string }> =>
      moveRefusalsAreFinal(async () => {
        const at = await locateMove(deps.hostRootOf, input);
        const names = { node: input.node, from: at.from, to: at.to };
        await checkResolvedMove(at.hostRoot, names);
        const stopTicker = startTicker(() => heartbeat({ scanning: at.from }));
        const size = await checkMoveOnHost(at.hostFrom, at.hostTo, names).finally(stopTicker);
        return { from: at.from, to: at.to, ...size };
      }),

    /**
     * Copies A to B, heartbeating progress each second; a retry resumes from what is complete in B.
     * Refused (PreflightFailed) once B is the truth of the move (see targetTruth).
     */
    copyTree: (input: MoveOnNode): Promise<CopyResult> =>
      moveRefusalsAreFinal(async () => {
        const at = await locateMove(deps.hostRootOf, input);
        await refuseCopyOverTruth(BaselineStore.onNode(at.hostRoot, deps.stateDir), at);
        return copyTreeWithResume(at.hostFrom, at.hostTo, previousProgress(), heartbeat, {
          signal: activitySignal(),
        });
      }),

    /** Compares B with A; the differing paths, and what differs, are the result, never a failure. */
    verifyTree: (input: MoveOnNode): Promise<VerifyResult> =>
      moveRefusalsAreFinal(async () => {
        const at = await locateMove(deps.hostRootOf, input);
        return verifyTrees(at.hostFrom, at.hostTo, heartbeat, activitySignal());
      }),

    /**
     * Removes a node path (old data after approval, or B on abort). Missing already is success. Refused
     * where the path really is (after symlinks) outside the node's host root or in a system tree; with
     * `refuseIfUsed`, also (PathInUse) while any container on the node mounts it, rescanned right before.
     */
    removeTree: (input: { node: string; path: string; refuseIfUsed?: boolean }): Promise<void> =>
      moveRefusalsAreFinal(async () => {
        const { node, refuseIfUsed = false } = input;
        const at = await locatePath(deps.hostRootOf, node, 'path to remove', input.path);
        if (!(await lstat(at.host).catch(() => undefined))) return;
        await checkResolvedRemoval(at.hostRoot, node, at.path);
        if (refuseIfUsed) {
          const users = await containersUsingPath(deps, { node, path: at.path });
          if (users.length > 0) throw pathInUse(node, at.path, users);
        }
        const stopTicker = startTicker(() => heartbeat({ removing: at.path }));
        await rm(at.host, { recursive: true, force: true }).finally(stopTicker);
      }),

    /** Whether a node path exists on the node's disk (a plan's look at a data dir). */
    pathExists: (input: { node: string; path: string }): Promise<boolean> =>
      moveRefusalsAreFinal(async () => {
        const at = await locatePath(deps.hostRootOf, input.node, 'data dir', input.path);
        return lstat(at.host).then(
          () => true,
          () => false,
        );
      }),

    ...createCatchUpActivities(deps),
    ...createSharedPathActivities(deps),
  };
}

export type DataActivities = ReturnType<typeof createDataActivities>;
