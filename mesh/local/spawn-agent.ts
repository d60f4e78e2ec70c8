import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StateLayout } from './layout';

/** Compiled (dist/), the agent runs as plain JavaScript; from the sources, through tsx's loader. */
const COMPILED = __filename.endsWith('.js');
const AGENT_MAIN = join(__dirname, COMPILED ? 'agent-main.js' : 'agent-main.ts');

/** How node starts the agent: tsx's loader by absolute URL (whatever the caller's directory), or nothing. */
function loaderArgs(): string[] {
  return COMPILED ? [] : ['--import', pathToFileURL(require.resolve('tsx')).href];
}

/**
 * Starts the node's agent as a detached process that outlives the caller: the push returns at once and
 * the node applies on its own time, like a real node. Its output goes to the node's agent.log.
 */
export function spawnNodeAgent(layout: StateLayout, node: string): void {
  mkdirSync(layout.nodeDir(node), { recursive: true });
  const log = openSync(layout.agentLog(node), 'a');
  try {
    const child = spawn(process.execPath, [...loaderArgs(), AGENT_MAIN, layout.stateDir, node], {
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
