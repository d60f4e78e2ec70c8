import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import { contextFromHeaders } from '../../worker/log-context';
import { CONTEXT_HEADERS } from '../../workflows/interceptors';

const header = (value: unknown) => defaultPayloadConverter.toPayload(value);

describe("an activity's runbook context from its headers", () => {
  it('reads node, module and step as the workflow interceptor writes them', () => {
    const headers = {
      [CONTEXT_HEADERS.node]: header('novox'),
      [CONTEXT_HEADERS.module]: header('route-proxy'),
      [CONTEXT_HEADERS.step]: header('gate-apply'),
      'other-header': header('ignored'),
    };
    assert.deepEqual(contextFromHeaders(headers), {
      node: 'novox',
      module: 'route-proxy',
      step: 'gate-apply',
    });
  });

  it('leaves out what is missing, not a string, or does not decode', () => {
    const unreadable = { metadata: { encoding: Buffer.from('binary/unknown') }, data: Buffer.from('?') };
    const headers = { [CONTEXT_HEADERS.node]: header(42), [CONTEXT_HEADERS.step]: unreadable };
    assert.deepEqual(contextFromHeaders(headers), {});
    assert.deepEqual(contextFromHeaders({}), {});
  });
});
