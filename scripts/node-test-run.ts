import type { TestEvent } from 'node:test/reporters';

/** How the tests of one run ended, counted from node:test's own events. */
export interface Tally {
  passed: number;
  failed: number;
  skipped: number;
  todo: number;
  cancelled: number;
}

type Ended = Extract<TestEvent, { type: 'test:pass' | 'test:fail' }>;

/** node:test's failure types for a test stopped by its timeout or by its parent ending first. */
const CANCELLED = new Set(['cancelledByParent', 'testTimeoutFailure']);

/**
 * Counts one ended test the way node:test's own summary does (skip, then todo, then cancelled, then
 * failed, else passed; suites are not tests), except that a suite failing for its own reason (its body or
 * a hook threw) counts as failed, where node:test would count nothing.
 */
export function count(tally: Tally, event: Ended): void {
  const { data } = event;
  const failureType = event.type === 'test:fail' ? failureTypeOf(event.data.details.error) : undefined;
  if (data.details.type === 'suite') {
    if (event.type === 'test:fail' && failureType !== 'subtestsFailed') tally.failed++;
    return;
  }
  if (data.skip !== undefined) tally.skipped++;
  else if (data.todo !== undefined) tally.todo++;
  else if (failureType !== undefined && CANCELLED.has(failureType)) tally.cancelled++;
  else if (event.type === 'test:fail') tally.failed++;
  else tally.passed++;
}

function failureTypeOf(error: unknown): string | undefined {
  const type = (error as { failureType?: unknown } | undefined)?.failureType;
  return typeof type === 'string' ? type : undefined;
}

/** Only a run where tests ran and every one of them passed counts as a success. */
export function allPassed(tally: Tally): boolean {
  const { passed, failed, skipped, todo, cancelled } = tally;
  return passed > 0 && failed + skipped + todo + cancelled === 0;
}

export function summaryLine({ passed, failed, skipped, todo, cancelled }: Tally): string {
  return `tests: ${passed} passed, ${failed} failed, ${skipped} skipped, ${todo} todo, ${cancelled} cancelled`;
}
