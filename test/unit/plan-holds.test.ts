import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bracePaths, predictHolds } from '../../client/plan/holds';
import { ModuleSpec, type NodeState } from '../../mesh/schemas';

const proxy = ModuleSpec.parse({
  module: 'route-proxy',
  dataDirs: ['/var/lib/route-proxy/www', '/var/lib/route-proxy/ca'],
  containers: [
    { name: 'edge', image: 'i', mounts: [{ hostPath: '/var/lib/route-proxy/www', containerPath: '/www' }] },
    { name: 'ca', image: 'i', mounts: [{ hostPath: '/var/lib/route-proxy/ca/keys', containerPath: '/k' }] },
    { name: 'dns', image: 'i' },
  ],
});

function node(over: Partial<NodeState> = {}): NodeState {
  return {
    node: 'novox',
    adopted: true,
    hostRoot: '/',
    assigned: [],
    taken: [],
    holds: [],
    lastApply: null,
    ...over,
  };
}

const everywhere = () => true;
const resources = (state: NodeState, exists: (p: string) => boolean = everywhere) =>
  predictHolds(state, [proxy], exists).map((h) => h.resource);

describe('the plan predicts holds by mesh’s own rule', () => {
  it('holds the dirs found on an adopted node for a module not taken, and the containers mounting them', () => {
    assert.deepEqual(resources(node()), [
      'route-proxy/dir:/var/lib/route-proxy/www',
      'route-proxy/dir:/var/lib/route-proxy/ca',
      'route-proxy/container:edge',
      'route-proxy/container:ca',
    ]);
  });

  it('holds nothing when the node is not adopted, the module is taken, or nothing is on disk', () => {
    assert.deepEqual(resources(node({ adopted: false })), []);
    assert.deepEqual(resources(node({ taken: ['route-proxy'] })), []);
    assert.deepEqual(
      resources(node(), () => false),
      [],
    );
  });

  it('does not hold a dir the node applied at its last push (mesh made it)', () => {
    const lastApply = {
      pushId: 'novox-1',
      node: 'novox',
      applied: 1,
      appliedIds: ['route-proxy/dir:/var/lib/route-proxy/www'],
      held: [],
      failed: [],
      finishedAt: '2026-12-01T00:00:00.000Z',
    };
    assert.deepEqual(resources(node({ lastApply })), [
      'route-proxy/dir:/var/lib/route-proxy/ca',
      'route-proxy/container:ca',
    ]);
  });

  it("keeps the node's own reported holds of a module it is sent and has not taken", () => {
    const held = {
      resource: 'route-proxy/dir:/srv/other',
      module: 'route-proxy',
      reason: 'the node says so',
    };
    assert.ok(resources(node({ holds: [held] }), () => false).includes(held.resource));
    assert.deepEqual(
      resources(node({ holds: [held], taken: ['route-proxy'] }), () => false),
      [],
    );
  });

  it('writes paths with one parent once', () => {
    assert.equal(
      bracePaths(['/var/lib/route-proxy/www', '/var/lib/route-proxy/ca', '/var/lib/route-proxy/dns']),
      '/var/lib/route-proxy/{www,ca,dns}',
    );
    assert.equal(bracePaths(['/a/x', '/b/y']), '/a/x, /b/y');
    assert.equal(bracePaths(['/a/x']), '/a/x');
  });
});
