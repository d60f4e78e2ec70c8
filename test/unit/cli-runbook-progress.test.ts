import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/client';
import { progressLine, progressOf } from '../../cli/runbook/follow/progress';

const heartbeat = (details: unknown, name = 'copyTree') => ({
  activityType: { name },
  heartbeatDetails: { payloads: [defaultPayloadConverter.toPayload(details)] },
});

describe('copy progress from heartbeats', () => {
  it('reads the first pending activity that heartbeats progress, and draws a bar with rate and ETA', () => {
    const progress = progressOf([
      { activityType: { name: 'inspectModuleContainers' } },
      heartbeat({
        files: 40,
        bytes: 100 * 2 ** 20,
        totalFiles: 100,
        totalBytes: 400 * 2 ** 20,
        bytesPerSecond: 10 * 2 ** 20,
      }),
    ]);
    assert.ok(progress);
    assert.equal(
      progressLine(progress),
      'copyTree [######··················]  25%  100.0 MiB of 400.0 MiB, 40/100 files, 10.0 MiB/s, ETA 30s',
    );
  });

  it('treats other heartbeat details, and none at all, as no progress', () => {
    assert.equal(progressOf([heartbeat({ waitingFor: 'novox-3' }, 'collectApplyEvidence')]), undefined);
    assert.equal(
      progressOf([heartbeat({ files: 0, bytes: 0, totalFiles: 0, totalBytes: 0, bytesPerSecond: 0 })]),
      undefined,
    );
    assert.equal(progressOf(undefined), undefined);
  });

  it('shows nothing, and does not throw, for a heartbeat that does not parse as copy progress', () => {
    const garbled = { files: 'many', bytes: -1, totalFiles: 3, totalBytes: 10, bytesPerSecond: 0 };
    assert.equal(progressOf([heartbeat(garbled)]), undefined);
    const undecodable = {
      activityType: { name: 'copyTree' },
      heartbeatDetails: {
        payloads: [{ metadata: { encoding: Buffer.from('binary/unknown') }, data: Buffer.from('x') }],
      },
    };
    assert.equal(progressOf([undecodable]), undefined);
  });

  it('says the ETA is unknown before any rate is measured', () => {
    const line = progressLine({
      activity: 'verifyTree',
      files: 0,
      bytes: 0,
      totalFiles: 5,
      totalBytes: 2048,
      bytesPerSecond: 0,
    });
    assert.match(line, /0% .* starting, ETA unknown$/);
  });
});
