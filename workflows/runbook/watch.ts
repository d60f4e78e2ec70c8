import { isCancellation, log, patched, sleep } from '@temporalio/workflow';
import type { WatchOutcome } from '../../activities/docker/watch-loop';
import { failureMessage } from './failures';
import { watchAct, WATCH_FOR_MS } from './activities';
import type { ContainerMemory } from './memory';
import { REASKS_BACK_OFF } from './revision';

const FIRST_PAUSE_MS = 1_000;
const LONGEST_PAUSE_MS = 30 * 60_000;

/**
 * How long a watched wait pauses before it watches again after `changes` changes: not at all for the first
 * few (a container started by hand turns running, then healthy), then a minute, doubling up to 30 min, so
 * a crash loop adds a look every half hour at most, not one per crash.
 */
export function watchPause(changes: number): number {
  const quick = 4;
  return changes < quick ? 0 : Math.min(60_000 * 2 ** (changes - quick), LONGEST_PAUSE_MS);
}

/** `watch`, started only after the pause that `changes` changes so far call for (watchPause). */
export function pausedWatch(changes: number, watch: () => Promise<string>): () => Promise<string> {
  const pause = watchPause(changes);
  return async () => {
    if (pause > 0) await sleep(pause);
    return watch();
  };
}

/**
 * What an ask asked anew after `changes` changes of what it rests on says of its paused watch (REASKS_BACK_OFF),
 * once the pause has begun: from when the changes are looked at again. None before (and in runbooks
 * recorded before): the watch starts at once.
 */
export function watchedAgainFact(changes: number): string[] {
  const pause = watchPause(changes);
  if (pause === 0 || !patched(REASKS_BACK_OFF)) return [];
  const from = new Date(new Date().getTime() + pause).toISOString();
  return [
    `what this waits on changed ${changes} times while it was asked: changes are looked at again from ${clock(from)} (a pause that doubles, up to 30 min, while they keep coming); a decision looks at it first either way`,
  ];
}

/**
 * The watch of an ask asked anew after `changes` changes: paused as a gate's is (pausedWatch) in runbooks
 * that back off (REASKS_BACK_OFF, see watchedAgainFact); at once in runbooks recorded before.
 */
export function reaskedWatch(changes: number, watch: () => Promise<string>): () => Promise<string> {
  return watchPause(changes) > 0 && patched(REASKS_BACK_OFF) ? pausedWatch(changes, watch) : watch;
}

function clock(iso: string): string {
  return `${iso.slice(11, 23)} UTC`;
}

/**
 * Resolves, in one sentence, once `watchOnce` (a node-local watch, an hour at a time) finds a change. A
 * watch that fails (the node's worker or engine gone) is started again after a pause that doubles, up to
 * 30 min. Runs until it finds a change or its cancellation scope is cancelled.
 */
async function untilChanged(
  what: { node: string; watching: string },
  watchOnce: () => Promise<WatchOutcome>,
): Promise<string> {
  for (let pause = FIRST_PAUSE_MS; ;) {
    try {
      const seen = await watchOnce();
      if (seen.changed) {
        const event = seen.event
          ? `; Docker reported ${seen.event.action} of ${seen.event.name} at ${clock(seen.event.at)}`
          : '';
        return `${seen.look} (seen at ${clock(seen.seenAt)}${event})`;
      }
      pause = FIRST_PAUSE_MS;
    } catch (error) {
      if (isCancellation(error)) throw error;
      log.warn(`watching ${what.watching} failed`, { node: what.node, error: failureMessage(error) });
      await sleep(pause);
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    }
  }
}

/**
 * Resolves, in one sentence, once a container of `module` on `node` no longer looks as the runbook last
 * judged it (`memory`): watched on the node's own worker through Docker events.
 */
export function containersChange(node: string, module: string, memory: ContainerMemory): Promise<string> {
  return untilChanged({ node, watching: 'containers' }, () =>
    watchAct.watchModuleContainers({ node, module, judged: memory.lastJudged(node), forMs: WATCH_FOR_MS }),
  );
}

/**
 * Resolves, in one sentence naming the node, once the containers using `path` on any of the nodes differ
 * from `judged` (each node's users as `pathUserLook`s): watched on each node's own worker.
 */
export function pathUsersChange(path: string, judged: Record<string, string[]>): Promise<string> {
  return Promise.race(
    Object.entries(judged).map(async ([node, users]) => {
      const change = await untilChanged({ node, watching: `users of ${path}` }, () =>
        watchAct.watchPathUsers({ node, path, judged: users, forMs: WATCH_FOR_MS }),
      );
      return `${node}: ${change}`;
    }),
  );
}
