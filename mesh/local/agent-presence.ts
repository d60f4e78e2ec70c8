import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { writeJsonAtomic } from './json-files';
import type { StateLayout } from './layout';

interface Presence {
  pid: number;
  token: string;
}

/**
 * The file by which a running node agent says "I watch this inbox": a pusher that finds it, after writing
 * its push, starts no agent. The agent removes it before its last look at the inbox, so a push is always
 * seen by the agent that was present when the push was written, or by the one the pusher starts.
 */
export class AgentPresence {
  private readonly token = randomBytes(8).toString('hex');

  constructor(
    private readonly layout: StateLayout,
    private readonly node: string,
  ) {}

  async claim(): Promise<void> {
    const presence: Presence = { pid: process.pid, token: this.token };
    await writeJsonAtomic(this.layout.agentPresence(this.node), presence);
  }

  /** Removes the file only while it is still this agent's: a newer agent may have claimed it since. */
  async release(): Promise<void> {
    const file = this.layout.agentPresence(this.node);
    if (readPresence(file)?.token === this.token) await unlink(file).catch(ignoreMissing);
  }
}

/** Whether an agent that has claimed the node's inbox is still running. */
export function agentIsPresent(layout: StateLayout, node: string): boolean {
  const pid = readPresence(layout.agentPresence(node))?.pid;
  return typeof pid === 'number' && isRunningAgent(pid);
}

/**
 * A pid is reused once its process is gone, and a dead child that nobody reaped still answers signal 0:
 * only a process whose command line is a node agent's counts.
 */
function isRunningAgent(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('agent-main');
  } catch {
    return false;
  }
}

/** The presence file as written; its fields are checked where they are used (a torn or foreign file is possible). */
function readPresence(file: string): Partial<Presence> | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Partial<Presence>;
  } catch {
    return undefined;
  }
}

function ignoreMissing(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error;
}
