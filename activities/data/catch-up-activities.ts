import { lstat } from 'node:fs/promises';
import { z } from 'zod';
import type { HostRootOf } from '../host-root';
import { Name } from '../../mesh/schemas';
import { parseActivityInput } from '../failures';
import { activitySignal, heartbeat } from '../../base/activity-heartbeat';
import { BaselineError, BaselineStore, baselineId, type Baseline } from './baseline-store';
import { catchUp, type CatchUpResult } from './catch-up';
import { changedPaths, treeOrder } from './catch-up-plan';
import { moveRefusalsAreFinal } from './failures';
import { locateMove, type LocatedMove } from './locate';
import { manifestOf, scanManifest } from './manifest';
import { PreflightError } from './preflight';
import { targetTruth } from './target-truth';
import { startTicker } from './ticker';
import { scanTree, summarize } from './tree';

const MoveInput = z.strictObject({ node: Name, from: z.string(), to: z.string() });
const CatchUpInput = z.strictObject({
  ...MoveInput.shape,
  baseline: z.string(),
  keepNewOnConflict: z.boolean(),
});
export type CatchUpInput = z.infer<typeof CatchUpInput>;
const SinceBaselineInput = z.strictObject({ ...MoveInput.shape, baseline: z.string() });

/** What changed on A since the baseline: each path with how (`new`, `changed`, `gone`); or why none can tell. */
export type OldPathChanges = { changed: string[]; since: string } | { unknown: string };

/** The paths shown of a long list; `more` says how many were left out. */
const CHANGES_SHOWN = 50;

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
  const storeOf = (at: LocatedMove) => BaselineStore.onNode(at.hostRoot, stateDir);
  return {
    /**
     * Records what A and B hold (per path: type, size, mode, owner, mtime and ctime in ns, inode, link
     * target) on the node's own disk (NODE_BASELINES), right after a verified copy. Recording again
     * replaces it: idempotent.
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
        await storeOf(at).write({ version: 1, id, node, from, to, recordedAt, a: manifestA, b: manifestB });
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
        const store = storeOf(at);
        const baseline = await store.read(parsed.baseline, at);
        let progress = { done: 0, total: 0 };
        let scanned = 0;
        const stopTicker = startTicker(() => heartbeat({ catchingUp: at.to, ...progress, scanned }));
        const { next, ...result } = await catchUp(at.hostFrom, at.hostTo, baseline, {
          keepNewOnConflict: parsed.keepNewOnConflict,
          signal: activitySignal(),
          onProgress: (now) => (progress = now),
          onScanned: () => scanned++,
        }).finally(stopTicker);
        if (next) await store.write({ ...baseline, recordedAt: new Date().toISOString(), ...next });
        return result;
      }),

    /**
     * Whether B already is the truth of the move (a baseline of it, and data on B): a runbook reset to
     * before its copy must neither copy A over B nor remove B. Null when it is not.
     */
    targetTruth: (input: { node: string; from: string; to: string }) =>
      moveRefusalsAreFinal(async (): Promise<{ recordedAt?: string } | null> => {
        const at = await locateMove(hostRootOf, parseActivityInput('targetTruth', MoveInput, input));
        const truth = await targetTruth(storeOf(at), at);
        if (!truth) return null;
        return truth.recordedAt ? { recordedAt: truth.recordedAt } : {};
      }),

    /**
     * A catch-up's dry run on A alone: the paths created, changed or removed on A since the baseline (what
     * removing A would lose), sorted, at most CHANGES_SHOWN and a count of the rest. Changes nothing. A
     * baseline that cannot be read is an answer too (`unknown`): nobody can say A holds nothing new.
     */
    oldPathChanges: (input: { node: string; from: string; to: string; baseline: string }) =>
      moveRefusalsAreFinal(async (): Promise<OldPathChanges> => {
        const parsed = parseActivityInput('oldPathChanges', SinceBaselineInput, input);
        const at = await locateMove(hostRootOf, parsed);
        let baseline: Baseline;
        try {
          baseline = await storeOf(at).read(parsed.baseline, at);
        } catch (error) {
          if (error instanceof BaselineError) return { unknown: error.message };
          throw error;
        }
        // A gone already loses nothing when it is removed.
        if (!(await lstat(at.hostFrom).catch(() => undefined)))
          return { changed: [], since: baseline.recordedAt };
        const stopTicker = startTicker(() => heartbeat({ scanning: at.from }));
        const now = await scanManifest(at.hostFrom).finally(stopTicker);
        const paths = [...changedPaths(baseline.a, now)].sort(treeOrder);
        const how = (rel: string) =>
          baseline.a[rel] === undefined ? 'new' : now[rel] === undefined ? 'gone' : 'changed';
        const changed = paths.slice(0, CHANGES_SHOWN).map((rel) => `${rel || '.'} (${how(rel)})`);
        if (paths.length > CHANGES_SHOWN) changed.push(`and ${paths.length - CHANGES_SHOWN} more`);
        return { changed, since: baseline.recordedAt };
      }),
  };
}
