import assert from 'node:assert/strict';
import { lstat, readdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { webhookNotifier, type Reminder } from '../../activities/runbook/notifier';
import { dataPathMove } from '../../workflows';
import { RunbookStatus } from '../../workflows/contracts';
import { RunbookPolicy } from '../../workflows/policy';
import { addBulkData, moveInput, seedForge } from '../support/data-move';
import { meshRunbook } from '../support/mesh-cli';
import { runbookWorld } from '../support/runbook-world';
import { statusWhen } from '../support/runbooks';
import { holdThreadPool } from '../support/thread-pool';

/**
 * A copy whose disk stops answering (a hung network mount) makes no progress, but the worker's keep-alive
 * beats for it, so Temporal never times it out and nothing showed it: `status` said `running` for as long
 * as it hung. Now the worker tells the runbook when the progress stood still for `policy.stalledAfter`:
 * `status --json`, the step, the Web UI's details and a reminder say so, and it clears once the copy moves.
 *
 * The disk stops answering for real: every file system call of the worker's process goes through libuv's
 * thread pool (4 threads), and four opens of FIFOs nobody writes to hold all four, so the production
 * copy's reads and writes queue behind them, as behind a hung mount, while its timers and heartbeats (on
 * the event loop and Temporal's own threads) go on. Opening the FIFOs' other ends lets it go again.
 */

const STALLED_AFTER_MS = 3_000;
const BULK_MIB = 200;
const WAIT_MS = 180_000;

/** A real HTTP server standing in for the operators' webhook: records each reminder. */
class WebhookReceiver {
  readonly received: Reminder[] = [];
  private server: Server | undefined;

  async listen(): Promise<string> {
    this.server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        this.received.push(JSON.parse(body) as Reminder);
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

async function bytesOnDisk(root: string): Promise<number> {
  let total = 0;
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) total += (await lstat(path).catch(() => ({ size: 0 }))).size;
    }
  };
  await walk(root);
  return total;
}

describe('a copy that stops making progress is shown as stalled (real Temporal, real Docker, real files)', () => {
  it('status --json, the step and a reminder say stalled while the disk hangs; it clears once the copy moves', async () => {
    const receiver = new WebhookReceiver();
    const url = await receiver.listen();
    try {
      await using world = await runbookWorld({
        deps: {
          policy: RunbookPolicy.parse({ stalledAfterMs: STALLED_AFTER_MS, reminders: { everyMs: 600_000 } }),
          notifier: webhookNotifier({ url, headers: {}, timeoutMs: 5_000 }),
        },
      });
      const forge = await seedForge(world);
      await addBulkData(forge.hostFrom, BULK_MIB);
      const handle = await world.start(dataPathMove, moveInput(forge));
      const deadline = Date.now() + WAIT_MS;
      while ((await bytesOnDisk(join(forge.hostTo, 'bulk', 'packs'))) < 32 * 2 ** 20) {
        assert.ok(Date.now() < deadline, 'the copy never got going');
        await delay(50);
      }

      const hold = holdThreadPool(world.stateDir);
      let stalled: RunbookStatus;
      try {
        // No file system call of this process may run from here until released: queries and the CLI only.
        stalled = await statusWhen(handle, (s) => Boolean(s.stalled));
        const cli = await meshRunbook(world, 'status', forge.node, '--json');
        assert.equal(cli.code, 0, cli.stderr);
        const said = RunbookStatus.parse(JSON.parse(cli.stdout));
        assert.equal(said.phase, 'running');
        assert.equal(said.stalled?.step, 'copy');
        assert.equal(said.stalled?.activity, 'copyTree');
        assert.equal(said.stalled?.taskQueue, `${world.taskQueue}@${forge.node}`);
        assert.equal(said.stalled?.stalledAfterMs, STALLED_AFTER_MS);
        assert.match(said.stalled?.progress ?? '', /^\d+ of \d+ files, \d+ of \d+ bytes$/);
        const step = said.steps.find((s) => s.name === 'copy');
        assert.equal(step?.state, 'running');
        assert.match(step?.note ?? '', /^stalled: copyTree has made no progress since \d\d:\d\d:\d\d UTC \(/);
        const text = await meshRunbook(world, 'status', forge.node);
        assert.match(text.stdout, /^stalled: copyTree at step copy has made no progress since /m);
      } finally {
        await hold.release();
      }
      assert.ok(stalled.stalled);
      const since = Date.parse(stalled.stalled.since);
      assert.ok(Date.now() - since >= STALLED_AFTER_MS, 'shown only after stalledAfter');

      // The reminder names the step and says what stands still.
      const until = Date.now() + 120_000;
      while (receiver.received.length === 0 && Date.now() < until) await delay(100);
      const [reminder] = receiver.received;
      assert.equal(reminder?.gate, 'copy');
      assert.equal(reminder?.runbookId, handle.workflowId);
      assert.match(
        reminder?.sentence ?? '',
        /^copyTree at step copy has made no progress since .* still beats for it/,
      );

      // Released, the copy moves again: the stall clears, and the copy ends as it would have.
      const moving = await statusWhen(handle, (s) => !s.stalled);
      assert.doesNotMatch(moving.steps.find((s) => s.name === 'copy')?.note ?? '', /stalled/);
      const copied = await statusWhen(
        handle,
        (s) => s.steps.find((x) => x.name === 'copy')?.state === 'done',
        WAIT_MS,
      );
      assert.equal(copied.stalled ?? null, null);
    } finally {
      await receiver.close();
    }
  });
});
