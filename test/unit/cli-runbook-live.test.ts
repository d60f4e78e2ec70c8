import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PassThrough } from 'node:stream';
import { LiveReporter } from '../../cli/runbook/follow/reporters';
import { fitToWidth, leftOnScreen, liveLines, SPINNER } from '../../cli/runbook/follow/render-live';
import type { RunbookStatus } from '../../workflows/contracts';

// eslint-disable-next-line no-control-regex
const plain = (lines: string[]) => lines.map((line) => line.replace(/\u001b\[\d+m/g, ''));
const NOW = new Date('2026-09-26T12:00:30.000Z');

const copying: RunbookStatus = {
  id: 'runbook-forge1',
  kind: 'data-path-move',
  node: 'forge1',
  module: 'forge',
  startedBy: 'alice',
  phase: 'running',
  waiting: null,
  steps: [
    {
      name: 'preflight',
      state: 'done',
      startedAt: '2026-09-26T12:00:00.000Z',
      endedAt: '2026-09-26T12:00:01.000Z',
    },
    { name: 'copy', state: 'running', startedAt: '2026-09-26T12:00:18.000Z' },
    { name: 'verify-copy', state: 'pending' },
  ],
  decisions: [],
  refused: [],
};
const progress = {
  activity: 'copyTree',
  files: 10,
  bytes: 2 ** 20,
  totalFiles: 40,
  totalBytes: 4 * 2 ** 20,
  bytesPerSecond: 2 ** 20,
};

describe('live step list', () => {
  it('lists every step, spins on the running one with its time ticking, a progress bar under it', () => {
    const lines = plain(liveLines(copying, NOW, 0, progress));
    assert.equal(lines.length, 5);
    assert.match(lines[1] ?? '', /^ {2}✔ preflight +done +1\.0s$/);
    assert.match(lines[2] ?? '', new RegExp(`^  ${SPINNER[0]} copy +running +12s$`));
    assert.match(lines[3] ?? '', /^ {6}copyTree \[######·+\] +25% {2}1\.0 MiB of 4\.0 MiB, 10\/40 files/);
    assert.match(lines[4] ?? '', /^ {2}○ verify-copy +pending$/);
    assert.match(plain(liveLines(copying, NOW, 1))[2] ?? '', new RegExp(`^  ${SPINNER[1]} copy`));
    assert.match(
      plain(liveLines(copying, NOW, undefined))[2] ?? '',
      /^ {2}◐ copy/,
      'no spinner once stopped',
    );
  });

  it('lists the decisions under the steps, with where each name came from', () => {
    const decided: RunbookStatus = {
      ...copying,
      decisions: [
        {
          gate: 'approve-remove-old-data',
          action: 'keep',
          by: 'bob',
          identity: 'as-flag',
          at: '2026-09-26T12:00:20.000Z',
        },
      ],
    };
    const lines = plain(liveLines(decided, NOW, 0));
    assert.deepEqual(lines.slice(-2), [
      'decisions:',
      '  keep at approve-remove-old-data by bob (--as), 2026-09-26T12:00:20Z, evidence none',
    ]);
  });

  it('cuts lines to the terminal width without counting or breaking colour codes', () => {
    assert.equal(fitToWidth('abcdef', 4), 'abcd');
    assert.equal(fitToWidth('\u001b[36m▶\u001b[39m copy', 3), '\u001b[36m▶\u001b[39m c');
    assert.equal(fitToWidth('short', 80), 'short');
  });

  it('after a stop lists only the runs and decisions that came or changed since', () => {
    const waited: RunbookStatus = {
      ...copying,
      phase: 'waiting',
      steps: [
        copying.steps[0]!,
        {
          name: 'copy',
          state: 'done',
          startedAt: '2026-09-26T12:00:18.000Z',
          endedAt: '2026-09-26T12:00:20.000Z',
        },
        { name: 'verify-copy', state: 'waiting', startedAt: '2026-09-26T12:00:20.000Z' },
        { name: 'switch', state: 'pending' },
      ],
    };
    const decided: RunbookStatus = {
      ...waited,
      phase: 'running',
      steps: [
        waited.steps[0]!,
        // The copy ran again: its earlier run was on screen, its new one was not.
        { ...waited.steps[1]!, state: 'running', endedAt: undefined, earlier: [waited.steps[1]!] },
        { ...waited.steps[2]!, state: 'done', endedAt: '2026-09-26T12:00:25.000Z' },
        waited.steps[3]!,
      ],
      decisions: [
        {
          gate: 'verify-copy',
          action: 'retry',
          by: 'bob',
          identity: 'as-flag',
          at: '2026-09-26T12:00:24.000Z',
        },
      ],
    };
    const lines = plain(liveLines(decided, NOW, undefined, undefined, leftOnScreen(waited)));
    assert.deepEqual(
      lines.slice(1).map((line) => line.replace(/\s+/g, ' ').trim()),
      [
        '◐ copy running 12s',
        '✔ verify-copy done 5.0s',
        'decisions:',
        'retry at verify-copy by bob (--as), 2026-09-26T12:00:24Z, evidence none',
      ],
    );
  });

  it('a live list carried on after a stop draws no step it left on screen again', () => {
    const out = new PassThrough();
    let written = '';
    out.on('data', (chunk: Buffer) => (written += chunk.toString()));
    const reporter = new LiveReporter(out as unknown as NodeJS.WriteStream);
    const waiting: RunbookStatus = {
      ...copying,
      phase: 'waiting',
      steps: [copying.steps[0]!, { ...copying.steps[1]!, state: 'waiting' }, copying.steps[2]!],
    };
    reporter.look({ id: copying.id, status: copying, startTime: NOW, now: NOW });
    reporter.stopped('waiting', { id: copying.id, status: waiting, startTime: NOW, now: NOW });
    const atStop = written.length;
    const goesOn: RunbookStatus = {
      ...waiting,
      phase: 'running',
      steps: [
        copying.steps[0]!,
        { ...copying.steps[1]!, state: 'done', endedAt: '2026-09-26T12:00:29.000Z' },
        { ...copying.steps[2]!, state: 'running', startedAt: '2026-09-26T12:00:29.000Z' },
      ],
    };
    reporter.look({ id: copying.id, status: goesOn, startTime: NOW, now: NOW });
    reporter.close();
    // eslint-disable-next-line no-control-regex
    const after = written.slice(atStop).replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
    assert.doesNotMatch(after, /preflight/, after);
    assert.match(after, /✔ copy +done/);
    assert.match(after, /verify-copy +running/);
    assert.ok(written.endsWith('\u001b[?25h'), 'the cursor is shown again');
  });
});
