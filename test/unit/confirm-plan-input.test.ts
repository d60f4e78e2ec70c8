import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../cli/errors';
import { showPlanAndConfirm } from '../../cli/runbook/start/confirm-plan';

describe('before a start, the input is parsed by its kind’s own schema', () => {
  it('an input that does not parse refuses the start (exit 2) instead of starting without a plan', async () => {
    const stderr = process.stderr.write.bind(process.stderr);
    let noted = '';
    process.stderr.write = ((text: string) => ((noted += text), true)) as typeof process.stderr.write;
    try {
      await assert.rejects(
        showPlanAndConfirm(
          'data-path-move',
          { node: 'forge1', module: 'forge', startedBy: 'alice' },
          {
            yes: true,
            json: true,
          },
        ),
        (error: unknown) =>
          error instanceof UsageError &&
          /^The data-path-move input does not parse \(from: .*\): no plan can be made of it and no runbook starts on it\.$/.test(
            error.message,
          ),
      );
    } finally {
      process.stderr.write = stderr;
    }
    assert.equal(noted, '', 'refused, not noted');
  });
});
