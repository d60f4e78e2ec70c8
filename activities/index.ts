import type { MeshPort } from '../mesh/port';
import type { DockerEngine } from '../docker/engine';
import { createDataActivities } from './data';
import { createDockerActivities } from './docker';
import { createMeshActivities } from './mesh';
import { createProbeActivities } from './probes';
import { createRunbookActivities, type RunbookSettingsDeps } from './runbook';

export interface ActivityDeps extends RunbookSettingsDeps {
  mesh: MeshPort;
  dockerFor(node: string): DockerEngine;
}

/** Every activity the runbooks use, built from the same dependencies in production and in tests. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createMeshActivities(deps),
    ...createDockerActivities(deps),
    ...createProbeActivities(),
    ...createDataActivities(deps),
    ...createRunbookActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
