import { lstat, rm } from 'node:fs/promises';
import { hostPathOnNode } from '../../docker/placement';
import type { MeshPort } from '../../mesh/port';
import type { HostRootOf } from '../host-root';
import { activitySignal, heartbeat } from '../heartbeat';
import { copyTreeWithResume, type CopyResult } from './copy-tree';
import { moveRefusalsAreFinal } from './failures';
import { checkMovePaths, checkNodePath } from './paths';
import { checkMoveOnHost, type MoveSize } from './preflight';
import { previousProgress } from './resume';
import { startTicker } from './ticker';
import { verifyTrees, type VerifyResult } from './verify-tree';

export { checkMovePaths, checkNodePath, MovePathError } from './paths';
export type { CopyProgress } from '../../workflows/contracts';
export { copyTreeWithResume, type CopyResult } from './copy-tree';
export { verifyTrees, type VerifyResult } from './verify-tree';
export type { MoveSize } from './preflight';

export interface DataActivityDeps {
  mesh: MeshPort;
  hostRootOf: HostRootOf;
}

/** A move of node `node`'s data from host path `from` (A) to `to` (B), both as the node names them. */
export interface MoveOnNode {
  node: string;
  from: string;
  to: string;
}

/** Activities that read, copy, verify and remove a node's data directories (the data-path-move runbook). */
export function createDataActivities({ hostRootOf }: DataActivityDeps) {
  /** A and B checked, and where they live on this machine (the node's host root, `/` for a real node). */
  const locate = async ({ node, from, to }: MoveOnNode) => {
    const paths = checkMovePaths(from, to);
    const hostRoot = await hostRootOf(node);
    return {
      ...paths,
      hostFrom: hostPathOnNode(hostRoot, paths.from),
      hostTo: hostPathOnNode(hostRoot, paths.to),
    };
  };

  return {
    /** Refuses (PreflightFailed) unless A is a directory B can receive; returns A's size. */
    preflightMove: (input: MoveOnNode): Promise<MoveSize & { from: string; to: string }> =>
      moveRefusalsAreFinal(async () => {
        const at = await locate(input);
        const stopTicker = startTicker(() => heartbeat({ scanning: at.from }));
        const names = { node: input.node, from: at.from, to: at.to };
        const size = await checkMoveOnHost(at.hostFrom, at.hostTo, names).finally(stopTicker);
        return { from: at.from, to: at.to, ...size };
      }),

    /** Copies A to B, heartbeating progress each second; a retry resumes from what is complete in B. */
    copyTree: (input: MoveOnNode): Promise<CopyResult> =>
      moveRefusalsAreFinal(async () => {
        const at = await locate(input);
        return copyTreeWithResume(at.hostFrom, at.hostTo, previousProgress(), heartbeat, {
          signal: activitySignal(),
        });
      }),

    /** Compares B with A; the differing paths are the result, never a failure. */
    verifyTree: (input: MoveOnNode): Promise<VerifyResult> =>
      moveRefusalsAreFinal(async () => {
        const at = await locate(input);
        return verifyTrees(at.hostFrom, at.hostTo, heartbeat);
      }),

    /** Removes a node path (old data after approval, or B on abort). Missing already is success. */
    removeTree: ({ node, path }: { node: string; path: string }): Promise<void> =>
      moveRefusalsAreFinal(async () => {
        const checked = checkNodePath('path to remove', path);
        const host = hostPathOnNode(await hostRootOf(node), checked);
        if (!(await lstat(host).catch(() => undefined))) return;
        const stopTicker = startTicker(() => heartbeat({ removing: checked }));
        await rm(host, { recursive: true, force: true }).finally(stopTicker);
      }),
  };
}

export type DataActivities = ReturnType<typeof createDataActivities>;
