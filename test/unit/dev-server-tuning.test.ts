import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { devServerArgs } from '../../worker/dev-server';
import { ephemeralDevServer } from '../../worker/ephemeral-dev-server';

const OPTIONS = {
  cli: 'temporal',
  stateDir: '/tmp/x',
  ip: '127.0.0.1',
  port: 7233,
  uiPort: 8233,
  namespace: 'default',
};

/** The values given to a repeated flag, e.g. every `--dynamic-config-value`. */
function flagValues(args: readonly string[], flag: string): string[] {
  return args.flatMap((arg, i) => (arg === flag && i + 1 < args.length ? [args[i + 1]!] : []));
}

function queueReadRates(args: readonly string[]): Record<string, number> {
  return Object.fromEntries(
    flagValues(args, '--dynamic-config-value')
      .map((value) => value.split('='))
      .filter(([key]) => /^history\.(transfer|timer)ProcessorMaxPollRPS$/.test(key!))
      .map(([key, rate]) => [key, Number(rate)]),
  );
}

describe('the dev servers mesh starts add no dispatch waits of their own', () => {
  for (const [name, args] of [
    ['mesh runbook dev', devServerArgs(OPTIONS)],
    ['tests, bench and record-histories', ephemeralDevServer().extraArgs ?? []],
  ] as const) {
    it(`${name}: the transfer and timer queues are read at once, not at the default 20 a second`, () => {
      const rates = queueReadRates(args);
      assert.deepEqual(Object.keys(rates).sort(), [
        'history.timerProcessorMaxPollRPS',
        'history.transferProcessorMaxPollRPS',
      ]);
      for (const rate of Object.values(rates)) assert.ok(rate >= 500, `${rate} reads a second`);
    });
  }

  it('mesh runbook dev: its SQLite file is written in WAL mode, without a disk sync at every commit', () => {
    assert.deepEqual(flagValues(devServerArgs(OPTIONS), '--sqlite-pragma'), [
      'journal_mode=wal',
      'synchronous=normal',
    ]);
  });
});
