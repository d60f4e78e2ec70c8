import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { removeNodeContainers } from '../../docker/cleanup';
import { DockerEngine, LABEL } from '../../docker/engine';
import { LocalMesh } from '../../mesh/local';
import { seedForgeScenario } from '../../mesh/local/scenarios/forge-move';
import { runbookWorkflowId } from '../../workflows/contracts';
import { freePort } from '../support/runbooks';
import { Scratch } from '../support/scratch';
import { stepLinesShownAgain } from '../support/step-lines';

const MESH = join(__dirname, '..', '..', 'bin', 'mesh.js');
const run = promisify(execFile);
const RESUME = /Resume the demo with `([^`]+)`/;

type Shell = ChildProcessByStdio<null, Readable, Readable>;

/** Runs a command line as printed, through bash, with `mesh` on PATH (no terminal: stdin is /dev/null). */
function shell(
  line: string,
  binDir: string,
): { child: Shell; output: () => string; exited: Promise<number | null> } {
  // Its own process group, so a demo that does not stop can be killed with its dev server and worker.
  const child = spawn('bash', ['-c', `exec ${line}`], {
    env: { ...process.env, PATH: `${binDir}:${process.env.PATH ?? ''}` },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function printed(output: () => string, pattern: RegExp, timeoutMs = 240_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = pattern.exec(output());
    if (found) return found;
    if (Date.now() > deadline)
      assert.fail(`no ${pattern} within ${timeoutMs / 1000} s; output:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

describe('mesh runbook demo: resets its state, and says the command that really resumes it', () => {
  const scratch = new Scratch();
  const node = `demo${randomBytes(3).toString('hex')}`;
  const earlierNode = `${node}-earlier`;
  const forgeNode = `${node}-forge`;
  const flipNode = `${node}-flip`;
  let running: Shell | undefined;

  after(async () => {
    if (running && running.exitCode === null) {
      const demo = running;
      const gone = new Promise((resolve) => demo.once('close', resolve));
      demo.kill('SIGINT');
      // A demo that has not stopped 30 s after SIGINT would hold this file open: its group goes.
      const late = setTimeout(() => demo.pid && process.kill(-demo.pid, 'SIGKILL'), 30_000);
      await gone;
      clearTimeout(late);
    }
    await removeNodeContainers([node, earlierNode, forgeNode, flipNode]);
    await scratch.cleanup();
  });

  it('stops without a terminal, resumes with the printed command, moves on by a decision from elsewhere', async () => {
    const stateDir = await scratch.dir('mesh-demo-');
    const binDir = await scratch.dir('mesh-demo-bin-');
    await symlink(MESH, join(binDir, 'mesh'));
    const engine = new DockerEngine();
    const containersOf = async (name: string) => (await engine.listByLabels({ [LABEL.node]: name })).length;

    // What an earlier demo in the same state left running: a reset must not leave it on a deleted data dir.
    const earlier = new LocalMesh({ stateDir: join(stateDir, 'local'), engine });
    await seedForgeScenario(earlier, {
      node: earlierNode,
      module: 'forge',
      image: 'mesh-local/forge:latest',
      from: '/srv/forge',
      port: await freePort(),
    });
    assert.equal(await containersOf(earlierNode), 1);

    const ports = `--port ${await freePort()} --ui-port ${await freePort()}`;
    const first = shell(`mesh runbook demo --state-dir ${stateDir} --node ${node} ${ports}`, binDir);
    running = first.child;
    assert.equal(await first.exited, 3, first.output());
    assert.equal(await containersOf(earlierNode), 0, 'the reset removed the earlier demo node’s container');
    const id = runbookWorkflowId(node);
    assert.match(first.output(), /‖ waiting at gate-apply \(held\)/);
    // Before it starts the runbook, the demo shows what the plan predicted: the take that then came.
    const predicted = first
      .output()
      .indexOf('you will be asked to `take` route-proxy: /var/lib/route-proxy/{www,ca,dns} exist on');
    assert.ok(predicted >= 0 && predicted < first.output().indexOf(`started ${id}`), first.output());
    assert.match(
      first.output(),
      new RegExp(`the demo stops here, and ${id} waits at gate-apply for a decision`),
    );
    const command = (RESUME.exec(first.output()) ?? assert.fail(first.output()))[1] ?? '';
    assert.equal(command, `mesh runbook demo --resume --state-dir ${stateDir} ${ports}`);
    assert.ok(first.output().includes(`resume with \`${command}\``), 'dev, stopping, names the same command');

    const resumed = shell(command, binDir);
    running = resumed.child;
    const address = (
      await printed(resumed.output, /waiting for a decision at gate-apply: .* TEMPORAL_ADDRESS=(\S+),/)
    )[1];
    const decided = await run(MESH, ['runbook', 'decide', node, 'take', '--as', 'tester'], {
      env: { ...process.env, TEMPORAL_ADDRESS: address },
    });
    assert.match(decided.stdout, /recorded: take at gate-apply by tester/);
    await printed(resumed.output, /waiting for a decision at approve-stop-predecessor/);

    resumed.child.kill('SIGINT');
    assert.equal(await resumed.exited, 130, resumed.output());
    assert.match(
      resumed.output(),
      new RegExp(`stopped; ${id} waits at approve-stop-predecessor\\. Resume the demo`),
    );
    assert.equal(RESUME.exec(resumed.output())?.[1], command, 'the same command resumes it again');

    // Each run ends by saying what it leaves and the command that removes it; that command does.
    for (const output of [first.output(), resumed.output()]) {
      assert.match(
        output,
        new RegExp(
          `demo: left behind on the local Docker engine: \\d+ running container\\(s\\) of ${node} \\(.*${node}\\.caddy\\.edge`,
        ),
      );
      assert.ok(
        output.includes(`remove them all with \`mesh runbook demo --reset --state-dir ${stateDir}\``),
        output,
      );
    }
    assert.ok((await containersOf(node)) > 0);
    const reset = shell(`mesh runbook demo --reset --state-dir ${stateDir}`, binDir);
    assert.equal(await reset.exited, 0, reset.output());
    assert.equal(await containersOf(node), 0, reset.output());
  });

  it('edge-flip --yes, the README’s demo, shows each step once across its two decisions', async () => {
    const stateDir = await scratch.dir('mesh-demo-flip-');
    const binDir = await scratch.dir('mesh-demo-flip-bin-');
    await symlink(MESH, join(binDir, 'mesh'));
    const ports = `--port ${await freePort()} --ui-port ${await freePort()}`;
    const demo = shell(`mesh runbook demo --yes --state-dir ${stateDir} --node ${flipNode} ${ports}`, binDir);
    running = demo.child;
    assert.equal(await demo.exited, 0, demo.output());
    assert.match(demo.output(), /demo --yes decides at gate-apply: take/);
    assert.match(demo.output(), /demo --yes decides at approve-stop-predecessor: approve/);
    assert.deepEqual(stepLinesShownAgain(demo.output()), [], demo.output());
    assert.equal(demo.output().match(/^following /gm)?.length, 1, demo.output());
  });

  it('data-path-move --yes shows each step once and ends by naming the container it leaves and the command that removes it', async () => {
    const stateDir = await scratch.dir('mesh-demo-move-');
    const binDir = await scratch.dir('mesh-demo-move-bin-');
    await symlink(MESH, join(binDir, 'mesh'));
    const ports = `--port ${await freePort()} --ui-port ${await freePort()}`;
    const demo = shell(
      `mesh runbook demo data-path-move --yes --state-dir ${stateDir} --node ${forgeNode} ${ports}`,
      binDir,
    );
    running = demo.child;
    assert.equal(await demo.exited, 0, demo.output());
    // After each decision the view goes on from where it stopped: no status block, no replay of the steps.
    assert.deepEqual(stepLinesShownAgain(demo.output()), [], demo.output());
    assert.equal(demo.output().match(/^following /gm)?.length, 1, demo.output());
    assert.match(
      demo.output(),
      new RegExp(
        `demo: left behind on the local Docker engine: 1 running container\\(s\\) of ${forgeNode} \\(${forgeNode}\\.forge\\.web\\)`,
      ),
    );
    const command = /remove them all with `([^`]+)`/.exec(demo.output())?.[1] ?? assert.fail(demo.output());
    assert.equal(command, `mesh runbook demo --reset --state-dir ${stateDir}`);
    const reset = shell(command, binDir);
    assert.equal(await reset.exited, 0, reset.output());
    assert.deepEqual(await new DockerEngine().listByLabels({ [LABEL.node]: forgeNode }), []);
  });
});
