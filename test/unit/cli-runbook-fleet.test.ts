import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../cli/errors';
import { singleNode } from '../../cli/runbook/start/fleet-command';
import {
  addressFor,
  fleetInputFrom,
  fleetOrder,
  fleetRulesOption,
  nodeListOption,
  waveSizeOption,
} from '../../cli/runbook/start/fleet-options';
import { fleetOrderLine, fleetRulesLine } from '../../client/start-fleet';
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
  successorMarker: 'served by route-proxy on {node}.',
  predecessorMarker: 'served by caddy on {node}.',
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

  it('takes approvals, a failure budget and a bound: canary-then-waves by default, each refused with one sentence', () => {
    assert.deepEqual(fleetRulesOption({}), { waveSize: 1, approvals: 'canary-then-waves' });
    assert.deepEqual(
      fleetRulesOption({ approvals: 'each-node', maxFailures: '0', maxParallel: '3', waveSize: '10' }),
      { waveSize: 10, approvals: 'each-node', maxFailures: 0, maxParallel: 3 },
    );
    assert.equal(
      refusal(() => fleetRulesOption({ approvals: 'waves' })),
      '--approvals "waves" is not a fleet approval policy; the policies are each-node, canary-then-waves, canary-only.',
    );
    assert.match(
      refusal(() => fleetRulesOption({ maxFailures: '-1' })),
      /^--max-failures "-1" is invalid: .* at least 0\.$/,
    );
    assert.match(
      refusal(() => fleetRulesOption({ maxParallel: '0' })),
      /^--max-parallel "0" is invalid: .* at least 1\.$/,
    );
    assert.equal(
      refusal(() => fleetRulesOption({ waveSize: '500' })),
      "--wave-size 500 runs 500 nodes at once, more than the 156 a fleet's history bound (10000 events per run) leaves room for.",
    );
    assert.equal(fleetRulesOption({ waveSize: '500', maxParallel: '156' }).maxParallel, 156);
    assert.equal(
      refusal(() => fleetRulesOption({ waveSize: '2', historyBound: '100' })),
      "--wave-size 2 runs 2 nodes at once, more than the 1 a fleet's history bound (100 events per run) leaves room for.",
    );
    assert.match(
      refusal(() => fleetRulesOption({ historyBound: '99' })),
      /^--history-bound "99" is invalid: it must be a whole number of events, at least 100\.$/,
    );
    assert.equal(fleetRulesOption({ historyBound: '400' }).historyBound, 400);
    assert.match(
      fleetRulesLine({ historyBound: 400 }),
      /; each run under 400 history events \(continues as new past half\)$/,
    );
    assert.equal(
      fleetRulesLine({ approvals: 'canary-then-waves', maxFailures: 2, maxParallel: 3 }),
      "approvals canary-then-waves (the canary's approval, then one approval for the later nodes; a later node whose gate is not ok at first look asks its own); failure budget 2 (the next bad end after the canary pauses the fleet; the canary's always does); at most 3 of a wave at once",
    );
    assert.match(
      fleetRulesLine({}),
      /^approvals each-node \(every node asks its own approval\); failure budget 0 /,
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
    const input = fleetInputFrom(OPTIONS, ['b', 'a'], { waveSize: 2 }, 'alice');
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
        fleetInputFrom(
          { ...OPTIONS, publicAddress: 'http://{node}/path' },
          ['a', 'b'],
          { waveSize: 1 },
          'alice',
        ),
      ),
      /^--public-address "http:\/\/a\/path" is invalid/,
    );
  });

  it('refuses a fleet whose address is the same URL for two nodes: every later node would probe one of them and pass', () => {
    assert.equal(
      refusal(() =>
        fleetInputFrom(
          { ...OPTIONS, publicAddress: 'http://edge.example.net:80' },
          ['a', 'b'],
          { waveSize: 1 },
          'alice',
        ),
      ),
      '--public-address gives a and b the same URL, http://edge.example.net (after a flips, the probes of b would reach a and pass).',
    );
    // The same URL however it is spelt, and across the two options.
    assert.match(
      refusal(() =>
        fleetInputFrom(
          { ...OPTIONS, successorAddress: 'a=http://127.0.0.1:8081,b=http://127.1:8081' },
          ['a', 'b'],
          { waveSize: 1 },
          'alice',
        ),
      ),
      /^--successor-address gives a and b the same URL, http:\/\/127\.0\.0\.1:8081 /,
    );
    assert.match(
      refusal(() =>
        fleetInputFrom(
          { ...OPTIONS, publicAddress: 'a=http://127.0.0.1:8082,b=http://10.0.0.1:80' },
          ['a', 'b'],
          { waveSize: 1 },
          'alice',
        ),
      ),
      /^--public-address of a and --successor-address of b are the same URL, http:\/\/127\.0\.0\.1:8082 /,
    );
  });

  it('refuses a fleet whose probes cannot tell the node that answered: no {node} in a marker, no node header', () => {
    assert.equal(
      refusal(() =>
        fleetInputFrom(
          { ...OPTIONS, successorMarker: 'served by route-proxy' },
          ['a', 'b'],
          { waveSize: 1 },
          'alice',
        ),
      ),
      "--successor-marker \"served by route-proxy\" has no {node} and no --node-header is given, so a fleet's probe could not tell which node answered: one node's answer would pass for another's.",
    );
    assert.match(
      refusal(() =>
        fleetInputFrom({ ...OPTIONS, predecessorMarker: 'caddy' }, ['a', 'b'], { waveSize: 1 }, 'alice'),
      ),
      /^--predecessor-marker "caddy" has no \{node\}/,
    );
    // edge1's marker is part of edge10's answer: edge10 would pass for edge1.
    assert.match(
      refusal(() =>
        fleetInputFrom(
          {
            ...OPTIONS,
            successorAddress: 'http://{node}.example.net:8081',
            successorMarker: 'route-proxy on {node}',
          },
          ['edge1', 'edge10'],
          { waveSize: 1 },
          'alice',
        ),
      ),
      /^--successor-marker "route-proxy on \{node\}" for edge1 is part of edge10's, so edge10's answer would pass for edge1/,
    );
    const markers = fleetInputFrom(OPTIONS, ['b', 'a'], { waveSize: 1 }, 'alice');
    assert.deepEqual(
      markers.runbooks.map((r) => [r.node, r.successorMarker, r.predecessorMarker, r.nodeHeader]),
      [
        ['b', 'served by route-proxy on b.', 'served by caddy on b.', undefined],
        ['a', 'served by route-proxy on a.', 'served by caddy on a.', undefined],
      ],
    );
    const header = fleetInputFrom(
      { ...OPTIONS, successorMarker: 'route-proxy', predecessorMarker: 'caddy', nodeHeader: 'X-Served-By' },
      ['a', 'b'],
      { waveSize: 1 },
      'alice',
    );
    assert.deepEqual(
      header.runbooks.map((r) => [r.node, r.successorMarker, r.nodeHeader]),
      [
        ['a', 'route-proxy', 'X-Served-By'],
        ['b', 'route-proxy', 'X-Served-By'],
      ],
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
