import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freeLocalPort } from '../../worker/ports';
import { summarize, type Summary } from './stats';

export const MESH = join(__dirname, '..', '..', 'bin', 'mesh.js');

/**
 * Another checkout's bin/mesh.js (e.g. the commit before a change), timed alternately with this one, sample
 * by sample, so both see the same machine load.
 */
export const BASELINE_ENV = 'MESH_BENCH_CLI_BASELINE';

/** One CLI command timed as a new user meets it: a whole process, start to exit. */
export interface CliTiming {
  command: string;
  ms: Summary | undefined;
  exitCodes: number[];
  /** The first line it printed on stderr (what "nothing listens" says), when it printed one. */
  said?: string;
}

interface Exit {
  ms: number;
  code: number;
  stderr: string;
}

function runOnce(argv: string[], env: NodeJS.ProcessEnv): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, argv, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      resolve({ ms, code: code ?? (signal ? 128 : 1), stderr });
    });
  });
}

interface Contender {
  label: string;
  argv: string[];
  env: NodeJS.ProcessEnv;
}

function timing(label: string, exits: Exit[]): CliTiming {
  const said = exits[0]?.stderr.split('\n').find((line) => line.trim() !== '');
  return {
    command: label,
    ms: summarize(exits.map((e) => Math.round(e.ms))),
    exitCodes: exits.map((e) => e.code),
    ...(said ? { said: said.trim() } : {}),
  };
}

/** Each contender `samples` times, taking turns sample by sample. */
async function alternated(contenders: Contender[], samples: number): Promise<CliTiming[]> {
  const exits = contenders.map((): Exit[] => []);
  for (let i = 0; i < samples; i++)
    for (const [at, contender] of contenders.entries())
      exits[at]?.push(await runOnce(contender.argv, contender.env));
  return contenders.map((contender, at) => timing(contender.label, exits[at] ?? []));
}

/** A live Temporal the CLI is pointed at; the namespace is `default` (the dev server's) unless given. */
export interface CliServer {
  address: string;
  taskQueue: string;
  namespace?: string;
}

/** The CLI's environment: no operator config, no colour; `server` live, when given. */
export function cliEnv(server?: CliServer): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_NAMESPACE: 'default', NO_COLOR: '1' };
  delete env.MESH_CONFIG;
  delete env[BASELINE_ENV];
  if (!server) return env;
  const live = { ...env, TEMPORAL_ADDRESS: server.address, MESH_TASK_QUEUE: server.taskQueue };
  return server.namespace ? { ...live, TEMPORAL_NAMESPACE: server.namespace } : live;
}

/** `mesh runbook status <name>` against the live server, `samples` times, as an operator asks it. */
export async function timeStatus(server: CliServer, name: string, samples: number): Promise<CliTiming> {
  const argv = [MESH, 'runbook', 'status', name];
  const [timed] = await alternated(
    [{ label: `mesh runbook status ${name}`, argv, env: cliEnv(server) }],
    samples,
  );
  if (!timed) throw new Error('no status timing');
  return timed;
}

/**
 * `mesh --help`, `mesh runbook status <node>` (a completed flip's) and `mesh runbook list` (the bench's
 * runbooks) against the bench's live server, and `mesh runbook status <node>` where nothing listens,
 * `samples` times each (sequentially); with the floors they stand on: node starting and exiting, and node
 * loading Temporal's client SDK. With $MESH_BENCH_CLI_BASELINE set, that CLI takes its turn beside this one
 * in every command.
 */
export async function timeCli(
  server: { address: string; taskQueue: string },
  node: string,
  samples: number,
): Promise<CliTiming[]> {
  const base = cliEnv();
  const live = cliEnv(server);
  const closed = { ...base, TEMPORAL_ADDRESS: `127.0.0.1:${await freeLocalPort()}` };
  const baseline = process.env[BASELINE_ENV];
  const clis = [{ bin: MESH, suffix: '' }, ...(baseline ? [{ bin: baseline, suffix: ' [baseline]' }] : [])];
  const commands: { label: string; args: string[]; env: NodeJS.ProcessEnv }[] = [
    { label: 'mesh --help', args: ['--help'], env: live },
    { label: `mesh runbook status ${node}`, args: ['runbook', 'status', node], env: live },
    { label: 'mesh runbook list', args: ['runbook', 'list'], env: live },
    {
      label: `mesh runbook status ${node} (nothing listens)`,
      args: ['runbook', 'status', node],
      env: closed,
    },
  ];
  const floors = await alternated(
    [
      { label: 'floor: node -e 0', argv: ['-e', '0'], env: base },
      {
        label: 'floor: node -e "require(\'@temporalio/client\')"',
        argv: ['-e', `require(${JSON.stringify(require.resolve('@temporalio/client'))})`],
        env: base,
      },
    ],
    samples,
  );
  const timings: CliTiming[] = [];
  for (const { label, args, env } of commands) {
    const contenders = clis.map(({ bin, suffix }) => ({
      label: `${label}${suffix}`,
      argv: [bin, ...args],
      env,
    }));
    timings.push(...(await alternated(contenders, samples)));
  }
  return [...timings, ...floors];
}
