import type { MeshPort } from '../mesh/port';
import type { DockerEngine } from '../docker/engine';
import { createDataActivities, resolveRunbookStateDir } from './data';
import { createDockerActivities } from './docker';
import { createMeshActivities } from './mesh';
import { createProbeActivities } from './probes';
import { createRunbookActivities, type RunbookSettingsDeps } from './runbook';

export interface ActivityDeps extends RunbookSettingsDeps {
  mesh: MeshPort;
  dockerFor(node: string): DockerEngine;
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
