import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { Scratch } from '../support/scratch';

const MESH = join(__dirname, '..', '..', 'bin', 'mesh.js');
const run = promisify(execFile);

/** `mesh ...` in a clean environment: only what the test gives, no harness TEMPORAL_* variables. */
async function mesh(env: Record<string, string>, ...args: string[]) {
  const clean = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env };
  try {
    const { stdout, stderr } = await run(MESH, args, { env: clean });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('mesh config and --config (the CLI as a subprocess)', () => {
  const scratch = new Scratch();
  const secret = 'Tok3nThatMustNeverBePrinted0123';
  let good: string;
  let bad: string;
  let state: string;

  before(async () => {
    const dir = await scratch.dir('mesh-config-cli-');
    state = join(dir, 'state');
    good = join(dir, 'good.yaml');
    bad = join(dir, 'bad.yaml');
    await writeFile(
      good,
      [
        'temporal: { address: temporal.example.com:7233, namespace: mesh }',
        `notifier: { webhook: { url: "http://127.0.0.1:9/hook", headers: { Authorization: "Bearer ${secret}" } } }`,
        'policy: { reminders: { after: 5m } }',
      ].join('\n'),
    );
    await writeFile(bad, 'policy: { reminders: { after: soonish } }\n');
  });
  after(() => scratch.cleanup());

  it('prints the effective config as YAML, env overrides applied and secrets redacted; --json for scripts', async () => {
    const text = await mesh(
      { MESH_LOCAL_STATE: state, TEMPORAL_NAMESPACE: 'from-env' },
      '--config',
      good,
      'config',
    );
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stdout.includes(secret), false);
    const shown = parse(text.stdout) as { temporal: { namespace: string }; file: string; notifier: unknown };
    assert.equal(shown.temporal.namespace, 'from-env');
    assert.equal(shown.file, good);
    assert.deepEqual(shown.notifier, {
      webhook: {
        url: 'http://127.0.0.1:9/hook',
        headers: { Authorization: '[redacted]' },
        timeoutMs: 10_000,
      },
    });

    const json = await mesh({ MESH_CONFIG: good, MESH_LOCAL_STATE: state }, 'config', '--json');
    assert.equal(json.code, 0, json.stderr);
    assert.equal(json.stdout.includes(secret), false);
    const parsed = JSON.parse(json.stdout) as { policy: { reminders: { afterMs: number } } };
    assert.equal(parsed.policy.reminders.afterMs, 5 * 60_000);
  });

  it('refuses a bad config with one sentence naming file and field, a suggestion and exit 2', async () => {
    for (const args of [
      ['--config', bad, 'config'],
      ['config', '--config', bad],
      ['runbook', 'list', '--config', bad],
    ]) {
      const outcome = await mesh({}, ...args);
      assert.equal(outcome.code, 2, `${args.join(' ')}: ${outcome.stderr}`);
      assert.equal(outcome.stdout, '');
      const lines = outcome.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 2, outcome.stderr);
      assert.equal(
        lines[0],
        `error: The config file ${bad} is invalid at policy.reminders.after: "soonish" is not a duration like 15m, 1h or 90s.`,
      );
    }
  });

  it('leaves `mesh local` alone: the local mesh verbs do not read the config', async () => {
    const outcome = await mesh(
      { MESH_CONFIG: bad, MESH_LOCAL_STATE: state },
      'local',
      'node',
      'list',
      '--json',
    );
    assert.equal(outcome.code, 0, outcome.stderr);
  });
});
