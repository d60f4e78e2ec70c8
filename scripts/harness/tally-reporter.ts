import type { TestEvent } from 'node:test/reporters';
import { count, type Tally } from '../node-test-run';

/**
 * A node:test reporter for the harness's test processes: how the file's tests ended, counted from the
 * runner's own events (scripts/node-test-run.ts), as one JSON line at the end. The module is the reporter
 * itself (`export =`): node:test takes a CommonJS module's exports as the reporter.
 */
async function* tallyReporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const tally: Tally = { passed: 0, failed: 0, skipped: 0, todo: 0, cancelled: 0 };
  for await (const event of source)
    if (event.type === 'test:pass' || event.type === 'test:fail') count(tally, event);
  yield `${JSON.stringify(tally)}\n`;
}

export = tallyReporter;
