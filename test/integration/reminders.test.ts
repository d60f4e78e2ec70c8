import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { webhookNotifier, type Reminder } from '../../activities/runbook/notifier';
import { statusQuery } from '../../workflows/contracts';
import { edgeFlip } from '../../workflows';
import { RunbookPolicy } from '../../workflows/policy';
import { seedEdgeFlip } from '../support/edge-flip-seed';
import { runbookWorld } from '../support/runbook-world';
import { decide, statusWhen, waitingAt } from '../support/runbooks';

/** A real HTTP server standing in for the operators' chat webhook: records each POST and when it came. */
class WebhookReceiver {
  readonly received: { at: number; body: Reminder }[] = [];
  answer = 200;
  private server: Server | undefined;

  async listen(): Promise<string> {
    this.server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        this.received.push({ at: Date.now(), body: JSON.parse(body) as Reminder });
        response.writeHead(this.answer).end();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/runbooks`;
  }

  async until(count: number, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > deadline) assert.fail(`${this.received.length} of ${count} reminders arrived`);
      await delay(100);
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

const AFTER_MS = 1_500;
const EVERY_MS = 1_000;
const receiver = new WebhookReceiver();
let url = '';

describe('a waiting gate reminds the operators through the webhook notifier, and never moves on by itself', () => {
  before(async () => {
    url = await receiver.listen();
  });
  after(() => receiver.close());

  /** A world whose runbooks remind soon and often through the receiver. */
  const remindingWorld = () =>
    runbookWorld({
      deps: {
        policy: RunbookPolicy.parse({ reminders: { afterMs: AFTER_MS, everyMs: EVERY_MS } }),
        notifier: webhookNotifier({ url, headers: {}, timeoutMs: 5_000 }),
      },
    });

  it('reminds after the deadline, then after the interval and twice the interval, with runbook, gate and sentence; stops once decided', async () => {
    receiver.received.length = 0;
    await using world = await remindingWorld();
    const handle = await world.start(edgeFlip, await seedEdgeFlip(world));
    const waiting = await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    await receiver.until(3);
    const [first, second, third] = receiver.received;
    assert.ok(first && second && third);
    const since = Date.parse(waiting.waiting?.since ?? '');
    assert.ok(
      first.at - since >= AFTER_MS * 0.9,
      `first reminder ${first.at - since} ms after the wait began`,
    );
    for (const [earlier, later, interval] of [
      [first, second, EVERY_MS],
      [second, third, EVERY_MS * 2],
    ] as const) {
      const gap = later.at - earlier.at;
      // Never early; late by as much as a loaded machine delays a timer, an activity and a webhook call.
      assert.ok(
        gap >= interval * 0.9 && gap < interval + 30_000,
        `reminders ${gap} ms apart, expected ${interval}`,
      );
    }
    assert.deepEqual(
      receiver.received.slice(0, 3).map((r) => r.body.reminder),
      [1, 2, 3],
    );
    assert.deepEqual(
      { ...first.body, reminder: 1 },
      {
        runbookId: handle.workflowId,
        gate: 'approve-stop-predecessor',
        sentence: waiting.waiting?.reason,
        actions: ['approve', 'abort'],
        evidence: waiting.waiting?.evidence,
        waitingSince: waiting.waiting?.since,
        reminder: 1,
      },
    );
    const counted = await handle.query(statusQuery);
    assert.equal(counted.phase, 'waiting', 'reminding never moves the runbook on');
    assert.ok((counted.waiting?.reminders ?? 0) >= 3);
    assert.match(counted.waiting?.lastReminder ?? '', /^sent to webhook http:\/\/127\.0\.0\.1:\d+$/);

    await decide(handle, 'approve', undefined, 'bob');
    await statusWhen(handle, (s) => s.phase === 'completed');
    const afterDecision = receiver.received.length;
    await delay(EVERY_MS * 2.5);
    assert.equal(receiver.received.length, afterDecision, 'no reminder after the decision');
  });

  it('names the webhook by its origin only: no path, query or header reaches the history or the status', async () => {
    receiver.received.length = 0;
    const origin = new URL(url).origin;
    const secretUrl = `${origin}/hooks/T0PATHSECRET?token=QUERYSECRET`;
    await using world = await runbookWorld({
      deps: {
        policy: RunbookPolicy.parse({ reminders: { afterMs: AFTER_MS, everyMs: EVERY_MS } }),
        notifier: webhookNotifier({
          url: secretUrl,
          headers: { 'X-Token': 'HEADERSECRET' },
          timeoutMs: 5_000,
        }),
      },
    });
    const handle = await world.start(edgeFlip, await seedEdgeFlip(world));
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    await receiver.until(1);
    const reminded = await statusWhen(handle, (s) => (s.waiting?.reminders ?? 0) >= 1);
    assert.equal(reminded.waiting?.lastReminder, `sent to webhook ${origin}`);
    receiver.answer = 500;
    try {
      const failed = await statusWhen(handle, (s) => (s.waiting?.lastReminder ?? '').startsWith('failed'));
      assert.equal(failed.waiting?.lastReminder, `failed: the webhook at ${origin} answered 500`);
    } finally {
      receiver.answer = 200;
    }
    await decide(handle, 'approve', undefined, 'bob');
    await statusWhen(handle, (s) => s.phase === 'completed');

    const history = JSON.stringify(await handle.fetchHistory(), (key, value: unknown) =>
      key === 'data' && typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : value,
    );
    assert.ok(history.includes(`sent to webhook ${origin}`), 'the reminder results are in the history');
    for (const secret of ['/hooks', 'T0PATHSECRET', 'QUERYSECRET', 'HEADERSECRET', 'X-Token'])
      assert.equal(history.includes(secret), false, `${secret} is in the workflow history`);
  });

  it('a gate that waits long reminds less and less often, so its history stays small', async () => {
    receiver.received.length = 0;
    // A shortened clock: a second (about the dev server's timer resolution) stands for the default half hour.
    const every = 1_000;
    await using world = await runbookWorld({
      deps: {
        policy: RunbookPolicy.parse({ reminders: { afterMs: every, everyMs: every } }),
        notifier: webhookNotifier({ url, headers: {}, timeoutMs: 5_000 }),
      },
    });
    const handle = await world.start(edgeFlip, await seedEdgeFlip(world));
    await statusWhen(handle, waitingAt('approve-stop-predecessor'));
    const { historyLength: atWait } = await handle.describe();
    await delay(every * 20);
    const { historyLength: later } = await handle.describe();
    const gaps = receiver.received.slice(1).map((r, i) => r.at - (receiver.received[i]?.at ?? 0));
    // The interval doubles after each reminder: at 1, 2, 4, 8 and 16 intervals, not at every one of the 20.
    assert.ok(
      receiver.received.length <= 6,
      `${receiver.received.length} reminders in 20 intervals (gaps ${gaps.join(', ')} ms)`,
    );
    for (const [i, gap] of gaps.entries())
      assert.ok(gap >= every * 2 ** i * 0.9, `reminder ${i + 2} came ${gap} ms after the one before`);
    assert.ok(later - atWait <= 6 * 12, `${later - atWait} history events while waiting`);
    await decide(handle, 'approve', undefined, 'bob');
    await statusWhen(handle, (s) => s.phase === 'completed');
  });

  it('a webhook that fails is shown as the last reminder; the gate still waits and still takes a decision', async () => {
    receiver.received.length = 0;
    receiver.answer = 500;
    try {
      await using world = await remindingWorld();
      const handle = await world.start(edgeFlip, await seedEdgeFlip(world));
      await statusWhen(handle, waitingAt('approve-stop-predecessor'));
      const failed = await statusWhen(handle, (s) => (s.waiting?.lastReminder ?? '').startsWith('failed'));
      assert.match(
        failed.waiting?.lastReminder ?? '',
        /^failed: the webhook at http:\/\/127\.0\.0\.1:\d+ answered 500$/,
      );
      assert.equal(failed.phase, 'waiting');
      await decide(handle, 'approve', undefined, 'bob');
      await statusWhen(handle, (s) => s.phase === 'completed');
    } finally {
      receiver.answer = 200;
    }
  });
});
