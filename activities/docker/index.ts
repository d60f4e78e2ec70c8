import type { DockerEngine } from '../../docker/engine';
import type { MeshPort } from '../../mesh/port';
import type { ContainerEvidence } from '../../workflows/verdict/evidence';
import { inspectModuleContainers, type InspectModuleInput } from './inspect-containers';
import {
  runningModuleContainers,
  startModuleContainers,
  stopModuleContainers,
  type ModuleOnNode,
} from './start-stop';

export { DOCKER_FAILURE } from './failures';
export { dockerResolver, DockerEndpointsConfig, type DockerEndpointsConfigInput } from './endpoints';
export type { InspectModuleInput } from './inspect-containers';
export type { ModuleOnNode } from './start-stop';

export interface DockerActivityDeps {
  mesh: MeshPort;
  /** The Docker engine of a node (see `dockerResolver` for per-node endpoints). */
  dockerFor(node: string): DockerEngine;
}

/** Activities that read and change a node's containers through its Docker engine, not through mesh. */
export function createDockerActivities(deps: DockerActivityDeps) {
  return {
    inspectModuleContainers: (input: InspectModuleInput): Promise<ContainerEvidence[]> =>
      inspectModuleContainers(deps, input),
    stopModuleContainers: (input: ModuleOnNode): Promise<{ stopped: string[] }> =>
      stopModuleContainers(deps.dockerFor(input.node), input),
    startModuleContainers: (input: ModuleOnNode): Promise<{ started: string[] }> =>
      startModuleContainers(deps.dockerFor(input.node), input),
    runningModuleContainers: (input: ModuleOnNode): Promise<string[]> =>
      runningModuleContainers(deps.dockerFor(input.node), input),
  };
}

export type DockerActivities = ReturnType<typeof createDockerActivities>;
