import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../cli/errors';
import { edgeFlipInputFrom, type EdgeFlipOptions } from '../../cli/runbook/start/edge-flip-input';
import { kindList, kindOfWorkflowType, resolveRunbookId, runbooksQuery } from '../../cli/runbook/kinds';
import { edgeFlipFleet } from '../../workflows';

const GOOD: EdgeFlipOptions = {
  node: 'novox',
  module: 'route-proxy',
  predecessor: 'caddy',
  publicName: ['example.org', 'www.example.org'],
  publicAddress: 'http://10.0.0.5:80',
  successorAddress: 'http://10.0.0.5:8081',
  successorMarker: 'served by route-proxy',
  predecessorMarker: 'served by caddy',
};

function refusal(options: Partial<EdgeFlipOptions>): UsageError {
  try {
    edgeFlipInputFrom({ ...GOOD, ...options }, 'alice');
  } catch (error) {
    assert.ok(error instanceof UsageError);
    return error;
  }
  assert.fail('expected a UsageError');
}

describe('runbook CLI input', () => {
  it('builds the edge-flip input through the workflow schema, defaults included', () => {
    const input = edgeFlipInputFrom(
      { ...GOOD, successorMarker: 'route-proxy', expectStatus: '204' },
      'alice',
    );
    assert.equal(input.startedBy, 'alice');
    assert.deepEqual(input.publicNames, ['example.org', 'www.example.org']);
    assert.equal(input.expectStatus, 204);
    assert.equal(input.successorMarker, 'route-proxy');
    assert.equal(input.timings.applyReportMs, 60_000);
  });

  it('names the option the operator typed, the value, and a suggestion', () => {
    const node = refusal({ node: 'Novox' });
    assert.match(node.message, /^--node "Novox" is invalid: lower-case letters/);
    assert.match(node.suggestion, /--node novox/);
    assert.match(
      refusal({ publicName: ['example.org', 'no spaces.org'] }).message,
      /^--public-name "no spaces.org" is invalid: not a host name\.$/,
    );
    assert.match(
      refusal({ publicAddress: 'http://10.0.0.5/path' }).message,
      /^--public-address "http:\/\/10.0.0.5\/path" is invalid/,
    );
    assert.match(refusal({ expectStatus: 'abc' }).message, /^--expect-status "abc" is invalid/);
    assert.match(refusal({ predecessor: 'route-proxy' }).message, /both route-proxy/);
    assert.match(
      refusal({ predecessorMarker: 'served by route-proxy' }).message,
      /^--successor-marker and --predecessor-marker are both "served by route-proxy"; the probes could not tell/,
    );
    assert.match(
      refusal({ successorMarker: '' }).message,
      /^--successor-marker "" is invalid: must not be empty\.$/,
    );
    assert.match(refusal({ nodeHeader: 'X Served By' }).message, /^--node-header "X Served By" is invalid/);
  });

  it('fills in {node} in the addresses and markers of a single start, and carries the node header', () => {
    const input = edgeFlipInputFrom(
      {
        ...GOOD,
        publicAddress: 'http://{node}.example.net:80',
        successorMarker: 'route-proxy on {node}.',
        predecessorMarker: 'caddy on {node}.',
        nodeHeader: 'X-Served-By',
      },
      'alice',
    );
    assert.equal(input.publicAddress, 'http://novox.example.net:80');
    assert.equal(input.successorMarker, 'route-proxy on novox.');
    assert.equal(input.predecessorMarker, 'caddy on novox.');
    assert.equal(input.nodeHeader, 'X-Served-By');
  });

  it('derives workflow types from kinds, both ways, and lists runbooks of one task queue', () => {
    assert.equal(kindOfWorkflowType('edgeFlip'), 'edge-flip');
    assert.equal(kindOfWorkflowType('dataPathMove'), 'data-path-move');
    assert.equal(kindOfWorkflowType('somethingElse'), undefined);
    assert.equal(kindOfWorkflowType(edgeFlipFleet.name), 'edge-flip', 'a fleet runs edge flips');
    assert.equal(
      runbooksQuery('mesh-runbook'),
      "WorkflowType IN ('edgeFlip', 'dataPathMove', 'edgeFlipFleet', 'dataPathMoveFleet') AND TaskQueue = 'mesh-runbook'",
    );
    assert.equal(kindList(), 'edge-flip and data-path-move');
  });

  it('accepts a runbook id or a bare node name, and refuses anything else', () => {
    assert.equal(resolveRunbookId('runbook-novox'), 'runbook-novox');
    assert.equal(resolveRunbookId('novox'), 'runbook-novox');
    assert.throws(() => resolveRunbookId('Not A Node'), UsageError);
  });
});
