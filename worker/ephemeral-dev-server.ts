import type { DevServerConfig } from '@temporalio/testing';
import { MESH_SEARCH_ATTRIBUTES } from '../workflows/search-attributes';
import { QUEUE_READ_ARGS } from './dev-server-tuning';
import { devServerExecutable } from './temporal-binary';

type EphemeralDevServer = Omit<DevServerConfig, 'type'>;

/**
 * An in-memory dev server as the tests, the bench and record-histories start it: mesh's search attributes
 * and the same queue reads as the server `mesh runbook dev` starts.
 */
export function ephemeralDevServer(overrides: Partial<EphemeralDevServer> = {}): EphemeralDevServer {
  return {
    executable: devServerExecutable(),
    searchAttributes: MESH_SEARCH_ATTRIBUTES,
    extraArgs: [...QUEUE_READ_ARGS],
    ...overrides,
  };
}
