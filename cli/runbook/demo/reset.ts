import { readdir, rm } from 'node:fs/promises';
import { removeNodeContainers } from '../../../docker/cleanup';
import { acquireLock, StateLayout } from '../../../mesh/local';

/**
 * Resets the demo's state directory for a fresh demo. The containers of every node in its local mesh go
 * first (an earlier demo's novox, say): once the state is gone, their data directories are gone with it
 * and they would keep running on nothing. The demo's own nodes go too, in case its state was removed by hand.
 */
export async function resetDemoState(
  stateDir: string,
  localState: string,
  ...demoNodes: string[]
): Promise<void> {
  const layout = new StateLayout(localState);
  const nodes = await readdir(layout.nodesDir).catch(() => [] as string[]);
  for (const name of nodes) {
    // A node agent of an interrupted demo may still be applying: wait for it, so it creates nothing after.
    const release = await acquireLock(layout.nodeLock(name), { timeoutMs: 30_000 }).catch(() => undefined);
    await rm(layout.inboxDir(name), { recursive: true, force: true });
    await release?.();
  }
  await removeNodeContainers([...new Set([...nodes, ...demoNodes])]);
  await rm(stateDir, { recursive: true, force: true });
}
