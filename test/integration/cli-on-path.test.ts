import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { removeNodeContainers } from '../../docker/cleanup';
import { freePort } from '../support/runbooks';
import { Scratch } from '../support/scratch';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');

const quoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** `command` in a new login bash that has nothing of this process's environment but who it is. */
function inNewLoginShell(command: string, env: Record<string, string> = {}): string {
  const who = ['HOME', 'USER', 'LOGNAME', 'LANG'].flatMap((key) =>
    process.env[key] ? [`${key}=${quoted(process.env[key])}`] : [],
  );
  const more = Object.entries(env).map(([key, value]) => `${key}=${quoted(value)}`);
  return `env -i ${[...who, 'SHELL=/bin/bash', ...more].join(' ')} bash -lc ${quoted(command)}`;
}

/** What one command said (stdout and stderr) and its exit status. */
interface Said {
  output: string;
  status: number;
}

/**
 * This machine with /usr/local/bin under a private overlay (`overlay`: its upper and work directories,
 * kept across calls): runs `commands` (bash, from the checkout) in a mount namespace of their own, where what
 * they link into /usr/local/bin is seen by every login shell they start, and by nothing else.
 */
async function onThisMachine(overlay: string, commands: string[]): Promise<Said[]> {
  await mkdir(join(overlay, 'upper'), { recursive: true });
  await mkdir(join(overlay, 'work'), { recursive: true });
  const script = [
    'set -e',
    `mount -t overlay overlay -o lowerdir=/usr/local/bin,upperdir=${overlay}/upper,workdir=${overlay}/work /usr/local/bin`,
    `cd ${ROOT}`,
    ...commands.map((command) => `echo "@@"; status=0; ${command} 2>&1 || status=$?; echo "@@ $status"`),
  ].join('\n');
  const { stdout } = await run('unshare', ['--mount', '--propagation', 'private', 'bash', '-c', script], {
    timeout: 600_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return [...stdout.matchAll(/^@@\n([\s\S]*?)^@@ (\d+)$/gm)].map((m) => ({
    output: m[1] ?? '',
    status: Number(m[2]),
  }));
}

/** The bootstrap's line for its step "mesh on PATH": what it did, without its timing. */
function onPathLine(bootstrap: string): string {
  return /^bootstrap: mesh on PATH\s+(.*?)\s+\d+s$/m.exec(bootstrap)?.[1] ?? assert.fail(bootstrap);
}

/** Every command a demo's output prints (in backquotes) from the runbook's end on, in order. */
function commandsPrintedAtTheEnd(demo: string): string[] {
  const end = demo.search(/^completed: /m);
  assert.ok(end >= 0, `the demo did not complete:\n${demo}`);
  return [...demo.slice(end).matchAll(/`(mesh [^`]+)`/g)].map((m) => m[1] ?? '');
}

describe('after the bootstrap, a new login shell runs mesh (real login bash, /usr/local/bin overlaid)', () => {
  const scratch = new Scratch();
  const node = `onpath${randomBytes(3).toString('hex')}`;
  after(async () => {
    await removeNodeContainers([node]);
    await scratch.cleanup();
  });

  it('after ./scripts/demo --yes, every command the demo printed at its end works as printed in a new login shell', async () => {
    const overlay = await scratch.dir('mesh-on-path-');
    const state = await scratch.dir('mesh-on-path-state-');
    const demoState = join(state, 'demo');
    const ports = `--port ${await freePort()} --ui-port ${await freePort()}`;
    const [demo = assert.fail('the demo did not run')] = await onThisMachine(overlay, [
      inNewLoginShell(`cd ${ROOT} && ./scripts/demo --yes --state-dir ${demoState} --node ${node} ${ports}`, {
        MESH_STATE_DIR: state,
      }),
    ]);
    assert.equal(demo.status, 0, demo.output);
    const printed = commandsPrintedAtTheEnd(demo.output);
    const reset = `mesh runbook demo --reset --state-dir ${demoState}`;
    assert.ok(printed.includes(reset), `the demo named no reset command:\n${demo.output}`);

    // A later login, as the operator opens a new terminal: the links the bootstrap made stay.
    const said = await onThisMachine(overlay, [
      inNewLoginShell('command -v mesh mesh-runbook'),
      ...printed.map((command) => inNewLoginShell(command)),
      inNewLoginShell('mesh runbook --help'),
      inNewLoginShell('mesh-runbook status --help'),
      // as `mesh completion --help` says to load it
      inNewLoginShell('source <(mesh completion bash) && complete -p mesh mesh-runbook'),
      inNewLoginShell(`cd ${ROOT} && bash scripts/bootstrap.sh`, { MESH_STATE_DIR: state }),
    ]);
    printed.forEach((command, i) =>
      assert.equal(said[1 + i]?.status, 0, `${command}:\n${said[1 + i]?.output ?? '(not run)'}`),
    );
    const after = said.slice(1 + printed.length);
    assert.deepEqual(said[0], { output: '/usr/local/bin/mesh\n/usr/local/bin/mesh-runbook\n', status: 0 });
    assert.match(
      said[1 + printed.indexOf(reset)]?.output ?? '',
      new RegExp(`demo: removed 3 container\\(s\\) of ${node} and ${demoState}`),
    );
    assert.match(after[0]?.output ?? '', /^Usage: mesh runbook \[options\] \[command\]/);
    assert.match(after[1]?.output ?? '', /^Usage: mesh runbook status \[options\] <id>/, 'as mesh-runbook');
    assert.deepEqual(after[2], {
      output: 'complete -F _mesh mesh\ncomplete -F _mesh mesh-runbook\n',
      status: 0,
    });
    assert.equal(onPathLine(demo.output), 'linked /usr/local/bin/mesh, /usr/local/bin/mesh-runbook');
    assert.equal(
      onPathLine(after[3]?.output ?? ''),
      'up to date (/usr/local/bin/mesh, /usr/local/bin/mesh-runbook)',
    );
  });

  it('leaves an operator’s own mesh alone and says so; this CLI is mesh-runbook there', async () => {
    const overlay = await scratch.dir('mesh-on-path-');
    const state = await scratch.dir('mesh-on-path-state-');
    const controller =
      'printf "%s\\n" "#!/bin/sh" "echo the real mesh controller" >/usr/local/bin/mesh && chmod +x /usr/local/bin/mesh';
    const said = await onThisMachine(overlay, [
      controller,
      inNewLoginShell(`cd ${ROOT} && bash scripts/bootstrap.sh`, { MESH_STATE_DIR: state }),
      inNewLoginShell('mesh runbook status novox'),
      inNewLoginShell('mesh-runbook runbook --help'),
    ]);
    assert.equal(said[1]?.status, 0, said[1]?.output);
    assert.deepEqual(said[2], { output: 'the real mesh controller\n', status: 0 });
    assert.match(said[3]?.output ?? '', /^Usage: mesh runbook \[options\] \[command\]/);
    assert.equal(
      onPathLine(said[1]?.output ?? ''),
      'linked /usr/local/bin/mesh-runbook; /usr/local/bin/mesh is another program, left alone: this CLI is mesh-runbook here',
    );
  });
});
