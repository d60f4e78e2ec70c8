import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../cli/errors';
import { singleNode } from '../../cli/runbook/start/fleet-command';
import {
  addressFor,
  fleetInputFrom,
  fleetOrder,
  nodeListOption,
  waveSizeOption,
} from '../../cli/runbook/start/fleet-options';
import { fleetOrderLine } from '../../client/start-fleet';
import { edgeFlipFleet } from '../../workflows';
import { FLEET_WORKFLOW_TYPES, fleetWorkflowId } from '../../workflows/fleet/contracts';

const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof UsageError, String(error));
    return error.message;
  }
  return assert.fail('accepted');
};

const OPTIONS = {
  module: 'route-proxy',
  predecessor: 'caddy',
  publicName: ['example.org'],
  publicAddress: 'http://{node}.example.net:80',
  successorAddress: 'a=http://127.0.0.1:8081,b=http://127.0.0.1:8082',
};

describe('fleet options of start edge-flip', () => {
  it('reads --nodes as names, refusing empty, malformed and repeated ones', () => {
    assert.deepEqual(nodeListOption('a, b,c'), ['a', 'b', 'c']);
    assert.match(
      refusal(() => nodeListOption('')),
      /has an empty name/,
    );
    assert.match(
      refusal(() => nodeListOption('a,,b')),
      /has an empty name/,
    );
    assert.match(
      refusal(() => nodeListOption('a,B_1')),
      /"B_1", which is not a node name/,
    );
    assert.match(
      refusal(() => nodeListOption('a,b,a')),
      /names a twice/,
    );
  });

  it('runs the canary first and refuses one outside the fleet', () => {
    assert.deepEqual(fleetOrder(['a', 'b', 'c'], undefined), ['a', 'b', 'c']);
    assert.deepEqual(fleetOrder(['a', 'b', 'c'], 'b'), ['b', 'a', 'c']);
    assert.match(
      refusal(() => fleetOrder(['a', 'b'], 'z')),
      /--canary z is not one of the fleet's nodes/,
    );
  });

  it('takes a whole wave size of at least one, default one', () => {
    assert.equal(waveSizeOption(undefined), 1);
    assert.equal(waveSizeOption('3'), 3);
    for (const bad of ['0', '-1', '1.5', 'two'])
      assert.match(
        refusal(() => waveSizeOption(bad)),
        /--wave-size .* at least 1/,
      );
  });

  it("gives each node its address: {node} filled in, or the node's own pair", () => {
    assert.equal(addressFor('--public-address', 'http://{node}:80', 'a', ['a']), 'http://a:80');
    assert.equal(addressFor('--x', 'a=http://h:1, b=http://h:2', 'b', ['a', 'b']), 'http://h:2');
    assert.match(
      refusal(() => addressFor('--x', 'a=http://h:1', 'b', ['a', 'b'])),
      /--x gives no address for b/,
    );
    assert.match(
      refusal(() => addressFor('--x', 'z=http://h:1', 'a', ['a'])),
      /for z, which is not one of/,
    );
  });

  it("builds every node's input as a single start would, in order, and refuses a bad one", () => {
    const input = fleetInputFrom(OPTIONS, ['b', 'a'], 2, 'alice');
    assert.deepEqual(
      input.runbooks.map((r) => [r.node, r.publicAddress, r.successorAddress]),
      [
        ['b', 'http://b.example.net:80', 'http://127.0.0.1:8082'],
        ['a', 'http://a.example.net:80', 'http://127.0.0.1:8081'],
      ],
    );
    assert.equal(fleetOrderLine(input), 'canary b, then waves of 2: a');
    assert.match(
      refusal(() =>
        fleetInputFrom({ ...OPTIONS, publicAddress: 'http://{node}/path' }, ['a', 'b'], 1, 'alice'),
      ),
      /^--public-address "http:\/\/a\/path" is invalid/,
    );
  });

  it('wants either one node or a fleet', () => {
    assert.equal(singleNode({ node: 'a' }), 'a');
    assert.equal(singleNode({ nodes: 'a,b' }), undefined);
    assert.equal(singleNode({ allNodesWith: 'caddy' }), undefined);
    assert.match(
      refusal(() => singleNode({ node: 'a', nodes: 'a,b' })),
      /give one or the other/,
    );
    assert.match(
      refusal(() => singleNode({})),
      /Name the node to flip with --node, or a fleet/,
    );
  });

  it('names the fleet after its module, and knows its workflow type', () => {
    assert.equal(fleetWorkflowId('route-proxy'), 'runbook-fleet-route-proxy');
    assert.ok(edgeFlipFleet.name in FLEET_WORKFLOW_TYPES);
  });
});
