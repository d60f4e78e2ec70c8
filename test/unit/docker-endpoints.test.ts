import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DockerEndpointsConfigError,
  dockerodeOptions,
  dockerResolver,
  type EndpointHost,
} from '../../docker/endpoints';
import type { DockerEngine } from '../../docker/engine';

/** What dockerode's modem kept of the options (its type does not declare these fields). */
function modem(engine: DockerEngine): { protocol?: string; port?: number; socketPath?: string } {
  return engine.docker.modem as unknown as { protocol?: string; port?: number; socketPath?: string };
}

/** Files by path, so the mapping is tested without a disk, a network or an agent. */
const host: EndpointHost = {
  readFile: (path) => Buffer.from(`pem of ${path}`),
  sshAuthSock: '/run/agent.sock',
};

describe('per-node Docker endpoints', () => {
  it('maps a socket to socketPath', () => {
    assert.deepEqual(dockerodeOptions({ socket: '/run/docker.sock' }, host), {
      socketPath: '/run/docker.sock',
    });
  });

  it('maps tcp with certificates to https with the file contents', () => {
    const tcp = {
      host: 'forge1.lan',
      port: 2376,
      ca: '/etc/d/ca.pem',
      cert: '/etc/d/cert.pem',
      key: '/etc/d/key.pem',
    };
    assert.deepEqual(dockerodeOptions({ tcp }, host), {
      protocol: 'https',
      host: 'forge1.lan',
      port: 2376,
      ca: Buffer.from('pem of /etc/d/ca.pem'),
      cert: Buffer.from('pem of /etc/d/cert.pem'),
      key: Buffer.from('pem of /etc/d/key.pem'),
    });
  });

  it('maps tcp without certificates to plain http', () => {
    assert.deepEqual(dockerodeOptions({ tcp: { host: '10.0.0.5', port: 2375 } }, host), {
      protocol: 'http',
      host: '10.0.0.5',
      port: 2375,
    });
  });

  it('maps ssh to the agent by default, or to a private key file', () => {
    assert.deepEqual(dockerodeOptions({ ssh: { host: 'novox', port: 22, username: 'ops' } }, host), {
      protocol: 'ssh',
      host: 'novox',
      port: 22,
      username: 'ops',
      sshOptions: { agent: '/run/agent.sock' },
    });
    const keyed = dockerodeOptions({ ssh: { host: 'novox', port: 2222, privateKey: '/k/id' } }, host);
    assert.deepEqual(keyed.sshOptions, { privateKey: Buffer.from('pem of /k/id') });
    assert.equal(keyed.username, undefined);
  });

  it('resolves listed nodes to their endpoint and every other node to the default, one client per endpoint', () => {
    const resolve = dockerResolver(
      {
        default: { socket: '/run/docker.sock' },
        nodes: { novox: { ssh: { host: 'novox.lan' } }, edge2: { ssh: { host: 'novox.lan' } } },
      },
      host,
    );
    const novox = resolve('novox');
    assert.equal(resolve('edge2'), novox, 'same endpoint, same engine client');
    assert.equal(resolve('forge1'), resolve('other'));
    assert.notEqual(resolve('forge1'), novox);
    assert.equal(modem(novox).protocol, 'ssh');
    assert.equal(modem(novox).port, 22);
    assert.equal(modem(resolve('forge1')).socketPath, '/run/docker.sock');
  });

  it('defaults every node to the local socket', () => {
    assert.equal(modem(dockerResolver({}, host)('anything')).socketPath, '/var/run/docker.sock');
  });

  it('refuses a config that does not parse, naming the field', () => {
    assert.throws(() => dockerResolver({ nodes: { novox: { socket: 'docker.sock' } } }, host), {
      name: 'DockerEndpointsConfigError',
      message: /nodes\.novox/,
    });
    assert.throws(
      () => dockerResolver({ nodes: { novox: { tcp: { host: 'x', port: 1, cert: '/c' } } } }, host),
      DockerEndpointsConfigError,
    );
    assert.throws(
      () => dockerResolver({ nodes: { novox: { ftp: {} } } } as never, host),
      DockerEndpointsConfigError,
    );
  });
});
