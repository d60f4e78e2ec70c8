import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, connectionOptionsOf, loadConfig, redactConfig, REDACTED } from '../../config';
import { depsFromConfig } from '../../worker/deps';
import { Scratch } from '../support/scratch';

const EXAMPLE = join(__dirname, '..', '..', 'config', 'mesh.example.yaml');

describe('the mesh config file and its environment overrides', () => {
  const scratch = new Scratch();
  after(() => scratch.cleanup());

  async function file(name: string, content: string): Promise<string> {
    const path = join(await scratch.dir('mesh-config-'), name);
    await writeFile(path, content);
    return path;
  }

  const refusal = (load: () => unknown): ConfigError => {
    try {
      load();
    } catch (error) {
      assert.ok(error instanceof ConfigError, `not a ConfigError: ${String(error)}`);
      return error;
    }
    assert.fail('the config was accepted');
  };

  it('reads the example file: durations become the policy’s milliseconds, `*` the default Docker endpoint', () => {
    // The example's command adapter config does not exist here; the environment switches to the local mesh.
    const config = loadConfig({
      file: EXAMPLE,
      env: { MESH_ADAPTER: 'local', MESH_LOCAL_STATE: '/tmp/mesh' },
    });
    assert.equal(config.file, EXAMPLE);
    assert.deepEqual(
      [config.temporal.address, config.temporal.namespace],
      ['temporal.example.com:7233', 'mesh'],
    );
    assert.equal(config.temporal.tls?.serverName, 'temporal.internal');
    assert.deepEqual(config.mesh, { adapter: 'local', localState: '/tmp/mesh' });
    assert.deepEqual(config.policy.reminders, { afterMs: 15 * 60_000, everyMs: 30 * 60_000 });
    assert.equal(config.policy.stalledAfterMs, 10 * 60_000);
    assert.equal(config.policy.cancelledWorkGraceMs, 60_000);
    assert.deepEqual(config.policy.approvers['approve-stop-predecessor'], ['alice', 'bob']);
    assert.match(config.policy.signers, /^carol ssh-ed25519 AAAA\S+ carol@example\.net$/);
    assert.deepEqual(config.policy.signed, {
      'approve-stop-predecessor': 'required',
      'approve-remove-old-data': 'required',
    });
    assert.equal(config.policy.signatureMaxAgeMs, 15 * 60_000);
    assert.equal(config.policy.fleetApprovalMaxAgeMs, 12 * 3_600_000);
    assert.deepEqual(config.nodes['*'], { socket: '/var/run/docker.sock' });
    assert.equal(config.nodes.forge1 && 'ssh' in config.nodes.forge1 && config.nodes.forge1.ssh.port, 22);
    assert.equal(config.notifier?.webhook.headers.Authorization, 'Bearer change-me');
    assert.equal(config.log.level, 'info');
  });

  it('layers Temporal settings: defaults < Temporal profile (TOML) < mesh config file < TEMPORAL_* env', async () => {
    const toml = await file(
      'temporal.toml',
      '[profile.prod]\naddress = "profile.example:7233"\nnamespace = "from-profile"\n[profile.prod.tls]\nserver_name = "profile.internal"\n',
    );
    const meshFile = await file(
      'mesh.yaml',
      'temporal:\n  address: file.example:7233\n  tls:\n    clientCertPath: /etc/c.pem\n    clientKeyPath: /etc/k.pem\n',
    );
    const env = {
      TEMPORAL_CONFIG_FILE: toml,
      TEMPORAL_PROFILE: 'prod',
      TEMPORAL_NAMESPACE: 'from-env',
      TEMPORAL_TLS_CLIENT_CERT_DATA: '-----BEGIN CERTIFICATE-----\nenv\n-----END CERTIFICATE-----\n',
    };
    const { temporal } = loadConfig({ file: meshFile, env });
    assert.equal(temporal.address, 'file.example:7233', 'the file beats the profile');
    assert.equal(temporal.namespace, 'from-env', 'the environment beats the profile');
    assert.equal(temporal.tls?.serverName, 'profile.internal', 'what only the profile sets stays');
    assert.equal(
      temporal.tls?.clientCertPath,
      undefined,
      'a PEM from the environment replaces the file’s path',
    );
    assert.match(temporal.tls?.clientCertData ?? '', /env/);
    assert.equal(temporal.tls?.clientKeyPath, '/etc/k.pem');

    const plain = loadConfig({ env: { TEMPORAL_ADDRESS: 'env.example:7233' } }).temporal;
    assert.deepEqual(plain, { address: 'env.example:7233', namespace: 'default' });
    assert.deepEqual(loadConfig({ env: {} }).temporal, { address: 'localhost:7233', namespace: 'default' });
  });

  it('builds the connection options both SDK connections take: PEMs read, server name, API key, metadata', async () => {
    const pem = (kind: string) => `-----BEGIN ${kind}-----\nAAAA\n-----END ${kind}-----\n`;
    const ca = await file('ca.pem', pem('CERTIFICATE'));
    const meshFile = await file(
      'mesh.yaml',
      `temporal:\n  address: t.example:7233\n  apiKey: k-123\n  grpcMeta: { x-team: mesh }\n  tls:\n    serverCaCertPath: ${ca}\n    serverName: t.internal\n`,
    );
    const options = connectionOptionsOf(loadConfig({ file: meshFile, env: {} }).temporal);
    assert.equal(options.address, 't.example:7233');
    assert.equal(options.apiKey, 'k-123');
    assert.deepEqual(options.metadata, { 'x-team': 'mesh' });
    assert.ok(options.tls && typeof options.tls === 'object');
    assert.equal(options.tls.serverNameOverride, 't.internal');
    assert.equal(Buffer.from(options.tls.serverRootCACertificate ?? []).toString(), pem('CERTIFICATE'));

    const apiKeyOnly = connectionOptionsOf(loadConfig({ env: { TEMPORAL_API_KEY: 'k' } }).temporal);
    assert.equal(apiKeyOnly.tls, true, 'an API key alone turns TLS on (as envconfig does)');
    const off = connectionOptionsOf(
      loadConfig({ env: { TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' } }).temporal,
    );
    assert.equal(off.tls, false);
  });

  it('lets MESH_ADAPTER, MESH_LOCAL_STATE, MESH_COMMAND_CONFIG and MESH_DOCKER_ENDPOINTS override the file', async () => {
    const commandConfig = await file(
      'command.json',
      JSON.stringify({ command: '/opt/mesh-controller/bin/mesh' }),
    );
    const endpoints = await file(
      'endpoints.json',
      JSON.stringify({ nodes: { edge2: { socket: '/run/env.sock' } } }),
    );
    const meshFile = await file(
      'mesh.yaml',
      "mesh: { adapter: local, localState: /var/lib/mesh/file }\nnodes:\n  '*': { socket: /run/default.sock }\n  edge2: { socket: /run/file.sock }\n  edge3: { socket: /run/edge3.sock }\n",
    );
    const fromFile = loadConfig({ file: meshFile, env: {} });
    assert.deepEqual(fromFile.mesh, { adapter: 'local', localState: '/var/lib/mesh/file' });
    assert.deepEqual(loadConfig({ file: meshFile, env: { MESH_LOCAL_STATE: '/tmp/env-state' } }).mesh, {
      adapter: 'local',
      localState: '/tmp/env-state',
    });
    const command = loadConfig({
      file: meshFile,
      env: { MESH_ADAPTER: 'command', MESH_COMMAND_CONFIG: commandConfig },
    });
    assert.deepEqual(command.mesh, { adapter: 'command', command: commandConfig });

    const config = loadConfig({ file: meshFile, env: { MESH_DOCKER_ENDPOINTS: endpoints } });
    assert.deepEqual(config.nodes, {
      '*': { socket: '/run/default.sock' },
      edge2: { socket: '/run/env.sock' },
      edge3: { socket: '/run/edge3.sock' },
    });
    const deps = depsFromConfig(config);
    const socketOf = (node: string) =>
      (deps.dockerFor(node).docker.modem as unknown as { socketPath?: string }).socketPath;
    assert.deepEqual(['edge2', 'edge3', 'novox'].map(socketOf), [
      '/run/env.sock',
      '/run/edge3.sock',
      '/run/default.sock',
    ]);
  });

  it('wires the policy and a webhook notifier whose description (kept in workflow history) is the origin alone', async () => {
    const meshFile = await file(
      'mesh.yaml',
      'policy: { fourEyes: [], reminders: { after: 90s, everyMs: 60000 } }\nnotifier:\n  webhook: { url: "https://hooks.example.com/services/T0AB12CD/B0XY34ZZ/aZ9bY8cX7dW6eV5fU4gT3hS2", headers: { X-Token: t } }\n',
    );
    const deps = depsFromConfig(loadConfig({ file: meshFile, env: { MESH_LOCAL_STATE: '/tmp/x' } }));
    assert.deepEqual(deps.policy?.reminders, { afterMs: 90_000, everyMs: 60_000 });
    assert.deepEqual(deps.policy?.fourEyes, []);
    const byKind = await file('by-kind.yaml', 'policy: { fourEyes: { edge-flip: [] } }\n');
    assert.deepEqual(
      depsFromConfig(loadConfig({ file: byKind, env: { MESH_LOCAL_STATE: '/tmp/x' } })).policy?.fourEyes,
      ['approve-remove-old-data'],
      'four eyes off on edge flips, a kind not named keeps its own',
    );
    assert.equal(
      deps.notifier?.describe.includes('aZ9bY8cX7dW6eV5fU4gT3hS2'),
      false,
      deps.notifier?.describe,
    );
    assert.equal(deps.notifier?.describe, 'webhook https://hooks.example.com', 'the origin, no path');
  });

  it('refuses a bad file or variable with one sentence naming the file and field, and a suggestion', async () => {
    const cases: [string, RegExp][] = [
      ['temporal:\n  adress: x:1\n', /invalid at temporal\.adress: not a field it knows\.$/],
      ['temporal: { address: "https://t.example:7233" }\n', /invalid at temporal\.address: an address like/],
      [
        'policy: { reminders: { after: soon } }\n',
        /invalid at policy\.reminders\.after: "soon" is not a duration like 15m/,
      ],
      [
        'policy: { reminders: { after: 1m, afterMs: 5 } }\n',
        /policy\.reminders\.afterMs: give after or afterMs, not both/,
      ],
      [
        'policy: { stalledAfter: later }\n',
        /invalid at policy\.stalledAfter: "later" is not a duration like 15m/,
      ],
      [
        'policy: { stalledAfter: 5m, stalledAfterMs: 5 }\n',
        /policy\.stalledAfterMs: give stalledAfter or stalledAfterMs, not both/,
      ],
      [
        'policy: { fourEyes: [aprove-stop-predecessor] }\n',
        /invalid at policy\.fourEyes\.0: "aprove-stop-predecessor" is no gate of any runbook; the gates are locks, /,
      ],
      [
        'policy: { fourEyes: [approve-stop-predecessor] }\n',
        /invalid at policy\.fourEyes: the list names no gate of data-path-move, whose approve-remove-old-data is four-eyes by default; name the kinds instead, as in \{ data-path-move: \[approve-remove-old-data\] \}/,
      ],
      [
        'policy: { fourEyes: { edge-fip: [approve-stop-predecessor] } }\n',
        /invalid at policy\.fourEyes\.edge-fip: there is no runbook kind "edge-fip"; the kinds are edge-flip, data-path-move/,
      ],
      [
        'policy: { fourEyes: { edge-flip: [approve-remove-old-data] } }\n',
        /invalid at policy\.fourEyes\.edge-flip\.0: "approve-remove-old-data" is no gate of edge-flip/,
      ],
      [
        'policy: { approvers: { gate-aply: [alice] } }\n',
        /policy\.approvers\.gate-aply: the key is invalid: "gate-aply" is no gate of any runbook/,
      ],
      [
        'policy: { signers: ["carol ssh-rsa AAAAB3NzaC1yc2E="] }\n',
        /invalid at policy\.signers: line 1: the key is ssh-rsa, and only ssh-ed25519 keys are accepted/,
      ],
      [
        'policy: { signers: [], allowedSignersFile: /nowhere/allowed_signers }\n',
        /policy\.allowedSignersFile: give signers or allowedSignersFile, not both/,
      ],
      [
        'policy: { allowedSignersFile: /nowhere/allowed_signers }\n',
        /policy\.allowedSignersFile: cannot read \/nowhere\/allowed_signers: ENOENT/,
      ],
      [
        'policy: { signed: { approve-stop-predecessor: always } }\n',
        /invalid at policy\.signed\.approve-stop-predecessor: /,
      ],
      ['nodes: { Bad_Node: { socket: /x } }\n', /nodes\.Bad_Node: the key is invalid: a node name, or \*/],
      ['nodes: { edge2: { socket: relative.sock } }\n', /invalid at nodes\.edge2/],
      ['notifier: { webhook: { url: "ftp://x" } }\n', /invalid at notifier\.webhook\.url/],
      ['mesh: { adapter: command }\n', /The command adapter needs its config/],
      ['temporal: [\n', /is not valid YAML or JSON/],
    ];
    for (const [content, sentence] of cases) {
      const path = await file('bad.yaml', content);
      const error = refusal(() => loadConfig({ file: path, env: {} }));
      assert.match(error.message, sentence);
      if (!/needs its config/.test(error.message)) assert.ok(error.message.includes(path), error.message);
      assert.equal(error.message.split('. ').length, 1, `one sentence: ${error.message}`);
      assert.ok(error.suggestion.length > 0);
    }
    assert.match(
      refusal(() => loadConfig({ file: '/nonexistent/mesh.yaml', env: {} })).message,
      /does not exist/,
    );
    assert.match(
      refusal(() => loadConfig({ env: { MESH_ADAPTER: 'cmd' } })).message,
      /MESH_ADAPTER must be local or command, not "cmd"/,
    );
    assert.match(
      refusal(() => loadConfig({ env: { MESH_LOG_LEVEL: 'loud' } })).message,
      /MESH_LOG_LEVEL must be one of/,
    );
    assert.match(
      refusal(() => loadConfig({ env: { TEMPORAL_ADDRESS: 'http://x:1' } })).message,
      /^TEMPORAL_ADDRESS "http:\/\/x:1" is not an address/,
    );
    assert.match(
      refusal(() => loadConfig({ env: { TEMPORAL_TLS_CLIENT_CERT_PATH: '/c.pem' } })).message,
      /client certificate is set without its key/,
    );
    assert.match(
      refusal(() => loadConfig({ env: { TEMPORAL_CONFIG_FILE: '/nonexistent.toml' } })).message,
      /TEMPORAL_CONFIG_FILE names/,
    );
    const missingPem = loadConfig({
      env: {
        TEMPORAL_TLS_CLIENT_CERT_PATH: '/nonexistent/c.pem',
        TEMPORAL_TLS_CLIENT_KEY_PATH: '/nonexistent/k.pem',
      },
    });
    assert.match(
      refusal(() => connectionOptionsOf(missingPem.temporal)).message,
      /^Cannot read the Temporal TLS client certificate \/nonexistent\/c\.pem: it does not exist\.$/,
    );
  });

  it('redacts every secret for `mesh config` and keeps what an operator needs to see', async () => {
    const secret = 'S3cretValue0123456789abcdefXYZ';
    const meshFile = await file(
      'mesh.yaml',
      [
        'temporal:',
        `  apiKey: ${secret}-api`,
        `  grpcMeta: { x-auth: ${secret}-meta }`,
        '  tls:',
        `    clientKeyData: "-----BEGIN PRIVATE KEY-----\\n${secret}\\n-----END PRIVATE KEY-----\\n"`,
        '    clientCertPath: /etc/mesh/client.pem',
        'mesh:',
        '  adapter: command',
        `  command: { command: /usr/bin/mesh, env: { MESH_CONTROLLER_TOKEN: ${secret}-env, MESH_URL: short } }`,
        'nodes:',
        '  edge2: { ssh: { host: edge2.internal, privateKey: /etc/mesh/ssh/id_ed25519 } }',
        'notifier:',
        `  webhook: { url: "https://u:${secret}@hooks.example.com/h/${secret}?key=${secret}", headers: { X-Any: plain } }`,
      ].join('\n'),
    );
    const shown = JSON.stringify(redactConfig(loadConfig({ file: meshFile, env: {} })));
    assert.equal(shown.includes(secret), false, shown);
    assert.equal(shown.includes('plain'), false, 'every header value is redacted');
    assert.equal(shown.includes('short'), false, 'every value of a command environment is redacted');
    for (const visible of [
      '/etc/mesh/client.pem',
      '/etc/mesh/ssh/id_ed25519',
      'edge2.internal',
      'hooks.example.com',
      REDACTED,
    ])
      assert.ok(shown.includes(visible), `${visible} missing from ${shown}`);
  });
});
