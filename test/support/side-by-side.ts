import { describe as suiteOf } from 'node:test';

/**
 * `describe` whose tests run side by side: a file imports it in place of node:test's when each of its tests
 * has a world of its own (task queue, nodes, containers) and mostly waits (timers, Docker, Temporal), so
 * together they take about the time of the longest test, not the sum.
 */
export function describe(name: string, suite: () => void): void {
  suiteOf(name, { concurrency: true }, suite);
}
