import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildOutputs } from '../build-outputs';
import { PACKAGE_ROOT } from '../package-root';
import type { StateLayout } from './layout';

/**
 * The agent as plain JavaScript whenever there is a fresh build, even for a caller run from the sources
 * (tests, the bench): every push starts an agent, and compiling it through tsx doubles its start-up.
 * Decided once per process, like the caller's own code. Otherwise the sources through tsx's loader.
 */
const agentArgs = once((): string[] => {
  if (__filename.endsWith('.js')) return [join(__dirname, 'agent-main.js')];
  if (buildOutputs().compiledIsFresh()) return [join(PACKAGE_ROOT, 'dist', 'mesh', 'local', 'agent-main.js')];
  return ['--import', pathToFileURL(require.resolve('tsx')).href, join(__dirname, 'agent-main.ts')];
});

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/**
 * Starts the node's agent as a detached process that outlives the caller: the push returns at once and
 * the node applies on its own time, like a real node. Its output goes to the node's agent.log.
 */
export function spawnNodeAgent(layout: StateLayout, node: string): void {
  mkdirSync(layout.nodeDir(node), { recursive: true });
  const log = openSync(layout.agentLog(node), 'a');
  try {
    const child = spawn(process.execPath, [...agentArgs(), layout.stateDir, node], {
      detached: true,
      stdio: ['ignore', log, log],
    });
    // A failed spawn leaves the push in the inbox; the next push's agent applies it.
    child.on('error', () => undefined);
    child.unref();
  } finally {
    closeSync(log);
  }
}
