import { mkdirSync, watch } from 'node:fs';
import { basename } from 'node:path';
import { LocalMesh } from '../mesh/local';
import type { NodeSite } from './node-worker';

/** A safety net for a missed file event (e.g. the state dir removed and made again). */
const RESCAN_MS = 2_000;

/**
 * Calls `onNode` once for every node of the local mesh in `stateDir` (with its host root as the local mesh
 * recorded it), now and as nodes are created: the local mesh's nodes all live on this machine. Returns
 * the function that stops watching.
 */
export function watchLocalNodes(
  stateDir: string,
  onNode: (site: NodeSite) => void,
  onError: (error: unknown) => void,
): () => void {
  const mesh = new LocalMesh({ stateDir });
  const seen = new Set<string>();
  let stopped = false;
  let scanning = false;
  let again = false;
  const rescan = (): void => {
    if (stopped) return;
    if (scanning) return void (again = true);
    scanning = true;
    mesh
      .hostRoots()
      .then((roots) => {
        for (const [node, hostRoot] of Object.entries(roots)) {
          if (stopped || seen.has(node)) continue;
          seen.add(node);
          onNode({ node, hostRoot });
        }
      })
      .catch(onError)
      .finally(() => {
        scanning = false;
        if (again) {
          again = false;
          rescan();
        }
      });
  };
  mkdirSync(mesh.layout.stateDir, { recursive: true });
  const controllerFile = basename(mesh.layout.controllerFile);
  const watcher = watch(mesh.layout.stateDir, (_event, file) => {
    if (file === controllerFile) rescan();
  });
  watcher.on('error', onError);
  const timer = setInterval(rescan, RESCAN_MS);
  timer.unref();
  rescan();
  return () => {
    stopped = true;
    watcher.close();
    clearInterval(timer);
  };
}
