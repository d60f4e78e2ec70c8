import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freeLocalPort } from '../../worker/ports';
import { summarize, type Summary } from './stats';

const MESH = join(__dirname, '..', '..', 'bin', 'mesh.js');

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

function runOnce(args: string[], env: NodeJS.ProcessEnv): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [MESH, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      resolve({ ms, code: code ?? (signal ? 128 : 1), stderr });
    });
  });
}

async function timed(
  label: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  samples: number,
): Promise<CliTiming> {
  const exits: Exit[] = [];
  for (let i = 0; i < samples; i++) exits.push(await runOnce(args, env));
  const said = exits[0]?.stderr.split('\n').find((line) => line.trim() !== '');
  return {
    command: label,
    ms: summarize(exits.map((e) => Math.round(e.ms))),
    exitCodes: exits.map((e) => e.code),
    ...(said ? { said: said.trim() } : {}),
  };
}

/**
 * `mesh --help`, `mesh runbook status <node>` and `mesh runbook list` against the bench's live server, and
 * `mesh runbook status <node>` where nothing listens, `samples` times each (sequentially).
 */
export async function timeCli(address: string, node: string, samples: number): Promise<CliTiming[]> {
  const base: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_NAMESPACE: 'default', NO_COLOR: '1' };
  delete base.MESH_CONFIG;
  const live = { ...base, TEMPORAL_ADDRESS: address };
  const closed = { ...base, TEMPORAL_ADDRESS: `127.0.0.1:${await freeLocalPort()}` };
  return [
    await timed('mesh --help', ['--help'], live, samples),
    await timed(`mesh runbook status ${node}`, ['runbook', 'status', node], live, samples),
    await timed('mesh runbook list', ['runbook', 'list'], live, samples),
    await timed(
      `mesh runbook status ${node} (nothing listens)`,
      ['runbook', 'status', node],
      closed,
      samples,
    ),
  ];
}
