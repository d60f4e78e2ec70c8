import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { STATE_DIR_ENV } from '../../../mesh/local/state-dir';
import { TASK_QUEUE } from '../../../workflows/contracts';
import { shellWord } from '../../output';

export const DEV_STATE_DIR = join(homedir(), '.local', 'state', 'mesh', 'dev');

/**
 * The command that brings this `dev`'s runbooks back: `mesh runbook dev` on the same state directory, task
 * queue and local mesh state, each named only when it is not the default.
 */
export function devAgainCommand(stateDir: string, localState: string, taskQueue: string): string {
  return [
    ...(taskQueue !== TASK_QUEUE ? [`MESH_TASK_QUEUE=${shellWord(taskQueue)}`] : []),
    ...(localState !== join(stateDir, 'local') ? [`${STATE_DIR_ENV}=${shellWord(localState)}`] : []),
    'mesh runbook dev',
    ...(stateDir !== resolve(DEV_STATE_DIR) ? ['--state-dir', shellWord(stateDir)] : []),
  ].join(' ');
}

/** What `dev` prints once ready: where everything is, and what another terminal needs to use it. */
export function devUsage(info: {
  address: string;
  uiUrl: string;
  taskQueue: string;
  dbFile: string;
  logFile: string;
  localMeshState: string;
  decisions: string;
}): string[] {
  const queue = info.taskQueue === TASK_QUEUE ? '' : ` MESH_TASK_QUEUE=${shellWord(info.taskQueue)}`;
  return [
    'mesh runbook dev is ready',
    `  Temporal gRPC  ${info.address}`,
    `  Web UI         ${info.uiUrl}`,
    `  database       ${info.dbFile} (kept: runbooks resume after a restart)`,
    `  server log     ${info.logFile}`,
    `  worker         task queue ${info.taskQueue}, and ${info.taskQueue}@<node> for every local node; local mesh state ${info.localMeshState}`,
    `  decisions      ${info.decisions}`,
    'In another terminal:',
    `  export TEMPORAL_ADDRESS=${info.address} ${STATE_DIR_ENV}=${shellWord(info.localMeshState)}${queue}`,
    '  mesh local node list',
    '  mesh runbook start edge-flip --node <node> --module <successor> --predecessor <module> \\',
    '    --public-name <host> --public-address <url> --successor-address <url> \\',
    "    --successor-marker <successor's text> --predecessor-marker <predecessor's text>",
    '  mesh runbook list',
    'Ctrl-C stops the worker, then the server.',
  ];
}
