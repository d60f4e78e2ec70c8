import { posix } from 'node:path';
import type Dockerode from 'dockerode';
import { LOCAL_MESH_LABELS, type ContainerLabels } from './container-labels';
import { LABEL } from './labels';

/** Where and as what a container spec runs: its engine-wide name, its owner labels, its host paths. */
export interface Placement {
  name: string;
  labels: Record<string, string>;
  /** Maps a spec host path to the real path on this engine's machine (identity for a real node). */
  hostPath?: (specPath: string) => string;
  /** The label the container spec's digest goes under, for a mesh that records it. */
  specHashLabel?: string;
  /** What the mesh tells every container it runs about where it runs (Nomad's NOMAD_*, say). */
  env?: Record<string, string>;
  /** The mesh's own host settings for every container it runs: restart policy, limits, logging. */
  hostConfig?: Pick<Dockerode.HostConfig, 'RestartPolicy' | 'LogConfig' | 'Memory'>;
}

/** How a mesh runs its containers: what it labels them with, and how it places each one on a node. */
export interface HouseStyle {
  labels: ContainerLabels;
  placement(node: string, hostRoot: string, module: string, container: string): Placement;
}

/**
 * Where a spec host path lives on this machine for a node whose host paths are rooted at `hostRoot`
 * (`/` for a real node). Verifiers use it for the expected `Mounts[].Source`.
 */
export function hostPathOnNode(hostRoot: string, specPath: string): string {
  const joined = posix.join(hostRoot, specPath);
  return joined.length > 1 && joined.endsWith('/') ? joined.slice(0, -1) : joined;
}

/** Several nodes share one engine, so a container's engine-wide name says whose it is. */
export function containerName(node: string, module: string, container: string): string {
  return `${node}.${module}.${container}`;
}

export function containerLabels(node: string, module: string, container: string): Record<string, string> {
  return { [LABEL.node]: node, [LABEL.module]: module, [LABEL.container]: container };
}

/** How the local mesh runs a module's container on a node: its engine-wide name, its labels, its host paths. */
export function placementOn(node: string, hostRoot: string, module: string, container: string): Placement {
  return {
    name: containerName(node, module, container),
    labels: containerLabels(node, module, container),
    hostPath: (specPath) => hostPathOnNode(hostRoot, specPath),
    specHashLabel: LABEL.specHash,
  };
}

/** The local reference mesh's style: node-qualified names and labels on one shared engine, no restart policy. */
export const LOCAL_STYLE: HouseStyle = { labels: LOCAL_MESH_LABELS, placement: placementOn };
