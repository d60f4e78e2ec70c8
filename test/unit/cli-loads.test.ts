import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { freePort } from '../support/ports';
import { MESH } from '../support/mesh-cli';
import { Scratch } from '../support/scratch';

const run = promisify(execFile);

/** Packages the CLI's start-up must not pay for until a command uses them. */
const HEAVY = ['zod', '@temporalio/client', '@temporalio/common', '@grpc/grpc-js', 'dockerode', 'yaml'];

/** Written before the CLI runs (node --require): on exit, every module file the process loaded. */
const RECORDER = `process.on('exit', () => require('node:fs').writeFileSync(process.env.MESH_TEST_LOADED_TO, JSON.stringify(Object.keys(require.cache))));\n`;

interface Loaded {
  code: number;
  stderr: string;
  packages: Set<string>;
  /** The CLI's own modules in a folder of verbs (`runbook/start/start`, `local/push`), compiled or not. */
  verbModules: Set<string>;
}

describe('what the CLI loads for a command (whole process, as an operator runs it)', () => {
  const scratch = new Scratch();
  let dir: string;
  let recorder: string;
  after(() => scratch.cleanup());
  before(async () => {
    dir = await scratch.dir('mesh-cli-loads-');
    recorder = join(dir, 'record-loaded.js');
    await writeFile(recorder, RECORDER);
  });

  async function meshLoading(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Loaded> {
    const loadedTo = join(dir, `loaded-${args.join('-')}.json`);
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, MESH_TEST_LOADED_TO: loadedTo };
    delete childEnv.MESH_CONFIG;
    let code = 0;
    let stderr = '';
    try {
      ({ stderr } = await run(process.execPath, ['--require', recorder, MESH, ...args], { env: childEnv }));
    } catch (error) {
      ({ code, stderr } = error as { code: number; stderr: string });
    }
    const files = JSON.parse(await readFile(loadedTo, 'utf8')) as string[];
    const packages = new Set(
      files.flatMap((file) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1] ?? []),
    );
    const verbModules = new Set(
      files.flatMap((file) => /\/cli\/((?:runbook\/[a-z-]+|local)\/[^/]+)\.[jt]s$/.exec(file)?.[1] ?? []),
    );
    return { code, stderr, packages, verbModules };
  }

  it('mesh --help loads commander and none of zod, the Temporal SDK, gRPC, dockerode or yaml', async () => {
    const help = await meshLoading(['--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.ok(help.packages.has('commander'), [...help.packages].join(', '));
    assert.deepEqual(
      HEAVY.filter((name) => help.packages.has(name)),
      [],
    );
  });

  it('mesh --version and -V print the version from package.json, loading none of the heavy packages', async () => {
    const { version } = JSON.parse(await readFile(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-V']) {
      const printed = await run(process.execPath, [MESH, flag]);
      assert.equal(printed.stdout, `${version}\n`, flag);
      assert.equal(printed.stderr, '');
      const loaded = await meshLoading([flag]);
      assert.equal(loaded.code, 0, loaded.stderr);
      assert.deepEqual(
        HEAVY.filter((name) => loaded.packages.has(name)),
        [],
      );
    }
  });

  it('says "nothing listens" before loading the Temporal client SDK or gRPC (and loads no dockerode)', async () => {
    const port = await freePort();
    const down = await meshLoading(['runbook', 'status', 'novox'], { TEMPORAL_ADDRESS: `127.0.0.1:${port}` });
    assert.equal(down.code, 1);
    assert.match(
      down.stderr,
      new RegExp(`Cannot reach Temporal at 127\\.0\\.0\\.1:${port}: nothing listens there`),
    );
    assert.ok(down.packages.has('zod'), 'the options were parsed');
    // Only the verb it runs: none of start's, plan's, the worker's or the local mesh's modules.
    assert.deepEqual([...down.verbModules].sort(), ['local/group', 'runbook/follow/status']);
    assert.deepEqual(
      ['@temporalio/client', '@grpc/grpc-js', 'dockerode', 'yaml'].filter((name) => down.packages.has(name)),
      [],
    );
  });
});
