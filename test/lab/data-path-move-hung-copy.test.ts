import assert from 'node:assert/strict';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { RunbookStatus } from '../../workflows/contracts';
import { addBulkData } from '../support/data-move';
import { FrozenDisk } from '../support/frozen-disk';
import { Lab } from '../support/lab';
import { labRunSince, labStatusWhen, seedForge } from '../support/lab-stories';

const NODE = 'forge1';
const FROM = '/srv/forge';
const TO = '/mnt/frozen/forge';

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** How many entries the copy has made in B so far (its top directories' children). */
async function entriesIn(root: string): Promise<number> {
  const count = async (dir: string): Promise<number> => {
    const names = await readdir(dir, { withFileTypes: true }).catch(() => []);
    let total = names.length;
    for (const entry of names) if (entry.isDirectory()) total += await count(join(dir, entry.name));
    return total;
  };
  return count(root);
}

/**
 * An abort while the copy hangs in a frozen file system, on the production-shaped lab: forge1's node worker
 * is a process of its own, whose every file system call goes through libuv's four-thread pool, and the copy's
 * writes into B (an ext4 of the test's own, frozen with fsfreeze in the middle of the copy) hold all four
 * threads. The undo's start of the forge on A needs none of them: its host check no longer reads the host's
 * machine id per activity, and the controller is reached through meshctl, a process of its own.
 */
describe('an abort while the copy hangs on the production-shaped lab', () => {
  let lab: Lab;
  before(async () => {
    lab = await Lab.story();
  });

  it('after the grace the forge serves from A again while the copy still hangs; B is removed once it stopped', async () => {
    await seedForge(lab, NODE);
    await addBulkData(lab.onDisk(NODE, FROM), 60, 8_000);
    await using disk = await FrozenDisk.mount(
      lab.onDisk(NODE, '/mnt/frozen'),
      join(lab.dir, `frozen-${process.pid}.img`),
      512,
    );
    const args = ['--node', NODE, '--module', 'forge', '--from', FROM, '--to', TO];
    const since = new Date();
    const started = await lab.cli('runbook', 'start', 'data-path-move', ...args, '--yes', '--detach');
    assert.equal(started.code, 0, started.stderr);
    const { client, connection } = await lab.client();
    try {
      const handle = await labRunSince(client, `runbook-${NODE}`, since);
      const hostTo = lab.onDisk(NODE, TO);
      const deadline = Date.now() + 120_000;
      while ((await entriesIn(hostTo)) < 500) {
        assert.ok(Date.now() < deadline, 'the copy never got going');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await disk.freeze();
      const frozen: RunbookStatus = await labStatusWhen(handle, () => true);
      assert.equal(
        frozen.steps.find((s) => s.name === 'copy')?.state,
        'running',
        'frozen in the middle of the copy',
      );

      // What `mesh runbook abort` sends (the CLI would follow the runbook to its end, after the thaw).
      await handle.cancel();
      const passed: RunbookStatus = await labStatusWhen(
        handle,
        (s) => s.steps.find((x) => x.name === 'restart-on-old-path')?.state === 'compensated',
        240_000,
      );
      assert.equal(passed.phase, 'running', 'the copy still hangs');
      const [web] = await lab.engine(NODE).listByLabels({ 'org.meshctl.module': 'forge' });
      const info = await lab.engine(NODE).inspect(web?.Id ?? '');
      assert.equal(info?.State.Running, true, 'the forge runs again');
      assert.deepEqual(
        info?.Mounts.map((m) => m.Source),
        [lab.onDisk(NODE, FROM)],
      );
      const removal = await labStatusWhen(
        handle,
        (s) => s.steps.find((x) => x.name === 'remove-copy')?.state === 'running',
      );
      assert.match(
        removal.steps.find((s) => s.name === 'remove-copy')?.note ?? '',
        /^waits until the cancelled copy on forge1 \(cancelled at .* UTC\) has stopped: forge runs on \/srv\/forge again/,
      );

      await disk.thaw();
      const ended = await labStatusWhen(handle, (s) => !['running', 'waiting'].includes(s.phase), 240_000);
      assert.equal(ended.phase, 'aborted', ended.outcome);
      assert.equal(ended.steps.find((s) => s.name === 'remove-copy')?.state, 'compensated');
      assert.equal(await exists(hostTo), false, 'B removed once the copy stopped');
    } finally {
      await connection.close();
    }
  });
});
