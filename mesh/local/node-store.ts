import { appendFile, readdir, rename } from 'node:fs/promises';
import { MeshUnreadableError } from '../errors';
import { readJsonIfExists, writeJsonAtomic } from './json-files';
import type { StateLayout } from './layout';
import { InboxPush, KEPT_REPORTS, NodeAgentState } from './state-schemas';
import type { ApplyReport } from '../schemas';

/** The node agent's state file. A node whose file is gone is unreadable, never "nothing happened". */
export async function readNodeAgentState(layout: StateLayout, node: string): Promise<NodeAgentState> {
  const file = layout.nodeStateFile(node);
  const state = await readJsonIfExists(NodeAgentState, file);
  if (!state) throw new MeshUnreadableError(file, '', 'is missing');
  if (state.node !== node)
    throw new MeshUnreadableError(file, 'node', `names node "${state.node}", not "${node}"`);
  return state;
}

export function emptyNodeAgentState(node: string): NodeAgentState {
  return { version: 1, node, owned: [], reports: [] };
}

export async function saveApply(
  layout: StateLayout,
  state: NodeAgentState,
  report: ApplyReport,
  owned: string[],
): Promise<void> {
  const next: NodeAgentState = { ...state, owned, reports: [...state.reports, report].slice(-KEPT_REPORTS) };
  await writeJsonAtomic(layout.nodeStateFile(state.node), next);
  await appendFile(
    layout.journal(state.node),
    `${report.finishedAt} ${report.pushId} applied ${report.applied} resource(s)\n`,
  );
}

export interface PendingPush {
  file: string;
  push: InboxPush;
}

/**
 * The pushes waiting in the node's inbox, oldest first. A file that does not parse is moved aside
 * (`.unreadable`) and reported through `onUnreadable`, so it cannot block every later push.
 */
export async function pendingPushes(
  layout: StateLayout,
  node: string,
  onUnreadable: (error: MeshUnreadableError) => void,
): Promise<PendingPush[]> {
  const dir = layout.inboxDir(node);
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const pending: PendingPush[] = [];
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    const file = `${dir}/${name}`;
    try {
      const push = await readJsonIfExists(InboxPush, file);
      if (push) pending.push({ file, push });
    } catch (error) {
      if (!(error instanceof MeshUnreadableError)) throw error;
      await rename(file, `${file}.unreadable`);
      onUnreadable(error);
    }
  }
  return pending.sort((a, b) => a.push.seq - b.push.seq);
}
