import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prettyLine } from '../../worker/log-pretty';
import { logSettings } from '../../worker/logging';

describe('log settings', () => {
  it('is JSON when stderr is not a terminal and pretty when it is', () => {
    assert.deepEqual(logSettings('info', {}, false), { level: 'INFO', format: 'json' });
    assert.deepEqual(logSettings('info', {}, true), { level: 'INFO', format: 'pretty' });
  });

  it('takes the level in any case and MESH_LOG_FORMAT over the default', () => {
    assert.deepEqual(logSettings('debug', { MESH_LOG_FORMAT: 'JSON' }, true), {
      level: 'DEBUG',
      format: 'json',
    });
  });

  it('refuses values it does not know', () => {
    assert.throws(() => logSettings('verbose'), /log level must be one of/);
    assert.throws(
      () => logSettings('info', { MESH_LOG_FORMAT: 'logfmt' }),
      /MESH_LOG_FORMAT must be json or pretty/,
    );
  });
});

describe('pretty log lines', () => {
  it('shows time, level, message, the runbook context first, then the other fields', () => {
    const json = JSON.stringify({
      level: 'info',
      time: '2026-11-29T17:39:02.699Z',
      pid: 1,
      hostname: 'vm',
      name: 'mesh-worker',
      sdkComponent: 'activity',
      activityType: 'push',
      attempt: 2,
      runbookId: 'runbook-novox',
      node: 'novox',
      module: 'route-proxy',
      step: 'push',
      msg: 'pushed',
    });
    assert.equal(
      prettyLine(json),
      '17:39:02.699 INFO  pushed runbookId=runbook-novox node=novox module=route-proxy step=push sdkComponent=activity activityType=push attempt=2\n',
    );
  });

  it("puts an error's message in the line and its stack below", () => {
    const error = { type: 'Error', message: 'boom', stack: 'Error: boom\n    at x (y.ts:1:1)' };
    const line = prettyLine(
      JSON.stringify({ level: 'warn', time: '2026-11-29T17:39:02.699Z', msg: 'failed', error }),
    );
    assert.equal(line, '17:39:02.699 WARN  failed error=boom\n    Error: boom\n        at x (y.ts:1:1)\n');
  });

  it('passes a line that is not JSON through as it is', () => {
    assert.equal(prettyLine('plain words'), 'plain words\n');
  });
});
