import type { DockerEngine } from '../../docker/engine';
import type { MeshPort } from '../../mesh/port';
import type { HostRootOf } from '../host-root';
import type { HostFingerprint } from '../../workflows/contracts';
import type { ContainerEvidence } from '../../workflows/verdict/evidence';
import { containersUsingPath, type PathOnNode, type PathUser } from './containers-using-path';
import { inspectModuleContainers, type InspectModuleInput } from './inspect-containers';
import { observeModuleContainers, type ObserveModuleInput } from './observe-containers';
import { watchModuleContainers, type WatchModuleInput, type WatchOutcome } from './watch-containers';
import { watchPathUsers, type WatchPathInput } from './watch-path-users';
import { hostFingerprint } from './fingerprint';
import { recreateContainers, removeStaleContainers } from './recreate';
import {
  containersAt,
  moduleContainerStates,
  runningModuleContainers,
  startContainers,
  startModuleContainers,
  stopContainers,
  stopModuleContainers,
  type ContainersOnNode,
  type ModuleOnNode,
  type StopModuleInput,
} from './start-stop';

export { containersUsingPath, type PathOnNode, type PathUser } from './containers-using-path';
export { DOCKER_FAILURE } from './failures';
import { engineUnanswered } from './failures';
export type { InspectModuleInput } from './inspect-containers';
export type { WatchOutcome } from './watch-containers';
export type { ContainersOnNode, ModuleOnNode } from './start-stop';

export interface DockerActivityDeps {
  mesh: MeshPort;
  /** The Docker engine of a node (see `dockerResolver` in docker/endpoints for per-node endpoints). */
  dockerFor(node: string): DockerEngine;
  hostRootOf: HostRootOf;
  /** Which host a node is, as its node worker read it once (hostFingerprintOnce); absent: read at each call. */
  hostOf?: (node: string) => Promise<HostFingerprint>;
}

/** Activities that read and change a node's containers through its Docker engine, not through mesh. */
export function createDockerActivities(deps: DockerActivityDeps) {
  return saysWhenTheEngineIsSilent({
    inspectModuleContainers: (input: InspectModuleInput): Promise<ContainerEvidence[]> =>
      inspectModuleContainers(deps, input),
    /** One look, then (when it may matter) events until stability and health settle; see observe-containers.ts. */
    observeModuleContainers: (input: ObserveModuleInput): Promise<ContainerEvidence[]> =>
      observeModuleContainers(deps, input),
    /** Answers once a container no longer looks as a waiting gate judged it; see watch-containers.ts. */
    watchModuleContainers: (input: WatchModuleInput): Promise<WatchOutcome> =>
      watchModuleContainers(deps, input),
    /** Answers once the containers using a path differ from those a waiting approval was asked on. */
    watchPathUsers: (input: WatchPathInput): Promise<WatchOutcome> => watchPathUsers(deps, input),
    stopModuleContainers: (input: StopModuleInput): Promise<{ stopped: string[] }> =>
      stopModuleContainers(containersAt(deps, input.node), input),
    startModuleContainers: (input: ModuleOnNode): Promise<{ started: string[] }> =>
      startModuleContainers(containersAt(deps, input.node), input),
    runningModuleContainers: (input: ModuleOnNode): Promise<string[]> =>
      runningModuleContainers(containersAt(deps, input.node), input),
    /** Every container of the module on the node, any state: what an undo may start (never through mesh). */
    moduleContainerStates: (input: ModuleOnNode): Promise<{ name: string; state: string }[]> =>
      moduleContainerStates(containersAt(deps, input.node), input),
    /** Stops some containers of the module, by spec name; returns the Docker names. */
    stopContainers: (input: ContainersOnNode): Promise<{ stopped: string[] }> => stopContainers(deps, input),
    /** Starts some containers of the module, by spec name; returns the Docker names. */
    startContainers: (input: ContainersOnNode): Promise<{ started: string[] }> =>
      startContainers(deps, input),
    /** Every container on the node's engine with a bind mount at or under `path` (any module, any state). */
    containersUsingPath: (input: PathOnNode): Promise<PathUser[]> => containersUsingPath(deps, input),
    /** Which host this worker's node really is: its engine's ID and its machine id. */
    nodeFingerprint: async (input: { node: string }): Promise<HostFingerprint> =>
      deps.hostOf
        ? deps.hostOf(input.node)
        : hostFingerprint(deps.dockerFor(input.node), await deps.hostRootOf(input.node)),
    /** Removes those of the named containers not on the current spec; the next push has mesh recreate them. */
    removeStaleContainers: (input: ContainersOnNode): Promise<{ removed: string[] }> =>
      removeStaleContainers(deps, input),
    /** Runbooks recorded before: the same removal, then a push through mesh and its report awaited. */
    recreateContainers: (input: ContainersOnNode): Promise<{ recreated: string[] }> =>
      recreateContainers(deps, input),
  });
}

/** Each activity, with an engine that does not answer reported as `engineUnanswered` for the input's node. */
function saysWhenTheEngineIsSilent<A extends Record<string, (input: never) => Promise<unknown>>>(
  activities: A,
): A {
  const wrapped = Object.entries(activities).map(([name, activity]) => [
    name,
    async (input: { node?: unknown }) => {
      try {
        return await activity(input as never);
      } catch (error) {
        throw engineUnanswered(typeof input?.node === 'string' ? input.node : 'unknown', error) ?? error;
      }
    },
  ]);
  return Object.fromEntries(wrapped) as A;
}

export type DockerActivities = ReturnType<typeof createDockerActivities>;
