import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bindMountsOnNode, sourceOnNode } from '../../activities/docker/mount-paths';

describe('bind sources as host paths on the node', () => {
  it('strips the node host root', () => {
    assert.equal(sourceOnNode('/tmp/nodes/n1/root', '/tmp/nodes/n1/root/srv/forge'), '/srv/forge');
    assert.equal(sourceOnNode('/tmp/nodes/n1/root/', '/tmp/nodes/n1/root//srv/forge/'), '/srv/forge');
    assert.equal(sourceOnNode('/tmp/nodes/n1/root', '/tmp/nodes/n1/root'), '/');
  });

  it('leaves sources unchanged on a real node (host root /)', () => {
    assert.equal(sourceOnNode('/', '/srv/forge'), '/srv/forge');
    assert.equal(sourceOnNode('/', '/var/lib//forge/'), '/var/lib/forge');
  });

  it('reports a source outside the host root as the engine path, so the mismatch shows', () => {
    assert.equal(sourceOnNode('/tmp/nodes/n1/root', '/srv/forge'), '/srv/forge');
    assert.equal(sourceOnNode('/tmp/nodes/n1/root', '/tmp/nodes/n1/rootless/x'), '/tmp/nodes/n1/rootless/x');
    assert.equal(sourceOnNode('/tmp/nodes/n1/root', '/tmp/nodes/n2/root/srv'), '/tmp/nodes/n2/root/srv');
  });

  it('keeps only binds, sorted by destination', () => {
    const mount = (Type: 'bind' | 'volume', Source: string, Destination: string) => ({
      Type,
      Source,
      Destination,
      Mode: '',
      RW: true,
      Propagation: '',
    });
    const mounts = [
      mount('bind', '/r/srv/b', '/b'),
      mount('volume', '/var/lib/docker/volumes/v/_data', '/v'),
      mount('bind', '/elsewhere/a', '/a'),
    ];
    assert.deepEqual(bindMountsOnNode('/r', mounts), [
      { source: '/elsewhere/a', destination: '/a' },
      { source: '/srv/b', destination: '/b' },
    ]);
  });
});
