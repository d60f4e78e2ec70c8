import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { DB_FILE, portInUse } from '../../worker/dev-server';
import { freePort } from '../support/runbooks';
import { Scratch } from '../support/scratch';

const MESH = join(__dirname, '..', '..', 'bin', 'mesh.js');
const run = promisify(execFile);

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function mesh(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(MESH, args, { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** A SQLite file's journal mode as its header records it: write and read versions 2 in WAL mode. */
async function sqliteJournal(file: string): Promise<'wal' | 'rollback'> {
  const header = (await readFile(file)).subarray(18, 20);
  return header[0] === 2 && header[1] === 2 ? 'wal' : 'rollback';
}

/** `mesh ...` whose stdout reader is gone before it writes a byte: every write it makes meets EPIPE. */
function meshWithoutReader(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Outcome> {
  const child = spawn(process.execPath, [MESH, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout: '', stderr })));
}

describe('mesh as a Unix tool', () => {
  const scratch = new Scratch();
  after(() => scratch.cleanup());

  it('ends quietly with exit 0 when the reader of its output has gone', async () => {
    const env = {
      MESH_TASK_QUEUE: `cli-unix-${randomBytes(4).toString('hex')}`,
      MESH_LOCAL_STATE: await scratch.dir('mesh-unix-'),
    };
    for (const args of [['runbook', '--help'], ['runbook', 'list'], ['local', 'node', 'list'], ['--help']]) {
      const outcome = await meshWithoutReader(args, env);
      assert.deepEqual([outcome.code, outcome.stderr], [0, ''], `mesh ${args.join(' ')}`);
    }
  });

  it('`mesh runbook --help | head -3` prints three lines and exits 0', async () => {
    const { stdout, stderr } = await run(
      'bash',
      ['-c', 'set -o pipefail; "$MESH" runbook --help | head -3'],
      {
        env: { ...process.env, MESH },
      },
    );
    assert.equal(stdout.split('\n').length, 4, stdout);
    assert.match(stdout, /^Usage: mesh runbook /);
    assert.equal(stderr, '');
  });

  it('stops `mesh runbook dev` as on Ctrl-C when its reader has gone: worker drained, server stopped', async () => {
    const stateDir = await scratch.dir('mesh-unix-dev-');
    const [port, uiPort] = [await freePort(), await freePort()];
    const args = ['--state-dir', stateDir, '--port', String(port), '--ui-port', String(uiPort)];
    const outcome = await meshWithoutReader(['runbook', 'dev', ...args], {
      MESH_TASK_QUEUE: `cli-unix-dev-${randomBytes(4).toString('hex')}`,
    });
    assert.equal(outcome.code, 0, outcome.stderr);
    assert.match(outcome.stderr, /SIGINT: stopping/);
    assert.match(
      outcome.stderr,
      /runbooks stay in .*temporal\.db and resume with `MESH_TASK_QUEUE=cli-unix-dev-/,
    );
    assert.doesNotMatch(outcome.stderr, /EPIPE|at .*\.ts:\d+/);
    assert.equal(await portInUse('127.0.0.1', port), false, 'the dev server stopped with it');
    assert.equal(
      await sqliteJournal(join(stateDir, DB_FILE)),
      'wal',
      'the server wrote its file in WAL mode',
    );
  });

  it('stops the demo on SIGTERM as on Ctrl-C: its dev worker and Temporal server stop with it', async () => {
    const stateDir = await scratch.dir('mesh-unix-demo-');
    const node = `sigterm${randomBytes(3).toString('hex')}`;
    const [port, uiPort] = [await freePort(), await freePort()];
    const ports = ['--port', String(port), '--ui-port', String(uiPort)];
    const demo = spawn(
      process.execPath,
      [MESH, 'runbook', 'demo', '--yes', '--keep-running', '--state-dir', stateDir, '--node', node, ...ports],
      { env: { ...process.env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    const seen = new Promise<void>((resolve) => {
      const listen = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes(`runbook-${node}`)) resolve();
      };
      demo.stdout.on('data', listen);
      demo.stderr.on('data', listen);
    });
    const ended = new Promise<NodeJS.Signals | null>((resolve) =>
      demo.on('exit', (_, signal) => resolve(signal)),
    );
    try {
      await seen;
      assert.equal(await portInUse('127.0.0.1', port), true, 'the demo runs its dev server on --port');
      demo.kill('SIGTERM');
      assert.equal(await ended, 'SIGTERM', output);
      assert.match(output, /stopping the Temporal dev server/);
      assert.equal(await portInUse('127.0.0.1', port), false, 'the dev server stopped with the demo');
    } finally {
      await mesh(['runbook', 'demo', '--reset', '--state-dir', stateDir, '--node', node]);
    }
  });

  it('stops `mesh runbook dev` on SIGTERM as on Ctrl-C: its Temporal server leaves its port', async () => {
    const stateDir = await scratch.dir('mesh-unix-dev-term-');
    const [port, uiPort] = [await freePort(), await freePort()];
    const dev = spawn(
      process.execPath,
      [MESH, 'runbook', 'dev', '--state-dir', stateDir, '--port', String(port), '--ui-port', String(uiPort)],
      {
        env: { ...process.env, MESH_TASK_QUEUE: `cli-unix-term-${randomBytes(4).toString('hex')}` },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    const ready = new Promise<void>((resolve) => {
      const listen = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('mesh runbook dev is ready')) resolve();
      };
      dev.stdout.on('data', listen);
      dev.stderr.on('data', listen);
    });
    const ended = new Promise<number | null>((resolve) => dev.on('exit', (code) => resolve(code)));
    await ready;
    assert.equal(await portInUse('127.0.0.1', port), true, 'dev runs its Temporal server on --port');
    dev.kill('SIGTERM');
    assert.equal(await ended, 0, output);
    assert.equal(await portInUse('127.0.0.1', port), false, 'the Temporal server stopped with dev');
    assert.equal(await portInUse('127.0.0.1', uiPort), false, 'its Web UI too');
  });

  it('stops `mesh runbook dev 2>&1 | head -2` quietly even while its worker is still being built', async () => {
    const stateDir = await scratch.dir('mesh-unix-dev-');
    const port = await freePort();
    const dev = `"$MESH" runbook dev --state-dir ${stateDir} --port ${port} --ui-port ${await freePort()}`;
    const { stdout } = await run('bash', ['-c', `set -o pipefail; ${dev} 2>&1 | head -2`], {
      env: { ...process.env, MESH, MESH_TASK_QUEUE: `cli-unix-dev-${randomBytes(4).toString('hex')}` },
    });
    assert.match(stdout, /^starting the Temporal dev server on 127\.0\.0\.1:\d+…\nstarting the worker/);
    assert.equal(await portInUse('127.0.0.1', port), false, 'the dev server stopped with it');
  });

  it("shows each runbook's plan in `start <kind> --help` and every gate's actions in `decide --help`", async () => {
    const flip = await mesh(['runbook', 'start', 'edge-flip', '--help']);
    assert.equal(flip.code, 0, flip.stderr);
    assert.match(
      flip.stdout,
      /^ {2}9\. approve-stop-predecessor +approval before .* \[approval: approve \| abort\]$/m,
    );
    assert.match(flip.stdout, /^ 11\. stop-predecessor +.*; undo restart-predecessor$/m);
    const move = await mesh(['runbook', 'start', 'data-path-move', '--help']);
    assert.match(
      move.stdout,
      /^ +\d+\. catch-up +.*\[gate: recheck \| keep-new \| start-on-new \| abort\]$/m,
    );
    const decide = await mesh(['runbook', 'decide', '--help']);
    assert.match(
      decide.stdout,
      /^ {2}edge-flip\n {4}gate-apply: take \| retry \| recheck \| accept-restarts \| abort$/m,
    );
    assert.match(decide.stdout, /^ {4}approve-remove-old-data: remove \| keep \| recheck$/m);
  });

  it('names an unknown command with exit 2, suggesting the command meant, also before --help', async () => {
    const cases: [string[], string, string][] = [
      [
        ['runbook', 'frobnicate'],
        'mesh runbook has no command "frobnicate".',
        'Its commands: plan, start, watch, status, history, list, approve, decide, pause, resume, sign, abort, clear, worker, dev, demo; see `mesh runbook --help`.',
      ],
      [['runbook', 'plna'], 'mesh runbook has no command "plna".', 'Did you mean `mesh runbook plan`?'],
      [
        ['plna'],
        'mesh has no command "plna".',
        'Its commands: config, completion, local, runbook; see `mesh --help`.',
      ],
      [
        ['runbook', 'stauts', '--help'],
        'mesh runbook has no command "stauts".',
        'Did you mean `mesh runbook status`?',
      ],
      [
        ['runbook', 'help', 'wacth'],
        'mesh runbook has no command "wacth".',
        'Did you mean `mesh runbook watch`?',
      ],
      [['local', 'nod', 'list'], 'mesh local has no command "nod".', 'Did you mean `mesh local node`?'],
      [
        ['runbook', 'start', 'edge-flp', '--help'],
        'There is no runbook kind "edge-flp"; the kinds are edge-flip and data-path-move.',
        'Did you mean `mesh runbook start edge-flip`?',
      ],
    ];
    for (const [args, sentence, suggestion] of cases) {
      const outcome = await mesh(args);
      assert.deepEqual(
        [outcome.code, outcome.stdout, outcome.stderr],
        [2, '', `error: ${sentence}\n${suggestion}\n`],
        `mesh ${args.join(' ')}`,
      );
    }
    const unknown = await mesh(['runbook', 'frobnicate', '--help']);
    assert.deepEqual([unknown.code, unknown.stdout], [2, '']);
  });

  it('shows the commands on stderr with exit 2 when none is named, and help asked for on stdout with exit 0', async () => {
    const bare = await mesh(['runbook']);
    assert.equal(bare.code, 2);
    assert.equal(bare.stdout, '');
    assert.match(bare.stderr, /^Usage: mesh runbook \[options\] \[command\]/);
    const asked = await mesh(['runbook', 'help', 'status']);
    assert.equal(asked.code, 0);
    assert.match(asked.stdout, /^Usage: mesh runbook status \[options\] <id>/);
  });
});
