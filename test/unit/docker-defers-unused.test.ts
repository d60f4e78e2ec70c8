import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { freePort } from '../support/ports';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const DEFERRED = ['ssh2', '@grpc/grpc-js', '@grpc/proto-loader', 'protobufjs'];

/** Runs `code` in a fresh process after it required the Docker engine client; `loaded()` lists the packages loaded by then. */
async function afterEngineLoads(code: string): Promise<string> {
  const prelude = `require('./docker/engine');
    const loaded = () => [...new Set(Object.keys(require.cache).flatMap((f) => /\\/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\/[^@]*$/.exec(f)?.[1] ?? []))];`;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '-e', `${prelude}\n${code}`], {
    cwd: ROOT,
  });
  return stdout;
}

describe("the Docker client's start-up (fresh processes)", () => {
  it('loads dockerode without its BuildKit session client (gRPC) or ssh2', async () => {
    const loaded = JSON.parse(await afterEngineLoads('console.log(JSON.stringify(loaded()))')) as string[];
    assert.ok(loaded.includes('dockerode') && loaded.includes('docker-modem'), loaded.join(', '));
    for (const name of DEFERRED) assert.ok(!loaded.includes(name), `${name} is loaded`);
  });

  it('still reaches an engine over ssh://: ssh2 is loaded when the first connection is made', async () => {
    const port = await freePort();
    const out = await afterEngineLoads(`
      const Dockerode = require('dockerode');
      new Dockerode({ protocol: 'ssh', host: '127.0.0.1', port: ${port}, username: 'mesh' }).ping().then(
        () => console.log(JSON.stringify({ answered: true })),
        (error) => console.log(JSON.stringify({ error: error.code, ssh2: loaded().includes('ssh2') })),
      );`);
    assert.deepEqual(JSON.parse(out), { error: 'ECONNREFUSED', ssh2: true });
  });
});
