import { lstat } from 'node:fs/promises';
import { z } from 'zod';
import type { HostRootOf } from '../host-root';
import { Name } from '../../mesh/schemas';
import { parseActivityInput } from '../failures';
import { activitySignal, heartbeat } from '../heartbeat';
import { BaselineStore, baselineId } from './baseline-store';
import { catchUp, type CatchUpResult } from './catch-up';
import { moveRefusalsAreFinal } from './failures';
import { locateMove, type LocatedMove } from './locate';
import { manifestOf } from './manifest';
import { PreflightError } from './preflight';
import { startTicker } from './ticker';
import { scanTree, summarize } from './tree';

const MoveInput = z.strictObject({ node: Name, from: z.string(), to: z.string() });
const CatchUpInput = z.strictObject({
  ...MoveInput.shape,
  baseline: z.string(),
  keepNewOnConflict: z.boolean(),
});
export type CatchUpInput = z.infer<typeof CatchUpInput>;

/** Both A and B must be directories: a baseline or catch-up of a missing side would read as "all removed". */
async function requireBothSides(at: LocatedMove): Promise<void> {
  for (const [role, path, host] of [
    ['source', at.from, at.hostFrom],
    ['target', at.to, at.hostTo],
  ] as const) {
    if (!(await lstat(host).catch(() => undefined))?.isDirectory())
      throw new PreflightError(`The ${role} path ${path} is not a directory on node ${at.node}.`);
  }
}

/** A and B recorded after a verified copy, and later changes on A brought to B without undoing B's own. */
export function createCatchUpActivities({
  hostRootOf,
  stateDir,
}: {
  hostRootOf: HostRootOf;
  stateDir: string;
}) {
  const store = new BaselineStore(stateDir);
  return {
    /**
     * Records what A and B hold (per path: type, size, mode, owner, mtime in ns, link target) under the
     * worker's state dir, right after a verified copy. Recording again replaces it: idempotent.
     */
    recordBaseline: (input: { node: string; from: string; to: string }) =>
      moveRefusalsAreFinal(async (): Promise<{ baseline: string; files: number }> => {
        const at = await locateMove(hostRootOf, parseActivityInput('recordBaseline', MoveInput, input));
        await requireBothSides(at);
        const stopTicker = startTicker(() => heartbeat({ recording: at.to }));
        const [a, b] = await Promise.all([scanTree(at.hostFrom), scanTree(at.hostTo)]).finally(stopTicker);
        const id = baselineId(at.node, at.from, at.to);
        const { node, from, to } = at;
        const [recordedAt, manifestA, manifestB] = [new Date().toISOString(), manifestOf(a), manifestOf(b)];
        await store.write({ version: 1, id, node, from, to, recordedAt, a: manifestA, b: manifestB });
        return { baseline: id, files: summarize(a).files };
      }),

    /**
     * Brings to B what changed on A since the baseline and leaves what changed on B (B is the truth once
     * a container ran on it). A path changed on both sides is a conflict: with `keepNewOnConflict: false`
     * nothing changes and the conflicts are returned; with true B's version is kept. Then the baseline
     * moves forward, so a second catch-up brings only later changes.
     */
    catchUpCopy: (input: CatchUpInput) =>
      moveRefusalsAreFinal(async (): Promise<CatchUpResult> => {
        const parsed = parseActivityInput('catchUpCopy', CatchUpInput, input);
        const at = await locateMove(hostRootOf, parsed);
        await requireBothSides(at);
        const baseline = await store.read(parsed.baseline, at);
        let progress = { done: 0, total: 0 };
        const stopTicker = startTicker(() => heartbeat({ catchingUp: at.to, ...progress }));
        const { next, ...result } = await catchUp(at.hostFrom, at.hostTo, baseline, {
          keepNewOnConflict: parsed.keepNewOnConflict,
          signal: activitySignal(),
          onProgress: (now) => (progress = now),
        }).finally(stopTicker);
        if (next) await store.write({ ...baseline, recordedAt: new Date().toISOString(), ...next });
        return result;
      }),
  };
}
