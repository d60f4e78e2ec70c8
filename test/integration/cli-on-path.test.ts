import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Scratch } from '../support/scratch';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
/** The bootstrap's step "mesh on PATH" (scripts/bootstrap.sh), as it runs it. */
const STEP = 'node --import tsx scripts/cli-on-path.ts';

/**
 * Runs `commands` (bash) in a mount namespace of their own, where /usr/local/bin is this machine's under a
 * private overlay: what they link there is seen by every login shell they start, and by nothing else.
 * Returns each command's output (and its exit status when not 0), in order.
 */
async function onThisMachine(scratch: Scratch, commands: string[]): Promise<string[]> {
  const overlay = await scratch.dir('mesh-on-path-');
  await mkdir(join(overlay, 'upper'));
  await mkdir(join(overlay, 'work'));
  const script = [
    'set -e',
    `mount -t overlay overlay -o lowerdir=/usr/local/bin,upperdir=${overlay}/upper,workdir=${overlay}/work /usr/local/bin`,
    `cd ${ROOT}`,
    ...commands.map(
      (command) => `echo "@@ ${command.replace(/"/g, '\\"')}"; ${command} 2>&1 || echo "exit $?"`,
    ),
  ].join('\n');
  const { stdout } = await run('unshare', ['--mount', '--propagation', 'private', 'bash', '-c', script], {
    timeout: 300_000,
  });
  return stdout
    .split(/^@@ /m)
    .slice(1)
    .map((part) => part.slice(part.indexOf('\n') + 1));
}

describe('after the bootstrap, a new login shell runs mesh (a real login bash, /usr/local/bin overlaid)', () => {
  const scratch = new Scratch();
  after(() => scratch.cleanup());

  it('links mesh and mesh-runbook; a login shell runs what the CLI prints; the step again is up to date', async () => {
    const demoState = await scratch.dir('mesh-on-path-demo-');
    const printed = `mesh runbook demo --reset --state-dir ${demoState}`;
    const outputs = await onThisMachine(scratch, [
      STEP,
      "bash -lc 'command -v mesh mesh-runbook'",
      "bash -lc 'mesh runbook --help'",
      `bash -lc '${printed}'`,
      "bash -lc 'mesh-runbook status --help'",
      STEP,
    ]);
    assert.equal(outputs[0], 'linked /usr/local/bin/mesh, /usr/local/bin/mesh-runbook\n');
    assert.equal(outputs[1], '/usr/local/bin/mesh\n/usr/local/bin/mesh-runbook\n');
    assert.match(outputs[2] ?? '', /^Usage: mesh runbook \[options\] \[command\]/);
    assert.match(outputs[3] ?? '', new RegExp(`demo: removed 0 container\\(s\\) and ${demoState}`));
    assert.match(
      outputs[4] ?? '',
      /^Usage: mesh runbook status \[options\] <id>/,
      'as mesh-runbook, the plugin',
    );
    assert.equal(outputs[5], 'up to date (/usr/local/bin/mesh, /usr/local/bin/mesh-runbook)\n');
  });

  it('leaves an operator’s own mesh alone and says so; this CLI is mesh-runbook there', async () => {
    const controller =
      'printf "%s\\n" "#!/bin/sh" "echo the real mesh controller" >/usr/local/bin/mesh && chmod +x /usr/local/bin/mesh';
    const said = await onThisMachine(scratch, [
      controller,
      STEP,
      "bash -lc 'mesh runbook status novox'",
      "bash -lc 'mesh-runbook runbook --help'",
    ]);
    assert.equal(
      said[1],
      'linked /usr/local/bin/mesh-runbook; /usr/local/bin/mesh is another program, left alone: this CLI is mesh-runbook here\n',
    );
    assert.equal(said[2], 'the real mesh controller\n');
    assert.match(said[3] ?? '', /^Usage: mesh runbook \[options\] \[command\]/);
  });
});
