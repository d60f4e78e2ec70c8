import { isCancellation, log, sleep } from '@temporalio/workflow';
import { failureMessage } from './failures';
import { watchAct, WATCH_FOR_MS } from './activities';
import type { ContainerMemory } from './memory';

const FIRST_PAUSE_MS = 1_000;
const LONGEST_PAUSE_MS = 30 * 60_000;

function clock(iso: string): string {
  return `${iso.slice(11, 23)} UTC`;
}

/**
 * Resolves, in one sentence, once a container of `module` on `node` no longer looks as the runbook last
 * judged it (`memory`): watched on the node's own worker through Docker events, an hour at a time. A watch
 * that fails (the node's worker or engine gone) is started again after a pause that doubles, up to 30 min.
 * Runs until it finds a change or its cancellation scope is cancelled.
 */
export async function containersChange(
  node: string,
  module: string,
  memory: ContainerMemory,
): Promise<string> {
  for (let pause = FIRST_PAUSE_MS; ;) {
    try {
      const seen = await watchAct.watchModuleContainers({
        node,
        module,
        judged: memory.lastJudged(node),
        forMs: WATCH_FOR_MS,
      });
      if (seen.changed) {
        const event = seen.event
          ? `; Docker reported ${seen.event.action} of ${seen.event.name} at ${clock(seen.event.at)}`
          : '';
        return `${seen.look} (seen at ${clock(seen.seenAt)}${event})`;
      }
      pause = FIRST_PAUSE_MS;
    } catch (error) {
      if (isCancellation(error)) throw error;
      log.warn('watching containers failed', { node, module, error: failureMessage(error) });
      await sleep(pause);
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    }
  }
}
