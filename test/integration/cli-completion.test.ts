import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { Client, Connection, WorkflowHandle } from '@temporalio/client';
import { runbookWorkflowId } from '../../workflows/contracts';
import { MESH } from '../support/mesh-cli';
import { freePort } from '../support/runbooks';
import { Scratch } from '../support/scratch';
import { connectHarnessClient } from '../support/temporal';

const run = promisify(execFile);

/** A shell that does not end is a completion that hangs: it is killed, and the test fails, after this. */
const SHELL_BOUND_MS = 120_000;

/**
 * Completes each line in one bash: the script sourced as an operator sources it, then per line COMP_WORDS
 * and COMP_CWORD as bash's own completion sets them (the last word is under the cursor), `_mesh` called, and
 * COMPREPLY printed. Returns the candidates of each line.
 */
async function bashCompletes(script: string, lines: string[][], env: NodeJS.ProcessEnv): Promise<string[][]> {
  const drive = [
    `source ${script}`,
    ...lines.map((words) => {
      const quoted = words.map((word) => `'${word}'`).join(' ');
      return `COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _mesh; printf '%s\\037' "\${COMPREPLY[@]}"; echo`;
    }),
  ].join('\n');
  const { stdout } = await run('bash', ['--norc', '--noprofile', '-c', drive], {
    env,
    timeout: SHELL_BOUND_MS,
  });
  const replies = stdout.split('\n').slice(0, lines.length);
  return replies.map((reply) => reply.split('\x1f').filter((word) => word !== ''));
}

/**
 * Types each line into an interactive zsh (under zsh's own pseudo-terminal, zpty), presses Tab, and reads
 * the line as zsh's completion left it (a widget bound to ^X prints $BUFFER, then empties it for the next).
 */
async function zshTabs(
  script: string,
  lines: string[],
  env: NodeJS.ProcessEnv,
  home: string,
): Promise<string[]> {
  const typed = lines.map(
    (line) => `zpty -w -n z '${line}'$'\\t\\x18'
zpty -r z out '*>>>*'
print -r -- "\${\${out##*<<<}%%>>>*}"`,
  );
  const driver = [
    'zmodload zsh/zpty',
    "zpty -b z 'zsh -f -i'",
    `zpty -w z 'PS1="READY> "; autoload -Uz compinit && compinit -u -d ${home}/.zcompdump; source ${script}; print -r -- SOURCED'`,
    "zpty -r z out '*SOURCED*'",
    "zpty -r z out '*READY> '",
    `zpty -w z 'show-buffer() { print -r -- "<<<$BUFFER>>>" >/dev/tty; BUFFER="" }; zle -N show-buffer; bindkey "^X" show-buffer'`,
    "zpty -r z out '*READY> '",
    ...typed,
    'zpty -d z',
  ].join('\n');
  const file = join(home, 'drive.zsh');
  await writeFile(file, driver);
  const { stdout } = await run('zsh', ['-f', file], { env, timeout: SHELL_BOUND_MS });
  return stdout.split('\n').slice(0, lines.length);
}

describe('mesh completion bash|zsh: verbs, options, kinds; runbook ids and nodes from Temporal', () => {
  const scratch = new Scratch();
  const node = `compl${randomBytes(3).toString('hex')}`;
  const taskQueue = `completion-${randomBytes(4).toString('hex')}`;
  let client: Client;
  let connection: Connection;
  let runbook: WorkflowHandle;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const silent: Socket[] = [];
  let blackHole: Server;

  before(async () => {
    dir = await scratch.dir('mesh-completion-');
    // `mesh` and `mesh-runbook` on the PATH, as the bootstrap links them
    await mkdir(join(dir, 'bin'));
    await symlink(MESH, join(dir, 'bin', 'mesh'));
    await symlink(MESH, join(dir, 'bin', 'mesh-runbook'));
    await mkdir(join(dir, 'state-dir'));
    env = {
      ...process.env,
      PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}`,
      MESH_TASK_QUEUE: taskQueue,
      HOME: dir,
      // Temporal's answer is what these tests look at, not how fast a loaded machine gives it.
      MESH_COMPLETION_WAIT_MS: '60000',
    };
    for (const shell of ['bash', 'zsh']) {
      const { stdout } = await run(MESH, ['completion', shell], { env });
      await writeFile(join(dir, `mesh.${shell}`), stdout);
    }
    ({ client, connection } = await connectHarnessClient());
    // No worker polls this queue: the run stays as it started, as a runbook whose worker is down does.
    runbook = await client.workflow.start('edgeFlip', {
      taskQueue,
      workflowId: runbookWorkflowId(node),
      args: [],
    });
    // The list reads Temporal's visibility store, which has the run a moment after its start.
    const query = `WorkflowId = '${runbook.workflowId}'`;
    while ((await client.workflow.count(query)).count === 0)
      await new Promise((resolve) => setTimeout(resolve, 100));
    // Takes connections and never answers: a Temporal that hangs.
    blackHole = createServer((socket) => silent.push(socket));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
  });

  after(async () => {
    await runbook?.terminate('the completion test is over').catch(() => undefined);
    await connection?.close();
    silent.forEach((socket) => socket.destroy());
    blackHole?.close();
    await scratch.cleanup();
  });

  it('bash: verbs, a verb’s options, the kinds, option values, files, `help`, and as mesh-runbook the runbook verbs', async () => {
    const replies = await bashCompletes(
      join(dir, 'mesh.bash'),
      [
        ['mesh', ''],
        ['mesh', 'runbook', 'st'],
        ['mesh', 'runbook', 'start', ''],
        ['mesh', 'runbook', 'plan', 'd'],
        ['mesh', 'runbook', 'demo', ''],
        ['mesh', 'runbook', 'start', 'edge-flip', '--no'],
        ['mesh', 'runbook', 'list', '--j'],
        ['mesh', 'completion', ''],
        ['mesh', 'runbook', 'help', 'wa'],
        ['mesh', '--config', join(dir, 'mesh.b')],
        ['mesh', '--config', '=', join(dir, 'mesh.b')],
        ['mesh', 'runbook', 'dev', '--state-dir', join(dir, 'state-d')],
        ['mesh-runbook', 'stat'],
        ['mesh-runbook', 'status', '--j'],
        ['mesh', 'local', 'node', 'show', ''],
      ],
      env,
    );
    assert.deepEqual(replies, [
      ['config', 'completion', 'local', 'runbook', 'help'],
      ['start', 'status'],
      ['edge-flip', 'data-path-move'],
      ['data-path-move'],
      ['edge-flip', 'data-path-move', 'fleet'],
      ['--node', '--node-header', '--nodes'],
      ['--json'],
      ['bash', 'zsh'],
      ['watch'],
      [join(dir, 'mesh.bash')],
      [join(dir, 'mesh.bash')],
      [join(dir, 'state-dir')],
      ['status'],
      ['--json'],
      [],
    ]);
  });

  it('bash: runbook ids and nodes from the task queue where a runbook or a node goes; nothing when Temporal is away', async () => {
    const lines = [
      ['mesh', 'runbook', 'status', ''],
      ['mesh', 'runbook', 'decide', 'runbook-compl'],
      ['mesh', 'runbook', 'list', '--node', ''],
      ['mesh', 'runbook', 'start', 'edge-flip', '--nodes', `a,${node.slice(0, 6)}`],
      ['mesh', 'runbook', 'start', 'edge-flip', '--node', '=', node.slice(0, 6)],
    ];
    assert.deepEqual(await bashCompletes(join(dir, 'mesh.bash'), lines, env), [
      [runbookWorkflowId(node), node],
      [runbookWorkflowId(node)],
      [node],
      [`a,${node}`],
      [node],
    ]);
    const away = { ...env, TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` };
    assert.deepEqual(await bashCompletes(join(dir, 'mesh.bash'), lines.slice(0, 1), away), [[]]);
  });

  it('asks a Temporal that never answers for a bounded time, and offers nothing', async () => {
    const address = blackHole.address();
    assert.ok(address && typeof address === 'object');
    const { stdout, stderr } = await run(MESH, ['completion', 'bash', '--runbooks'], {
      env: { ...env, TEMPORAL_ADDRESS: `127.0.0.1:${address.port}`, MESH_COMPLETION_WAIT_MS: undefined },
      timeout: SHELL_BOUND_MS,
    });
    assert.ok(silent.length > 0, 'it did ask');
    assert.equal(stdout, '');
    assert.equal(stderr, '');
  });

  it('where mesh on the PATH is another program, completes mesh-runbook only and leaves mesh to it', async () => {
    const controller = join(dir, 'controller');
    await mkdir(controller);
    await writeFile(join(controller, 'mesh'), '#!/bin/sh\necho the real mesh controller\n', { mode: 0o755 });
    const withController = { ...env, PATH: `${controller}:${env.PATH ?? ''}` };
    const { stdout } = await run('mesh-runbook', ['completion', 'bash'], { env: withController });
    await writeFile(join(dir, 'plugin.bash'), stdout);
    const { stdout: registered } = await run(
      'bash',
      [
        '--norc',
        '--noprofile',
        '-c',
        `source ${join(dir, 'plugin.bash')}; complete -p mesh-runbook; complete -p mesh || echo "mesh: none"`,
      ],
      { env: withController, timeout: SHELL_BOUND_MS },
    );
    assert.deepEqual(registered.trim().split('\n'), ['complete -F _mesh mesh-runbook', 'mesh: none']);
    assert.deepEqual(
      await bashCompletes(join(dir, 'plugin.bash'), [['mesh-runbook', 'sta']], withController),
      [['start', 'status']],
    );
  });

  it('refuses a shell it has no script for: one sentence naming the two, exit 2', async () => {
    const refused = await run(MESH, ['completion', 'fish'], { env }).then(
      () => assert.fail('fish was taken'),
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /'fish' is invalid for argument 'shell'\. Allowed choices are bash, zsh\./);
  });

  it('zsh: Tab in an interactive zsh completes verbs, kinds, options and a runbook id from Temporal', async () => {
    const home = await scratch.dir('mesh-completion-zsh-');
    const script = join(dir, 'mesh.zsh');
    assert.deepEqual(
      await zshTabs(
        script,
        [
          'mesh runbook stat',
          'mesh runbook start edge',
          'mesh runbook demo fl',
          'mesh runbook list --wait',
          'mesh runbook watch runbook-compl',
        ],
        env,
        home,
      ),
      [
        'mesh runbook status ',
        'mesh runbook start edge-flip ',
        'mesh runbook demo fleet ',
        'mesh runbook list --waiting ',
        `mesh runbook watch ${runbookWorkflowId(node)} `,
      ],
    );
  });
});
