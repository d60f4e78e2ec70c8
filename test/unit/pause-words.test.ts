import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderStatus } from '../../cli/runbook/render';
import type { RunbookStatus } from '../../workflows/contracts';
import { renderDetails } from '../../workflows/runbook/details';
import { pausedSentence } from '../../workflows/runbook/pause-words';

const status: RunbookStatus = {
  id: 'runbook-novox',
  kind: 'edge-flip',
  node: 'novox',
  module: 'route-proxy',
  startedBy: 'alice',
  phase: 'running',
  waiting: null,
  steps: [{ name: 'recheck-successor', state: 'pending' }],
  decisions: [],
  refused: [],
  paused: { by: 'carol', reason: 'the **window** closed', at: '2026-12-04T13:05:09.120Z' },
};

describe('what a pause says', () => {
  it('names who, when and why, where it holds (or that it holds at the next boundary), and how to resume', () => {
    const paused = status.paused!;
    assert.equal(
      pausedSentence('runbook-novox', paused),
      'paused by carol at 13:05:09 UTC (the **window** closed); holds at the next step boundary (the step running now finishes first); resume with `mesh runbook resume runbook-novox`.',
    );
    assert.match(
      pausedSentence('runbook-novox', { ...paused, holdsBefore: 'recheck-successor' }),
      /; holds before recheck-successor; resume with/,
    );
  });

  it('shows in status and in the Web UI details, the reason as plain text', () => {
    const lines = renderStatus(status, new Date('2026-12-04T13:06:00Z')).join('\n');
    assert.match(lines, /paused by carol at 13:05:09 UTC/);
    const details = renderDetails(status);
    assert.match(
      details,
      /### Paused\n\npaused by carol at 13:05:09 UTC \(the \\\*\\\*window\\\*\\\* closed\)/,
    );
    assert.match(details, /Update `resume` with `\{"by": "<your name>"\}`/);
  });
});
