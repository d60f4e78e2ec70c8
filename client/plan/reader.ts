import { lstat } from 'node:fs/promises';
import { ApplicationFailure } from '@temporalio/common';
import type { DockerEngine } from '../../docker/engine';
import type { HostRootOf } from '../../activities/host-root';
import { createDataActivities } from '../../activities/data';
import { locatePath } from '../../activities/data/locate';
import { createDockerActivities } from '../../activities/docker';
import { MESH_REFUSED } from '../../activities/failures';
import { createMeshActivities } from '../../activities/mesh';
import { createProbeActivities } from '../../activities/probes';
import { MeshRefusedError } from '../../mesh/errors';
import type { MeshPort } from '../../mesh/port';
import { FAILURE } from '../../workflows/contracts';

/**
 * What a plan reads a node through: the runbook's own activities, called directly (nothing here changes
 * anything: no assign, push, take, stop or copy is ever called), and the mesh port they read through.
 */
export interface PlanReader {
  mesh: MeshPort;
  act: Pick<
    ReturnType<typeof createMeshActivities> &
      ReturnType<typeof createDockerActivities> &
      ReturnType<typeof createDataActivities> &
      ReturnType<typeof createProbeActivities>,
    | 'moduleNodes'
    | 'readModuleSpec'
    | 'containersMounting'
    | 'runningModuleContainers'
    | 'inspectModuleContainers'
    | 'containersUsingPath'
    | 'preflightMove'
    | 'probePublicNames'
  >;
  /** Whether a node path exists on the node's disk (through the node's host root, as the activities see it). */
  existsOnNode(node: string, path: string): Promise<boolean>;
}

/** The reader over the worker's own dependencies (the same config, mesh adapter and Docker endpoints). */
export function planReaderFrom(deps: {
  mesh: MeshPort;
  dockerFor(node: string): DockerEngine;
  hostRootOf: HostRootOf;
  stateDir: string;
}): PlanReader {
  return {
    mesh: deps.mesh,
    act: {
      ...createMeshActivities(deps),
      ...createDockerActivities(deps),
      ...createDataActivities(deps),
      ...createProbeActivities(),
    },
    async existsOnNode(node, path) {
      const at = await locatePath(deps.hostRootOf, node, 'data dir', path);
      return lstat(at.host).then(
        () => true,
        () => false,
      );
    },
  };
}

/**
 * A refusal the runbook would meet, as its sentence: a preflight refusal of an activity or a refusal by
 * mesh (an unknown node or module). Anything else is a failure of the plan itself and is thrown.
 */
export function refusalOf(error: unknown): string | undefined {
  if (error instanceof MeshRefusedError) return error.message.replace(/\.$/, '');
  if (
    error instanceof ApplicationFailure &&
    (error.type === FAILURE.preflightFailed || error.type === MESH_REFUSED)
  )
    return error.message.replace(/\.$/, '');
  return undefined;
}

/** The value, or the refusal's sentence pushed onto `refusals` and undefined. */
export async function unlessRefused<T>(refusals: string[], read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal === undefined) throw error;
    refusals.push(refusal);
    return undefined;
  }
}
