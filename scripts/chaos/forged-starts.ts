import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signWithKey } from '../../cli/runbook/decide/sign-with-key';
import { withSignedStart } from '../../client/sign-start';
import { moveInput, seedForge } from '../../test/support/data-move';
import { seedEdgeFlip } from '../../test/support/edge-flip-seed';
import { runbookWorld } from '../../test/support/runbook-world';
import { FAST_TIMINGS, isRunning, moduleContainers } from '../../test/support/runbooks';
import type { Decision } from '../../workflows/contracts';
import { RunbookPolicy } from '../../workflows/policy';
import { decisionStatement } from '../../workflows/signing/statement';
import { PRODUCT_TIMING_LIMITS } from '../../workflows/timing-limits';
import type { ChaosEnv } from './chaos-env';
import { forgedDecisionRun, forgedStartRuns, type ForgeryTarget } from './forged-cases';
import type { ExperimentResult } from './result';

/** Within the product's limits, short enough for a chaos run. */
const TIMINGS = { ...FAST_TIMINGS, stabilityWindowMs: 3_000, recheckEveryMs: 1_000 };

/**
 * `forged-starts` on the dev server: runbooks started through a plain Temporal client with forged fleet
 * fields, timings, predictions and fleet state, under a worker whose policy signs starts and the
 * approval (alice and bob hold keys, mallory's is nobody's), and decisions round that policy. Each must be
 * refused: the table counts every step past a forged start or decision as a wrong proceed.
 */
export async function forgedStarts(
  _env: ChaosEnv,
  quick: boolean,
  log: (line: string) => void,
): Promise<ExperimentResult> {
  const started = Date.now();
  const keys = await mkdtemp(join(tmpdir(), 'mesh-chaos-keys-'));
  try {
    const key = (name: string) => join(keys, name);
    for (const name of ['alice', 'bob', 'mallory'])
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', key(name)]);
    const signer = async (name: string) => `${name} ${(await readFile(`${key(name)}.pub`, 'utf8')).trim()}`;
    const policy = {
      ...RunbookPolicy.parse({
        signers: [await signer('alice'), await signer('bob')].join('\n'),
        signed: { 'approve-stop-predecessor': 'required' },
      }),
      timingLimits: PRODUCT_TIMING_LIMITS,
    };
    await using world = await runbookWorld({ deps: { policy } });
    const sign = (name: string, statement: string) => signWithKey(key(name), statement);
    const target: ForgeryTarget = {
      client: world.client,
      taskQueue: world.taskQueue,
      edgeFlip: async () => ({ ...(await seedEdgeFlip(world, { startedBy: 'alice' })), timings: TIMINGS }),
      forge: async () => moveInput(await seedForge(world), {}, TIMINGS),
      async predecessorServes(input) {
        const names = await moduleContainers(world.engine, input.node, input.predecessor);
        const running = await Promise.all(names.map((n) => isRunning(world.engine, n.replace(/^\//, ''))));
        return names.length > 0 && running.every(Boolean);
      },
      signStart: (input, at) =>
        withSignedStart(input, (statement) => sign('alice', statement), {
          namespace: world.client.options.namespace,
          ...at,
          startedBy: 'alice',
        }),
      forgedDecisions(waiting, at) {
        const signedAs = (by: string, keyOf: string, evidence = waiting.evidence): Decision => {
          const signedAt = new Date().toISOString();
          const statement = decisionStatement({
            namespace: world.client.options.namespace,
            runbook: at.runbook,
            run: at.run,
            gate: waiting.gate,
            action: 'approve',
            evidence,
            signedAt,
          });
          return { action: 'approve', by, evidence, signature: sign(keyOf, statement), signedAt };
        };
        return [
          { action: 'approve', by: 'bob', evidence: waiting.evidence },
          signedAs(at.starter, at.starter),
          signedAs('mallory', 'mallory'),
          signedAs('bob', 'alice'),
          signedAs('bob', 'bob', '0000000000'),
          { ...signedAs('bob', 'bob'), evidence: '0000000000' },
        ];
      },
      owns: (id) => world.owns(id.replace(/^runbook-/, '')),
    };
    const runs = [
      ...(await forgedStartRuns(target, quick ? 1 : 3, log)),
      await forgedDecisionRun(target, log),
    ];
    return { experiment: 'forged starts', runs, seconds: (Date.now() - started) / 1000 };
  } finally {
    await rm(keys, { recursive: true, force: true });
  }
}
