export { LocalMesh, type CreateNodeOptions, type LocalMeshOptions } from './local-mesh';
export type { BuildResult } from './build';
export { pushResources, type PlannedResource } from './resources';
export { resolveLocalStateDir, STATE_DIR_ENV } from './state-dir';
export { runNodeAgent } from './agent';
export { acquireLock, withLock, LockTimeoutError } from './lock';
export { StateLayout } from './layout';
