import { watch, type FSWatcher } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { runNodeAgent, type AgentOptions } from './agent';
import { AgentPresence } from './agent-presence';
import { StateLayout } from './layout';

export interface WatchingAgentOptions extends AgentOptions {
  /** How long the agent stays after its last apply, watching the inbox for the next push. */
  lingerMs: number;
  /** How often it looks at the inbox even when no file event came (the watch is a shortcut, not the proof). */
  rescanMs?: number;
}

/**
 * A node agent that stays after applying: a push that arrives within `lingerMs` of the last one is applied
 * by this process the moment its file appears, without a new process and Docker client. When it leaves,
 * it first withdraws its presence and then looks at the inbox one last time (see agent-presence.ts).
 */
export async function runWatchingNodeAgent(
  stateDir: string,
  node: string,
  options: WatchingAgentOptions,
): Promise<number> {
  const layout = new StateLayout(stateDir);
  const presence = new AgentPresence(layout, node);
  const inbox = new InboxSignal(layout.inboxDir(node));
  let applied = 0;
  try {
    await presence.claim();
    let idleSince = Date.now();
    for (;;) {
      if (!(await nodeExists(layout, node))) return applied;
      inbox.clear();
      if (await hasPendingPushes(layout, node)) {
        applied += (await runNodeAgent(stateDir, node, options)).length;
        idleSince = Date.now();
        continue;
      }
      const left = idleSince + options.lingerMs - Date.now();
      if (left > 0) {
        await inbox.changed(Math.min(left, options.rescanMs ?? 1_000));
        continue;
      }
      await presence.release();
      // A push written while the presence file stood is in the inbox by now; no lock is needed to see it.
      if (!(await hasPendingPushes(layout, node))) return applied;
      await presence.claim();
      idleSince = Date.now();
    }
  } finally {
    inbox.close();
    await presence.release();
  }
}

async function hasPendingPushes(layout: StateLayout, node: string): Promise<boolean> {
  const names = await readdir(layout.inboxDir(node)).catch(() => []);
  return names.some((name) => name.endsWith('.json'));
}

async function nodeExists(layout: StateLayout, node: string): Promise<boolean> {
  return (await stat(layout.nodeDir(node)).catch(() => undefined)) !== undefined;
}

/** Wakes the agent when anything in the inbox dir changes; a lost or failed watch only costs a rescan. */
class InboxSignal {
  private dirty = false;
  private wake: (() => void) | undefined;
  private readonly watcher: FSWatcher | undefined;

  constructor(dir: string) {
    try {
      this.watcher = watch(dir, () => this.mark());
      this.watcher.on('error', () => this.mark());
    } catch {
      this.watcher = undefined;
    }
  }

  clear(): void {
    this.dirty = false;
  }

  async changed(timeoutMs: number): Promise<void> {
    if (this.dirty) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.wake?.(), timeoutMs);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }

  close(): void {
    this.watcher?.close();
  }

  private mark(): void {
    this.dirty = true;
    this.wake?.();
  }
}
