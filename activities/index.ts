import type { MeshPort } from '../mesh/port';
import type { DockerEngine } from '../docker/engine';
import { createDataActivities, resolveRunbookStateDir } from './data';
import { createDockerActivities } from './docker';
import type { HostRootOf } from './host-root';
import type { HostFingerprint } from '../workflows/contracts';
import { createMeshActivities } from './mesh';
import { createProbeActivities } from './probes';
import { createRunbookActivities, type RunbookSettingsDeps } from './runbook';

export interface ActivityDeps extends RunbookSettingsDeps {
  mesh: MeshPort;
  dockerFor(node: string): DockerEngine;
  /** Where each node's host paths are on this worker's machine (activities/host-root.ts). */
  hostRootOf: HostRootOf;
  /** Which host a node is, read once by its node worker (activities/docker/fingerprint.ts). */
  hostOf?: (node: string) => Promise<HostFingerprint>;
  /** The worker's own state (catch-up baselines); default $MESH_STATE_DIR/runbook or ~/.local/state/mesh/runbook. */
  stateDir?: string;
}

/** Every activity the runbooks use, built from the same dependencies in production and in tests. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createMeshActivities(deps),
    ...createDockerActivities(deps),
    ...createProbeActivities(),
    ...createDataActivities({ ...deps, stateDir: deps.stateDir ?? resolveRunbookStateDir() }),
    ...createRunbookActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
export { fixedHostRoot, hostRootFromMesh, type HostRootOf } from './host-root';
