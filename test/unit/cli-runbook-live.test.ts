import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fitToWidth, liveLines, SPINNER } from '../../cli/runbook/follow/render-live';
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
});
