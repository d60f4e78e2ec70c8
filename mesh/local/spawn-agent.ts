import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildOutputs } from '../build-outputs';
import { PACKAGE_ROOT } from '../package-root';
import { agentIsPresent } from './agent-presence';
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

/** How long a node agent stays for the next push: a runbook's pushes to a node come seconds apart. */
export const AGENT_LINGER_MS = 30_000;

/**
 * Has the node's agent apply what its inbox holds: the agent already watching the inbox, or else a new
 * detached process that outlives the caller. The push returns at once and the node applies on its own
 * time, like a real node. The agent's output goes to the node's agent.log. Call after writing the push.
 */
export function wakeNodeAgent(layout: StateLayout, node: string, lingerMs = AGENT_LINGER_MS): void {
  if (agentIsPresent(layout, node)) return;
  mkdirSync(layout.nodeDir(node), { recursive: true });
  const log = openSync(layout.agentLog(node), 'a');
  try {
    const child = spawn(process.execPath, [...agentArgs(), layout.stateDir, node, String(lingerMs)], {
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
