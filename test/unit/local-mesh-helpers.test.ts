import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { containerCreateOptions, healthTest, specHash } from '../../docker/container-options';
import { splitImageTag } from '../../docker/engine';
import { LABEL } from '../../docker/labels';
import { containerLabels, containerName, hostPathOnNode, placementOn } from '../../docker/placement';
import {
  containerHoldReason,
  dirHoldReason,
  heldDirMountedBy,
  isDirHeld,
  pathsOverlap,
} from '../../mesh/local/holds';
import { pushResources } from '../../mesh/local/resources';
import { resolveLocalStateDir } from '../../mesh/local/state-dir';
import { ContainerSpec, ModuleSpec } from '../../mesh/schemas';

const web = ContainerSpec.parse({
  name: 'web',
  image: 'mesh-local/forge:latest',
  command: ['httpd', '-f'],
  mounts: [{ hostPath: '/srv/forge', containerPath: '/data' }],
});

describe('hostPathOnNode', () => {
  it('roots a spec path under the node host root, and leaves it alone on a real node', () => {
    assert.equal(
      hostPathOnNode('/tmp/n1/root', '/var/lib/route-proxy/ca'),
      '/tmp/n1/root/var/lib/route-proxy/ca',
    );
    assert.equal(hostPathOnNode('/tmp/n1/root/', '/srv/forge/'), '/tmp/n1/root/srv/forge');
    assert.equal(hostPathOnNode('/', '/var/lib/forge'), '/var/lib/forge');
  });
});

describe('pathsOverlap', () => {
  it('is true for the same path and for a path inside the other, either way round', () => {
    assert.equal(pathsOverlap('/var/lib/a', '/var/lib/a'), true);
    assert.equal(pathsOverlap('/var/lib/a/certs', '/var/lib/a'), true);
    assert.equal(pathsOverlap('/var/lib', '/var/lib/a'), true);
    assert.equal(pathsOverlap('/var/lib/ab', '/var/lib/a'), false);
  });
});

describe('pushResources', () => {
  it('lists each module’s data dirs then its containers, with the schema ids', () => {
    const modules = [
      ModuleSpec.parse({ module: 'a', dataDirs: ['/var/lib/a'], containers: [{ name: 'x', image: 'i' }] }),
      ModuleSpec.parse({
        module: 'b',
        containers: [
          { name: 'y', image: 'i' },
          { name: 'z', image: 'i' },
        ],
      }),
    ];
    assert.deepEqual(
      pushResources(modules).map((r) => r.id),
      ['a/dir:/var/lib/a', 'a/container:x', 'b/container:y', 'b/container:z'],
    );
    assert.deepEqual(pushResources([]), []);
  });
});

describe('holds', () => {
  it('holds a dir only on an adopted node, before take, when it exists and mesh did not make it', () => {
    const held = { adopted: true, taken: false, existsOnDisk: true, owned: false };
    assert.equal(isDirHeld(held), true);
    assert.equal(isDirHeld({ ...held, adopted: false }), false);
    assert.equal(isDirHeld({ ...held, taken: true }), false);
    assert.equal(isDirHeld({ ...held, existsOnDisk: false }), false);
    assert.equal(isDirHeld({ ...held, owned: true }), false);
  });

  it('finds the held dir a container mounts, exactly or nested', () => {
    assert.equal(heldDirMountedBy(web, ['/srv/forge']), '/srv/forge');
    assert.equal(heldDirMountedBy(web, ['/srv']), '/srv');
    assert.equal(heldDirMountedBy(web, ['/srv/forgery']), undefined);
    assert.equal(heldDirMountedBy(web, []), undefined);
  });

  it('says why, in the node’s own words', () => {
    assert.equal(
      dirHoldReason('route-proxy', '/var/lib/route-proxy/ca'),
      'found /var/lib/route-proxy/ca on this adopted node; not touched until route-proxy is taken',
    );
    assert.equal(
      containerHoldReason('route-proxy', '/var/lib/route-proxy/ca'),
      'would mount /var/lib/route-proxy/ca, found on this adopted node; not run until route-proxy is taken',
    );
  });
});

describe('containerCreateOptions', () => {
  const spec = ContainerSpec.parse({
    ...web,
    mounts: [...web.mounts, { hostPath: '/etc/forge', containerPath: '/conf', readOnly: true }],
    ports: [{ host: 18080, container: 80 }],
    env: { MODE: 'prod' },
    healthcheck: { test: ['wget', '-q', 'http://127.0.0.1/'], intervalSeconds: 1.5 },
  });
  const options = containerCreateOptions(spec, placementOn('n1', '/tmp/root', 'forge', 'web'));

  it('names and labels the container for its node, module and spec', () => {
    assert.equal(options.name, 'n1.forge.web');
    assert.equal(containerName('n1', 'forge', 'web'), 'n1.forge.web');
    assert.deepEqual(options.Labels, {
      ...containerLabels('n1', 'forge', 'web'),
      [LABEL.specHash]: specHash(spec),
    });
  });

  it('binds the node’s real host paths, publishes ports on their host ip, passes env and command', () => {
    assert.deepEqual(options.HostConfig?.Binds, [
      '/tmp/root/srv/forge:/data:rw',
      '/tmp/root/etc/forge:/conf:ro',
    ]);
    assert.deepEqual(options.HostConfig?.PortBindings, {
      '80/tcp': [{ HostIp: '127.0.0.1', HostPort: '18080' }],
    });
    assert.deepEqual(options.ExposedPorts, { '80/tcp': {} });
    assert.deepEqual(options.Env, ['MODE=prod']);
    assert.deepEqual(options.Cmd, ['httpd', '-f']);
    assert.equal(options.Image, 'mesh-local/forge:latest');
  });

  it('converts the healthcheck to nanoseconds with a CMD test', () => {
    assert.deepEqual(options.Healthcheck, {
      Test: ['CMD', 'wget', '-q', 'http://127.0.0.1/'],
      Interval: 1_500_000_000,
      Timeout: 2_000_000_000,
      Retries: 3,
      StartPeriod: 0,
    });
    assert.deepEqual(healthTest(['CMD-SHELL', 'true']), ['CMD-SHELL', 'true']);
  });

  it('runs on the bridge network unless the spec asks for the host network, where nothing is published', () => {
    assert.equal(options.HostConfig?.NetworkMode, 'bridge');
    const onHost = containerCreateOptions({ ...spec, network: 'host' }, { name: 'n', labels: {} });
    assert.equal(onHost.HostConfig?.NetworkMode, 'host');
    assert.deepEqual(onHost.HostConfig?.PortBindings, {});
  });

  it('leaves out what the spec does not say', () => {
    const bare = containerCreateOptions(ContainerSpec.parse({ name: 'x', image: 'i' }), {
      name: 'n',
      labels: {},
    });
    assert.equal('Cmd' in bare, false);
    assert.equal('Healthcheck' in bare, false);
    assert.deepEqual(bare.HostConfig?.Binds, []);
  });
});

describe('specHash', () => {
  it('ignores key order and changes with a mount path', () => {
    const reordered = ContainerSpec.parse(Object.fromEntries(Object.entries(web).reverse()));
    assert.equal(specHash(reordered), specHash(web));
    const moved = { ...web, mounts: [{ ...web.mounts[0]!, hostPath: '/var/lib/forge' }] };
    assert.notEqual(specHash(moved), specHash(web));
  });
});

describe('splitImageTag', () => {
  it('splits repo and tag, defaulting to latest and keeping a registry port in the repo', () => {
    assert.deepEqual(splitImageTag('mesh-local/forge:v2'), { repo: 'mesh-local/forge', tag: 'v2' });
    assert.deepEqual(splitImageTag('mesh-local/forge'), { repo: 'mesh-local/forge', tag: 'latest' });
    assert.deepEqual(splitImageTag('reg:5000/forge'), { repo: 'reg:5000/forge', tag: 'latest' });
  });
});

describe('resolveLocalStateDir', () => {
  it('prefers the explicit dir, then $MESH_LOCAL_STATE, then ~/.local/state/mesh/local', () => {
    assert.equal(resolveLocalStateDir('/x/state', { MESH_LOCAL_STATE: '/y' }, '/home/o'), '/x/state');
    assert.equal(resolveLocalStateDir(undefined, { MESH_LOCAL_STATE: '/y' }, '/home/o'), '/y');
    assert.equal(
      resolveLocalStateDir(undefined, { MESH_LOCAL_STATE: '' }, '/home/o'),
      '/home/o/.local/state/mesh/local',
    );
  });
});
