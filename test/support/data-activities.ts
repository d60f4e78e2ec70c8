import { join } from 'node:path';
import { hostRootFromMesh } from '../../activities';
import { createDataActivities } from '../../activities/data';
import { dockerResolver } from '../../docker/endpoints';
import type { MeshPort } from '../../mesh/port';

/** The data activities as a worker on this machine builds them, keeping their state under `scratchDir`. */
export function dataActivitiesFor(mesh: MeshPort, scratchDir: string) {
  return createDataActivities({
    mesh,
    hostRootOf: hostRootFromMesh(mesh),
    dockerFor: dockerResolver({}),
    stateDir: join(scratchDir, 'worker-state'),
  });
}
