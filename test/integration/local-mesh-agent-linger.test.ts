import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { LocalMesh } from '../../mesh/local';
import { waitForApplyReport } from '../../mesh/wait-for-apply';
import { LocalWorld } from '../support/local-world';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const REPORT_WAIT = { timeoutMs: 60_000, pollMs: 20 };

/** The pids that logged an apply in the node's agent.log, one per applied push, in log order. */
async function applyingPids(mesh: LocalMesh, node: string): Promise<number[]> {
  const text = await readFile(mesh.layout.agentLog(node), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.includes(': applied '))
    .map((line) => (JSON.parse(line) as { pid: number }).pid);
}

/** The agent logs an apply just after saving its report: wait for the log line too. */
async function applyingPidsOnce(mesh: LocalMesh, node: string, applies: number): Promise<number[]> {
  await until(async () => (await applyingPids(mesh, node)).length >= applies, `${applies} applies logged`);
  return applyingPids(mesh, node);
}

/** Reports beyond the last KEPT_REPORTS leave the node's state; the journal keeps every apply. */
async function journalled(mesh: LocalMesh, node: string): Promise<Set<string>> {
  const text = await readFile(mesh.layout.journal(node), 'utf8').catch(() => '');
  return new Set(text.split('\n').map((line) => line.split(' ')[1] ?? ''));
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`still waiting: ${what}`);
    await sleep(25);
  }
}

function withLinger(lingerMs: number): (stateDir: string) => LocalMesh {
  return (stateDir) => new LocalMesh({ stateDir, agentLingerMs: lingerMs });
}

describe('local mesh: the node agent stays for the next push', () => {
  let world: LocalWorld;
  before(async () => (world = await LocalWorld.create(withLinger(60_000))));
  after(() => world.cleanup());

  it('a second push within the linger is applied by the agent already running, not a new process', async () => {
    const node = world.nodeName();
    await world.mesh.createNode(node, { adopted: false });
    const first = await world.mesh.push(node);
    await waitForApplyReport(world.mesh, node, first.pushId, REPORT_WAIT);
    const second = await world.mesh.push(node);
    await waitForApplyReport(world.mesh, node, second.pushId, REPORT_WAIT);

    const pids = await applyingPidsOnce(world.mesh, node, 2);
    assert.equal(pids.length, 2, `two applies logged: ${pids.join(', ')}`);
    assert.equal(pids[0], pids[1], 'one agent applied both pushes');
    assert.ok(await exists(world.mesh.layout.agentPresence(node)), 'the agent still says it watches');
  });

  it('an agent leaves once its node is gone, without recreating the node', async () => {
    const node = world.nodeName();
    await world.mesh.createNode(node, { adopted: false });
    const push = await world.mesh.push(node);
    await waitForApplyReport(world.mesh, node, push.pushId, REPORT_WAIT);
    const [pid] = await applyingPidsOnce(world.mesh, node, 1);
    assert.ok(pid !== undefined);
    await rm(world.mesh.layout.nodeDir(node), { recursive: true, force: true });
    await until(async () => !processRuns(pid), `agent ${pid} to leave`);
    assert.equal(await exists(world.mesh.layout.nodeDir(node)), false);
  });
});

describe('local mesh: a push is never left in the inbox by an agent that is leaving', () => {
  let world: LocalWorld;
  before(async () => (world = await LocalWorld.create(withLinger(40))));
  after(() => world.cleanup());

  it('pushes at random gaps around the linger are all applied, and the agent leaves afterwards', async () => {
    const node = world.nodeName();
    await world.mesh.createNode(node, { adopted: false });
    const pushIds: string[] = [];
    for (let i = 0; i < 40; i += 1) {
      pushIds.push((await world.mesh.push(node)).pushId);
      await sleep(Math.floor(Math.random() * 90));
    }
    await until(
      async () => {
        const journal = await journalled(world.mesh, node);
        return pushIds.every((id) => journal.has(id));
      },
      'every push in the journal',
      REPORT_WAIT.timeoutMs,
    );
    assert.deepEqual(await readdir(world.mesh.layout.inboxDir(node)), [], 'the inbox is empty');
    await until(
      async () => !(await exists(world.mesh.layout.agentPresence(node))),
      'the presence file to go',
    );
    const pids = new Set(await applyingPids(world.mesh, node));
    await until(async () => [...pids].every((pid) => !processRuns(pid)), 'every agent to leave');
  });
});

describe('local mesh: a presence file whose process is not an agent does not stop a push', () => {
  let world: LocalWorld;
  before(async () => (world = await LocalWorld.create(withLinger(1_000))));
  after(() => world.cleanup());

  for (const [who, pid] of [
    ['a running process that is not a node agent (this test)', () => Promise.resolve(process.pid)],
    ['a process that has exited', exitedPid],
  ] as const) {
    it(`names ${who}: the push starts an agent and is applied`, async () => {
      const node = world.nodeName();
      await world.mesh.createNode(node, { adopted: false });
      const presence = { pid: await pid(), token: 'left-behind' };
      await writeFile(world.mesh.layout.agentPresence(node), JSON.stringify(presence));
      const push = await world.mesh.push(node);
      const report = await waitForApplyReport(world.mesh, node, push.pushId, REPORT_WAIT);
      assert.equal(report.pushId, push.pushId);
    });
  }
});

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('agent-main');
  } catch {
    return false;
  }
}

async function exitedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  assert.ok(child.pid !== undefined);
  return child.pid;
}
