import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { LogTimestamp } from '@temporalio/worker';
import { temporalLogger } from '../../worker/log-bridge';
import { meshLogger, type LogSettings } from '../../worker/logging';

/** The Temporal logger over a real pino root, and every JSON line it wrote. */
function bridged(settings: LogSettings = { level: 'INFO', format: 'json' }) {
  let text = '';
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  const logger = temporalLogger(meshLogger(settings, out), settings.level);
  const lines = () =>
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, lines };
}

const AT = 1_790_000_000_123_456_789n; // nanoseconds since the epoch

describe('the Temporal SDK logger over pino', () => {
  it('writes one JSON line per entry, at the time the SDK says it happened', () => {
    const { logger, lines } = bridged();
    logger.info('Worker state changed', { [LogTimestamp]: AT, sdkComponent: 'worker', state: 'RUNNING' });
    assert.deepEqual(lines(), [
      {
        level: 'info',
        time: '2026-09-21T14:13:20.123Z',
        pid: process.pid,
        hostname: lines()[0]?.hostname,
        name: 'mesh-worker',
        sdkComponent: 'worker',
        state: 'RUNNING',
        msg: 'Worker state changed',
      },
    ]);
  });

  it('names the runbook on every line that has a workflow id', () => {
    const { logger, lines } = bridged();
    logger.warn('New WFT', { sdkComponent: 'core', workflowId: 'runbook-novox' });
    logger.info('Workflow completed', { sdkComponent: 'worker', workflowId: 'runbook-forge1' });
    logger.info('Initializing worker', { sdkComponent: 'core' });
    assert.deepEqual(
      lines().map((line) => line.runbookId),
      ['runbook-novox', 'runbook-forge1', undefined],
    );
  });

  it('keeps lines at or above the level only', () => {
    const { logger, lines } = bridged({ level: 'WARN', format: 'json' });
    logger.info('chatter');
    logger.warn('Activity failed');
    logger.error('Worker failed');
    assert.deepEqual(
      lines().map((line) => [line.level, line.msg]),
      [
        ['warn', 'Activity failed'],
        ['error', 'Worker failed'],
      ],
    );
  });

  it('serializes errors with their stack and redacts secrets', () => {
    const { logger, lines } = bridged();
    logger.warn('Activity failed', { error: new TypeError('boom'), tls: { password: 'hunter2' } });
    const [line] = lines();
    const error = line?.error as { type: string; message: string; stack: string };
    assert.equal(error.type, 'TypeError');
    assert.equal(error.message, 'boom');
    assert.match(error.stack, /TypeError: boom\n\s+at /);
    assert.deepEqual(line?.tls, { password: '[redacted]' });
  });

  it("drops the SDK's own header-less 'Activity started', keeps the one the context interceptor logs", () => {
    const { logger, lines } = bridged({ level: 'DEBUG', format: 'json' });
    logger.debug('Activity started', { sdkComponent: 'worker', activityType: 'push' });
    logger.debug('Activity started', { sdkComponent: 'activity', activityType: 'push', step: 'push' });
    assert.deepEqual(
      lines().map((line) => [line.sdkComponent, line.step]),
      [['activity', 'push']],
    );
  });
});
