import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { seedEdgeFlip } from '../../test/support/edge-flip-seed';
import { statusWhen, waitingAt } from '../../test/support/runbooks';
import { edgeFlip } from '../../workflows';
import { statusQuery } from '../../workflows/contracts';
import { runbookWorld } from '../../test/support/runbook-world';
import { cliEnv, runCli } from './cli';
import type { ChaosEnv } from './chaos-env';
import type { ExperimentResult, RunResult } from './result';

const HOSTILE_NAMES = [
  '../../etc/passwd',
  '/etc/shadow',
  'a;rm -rf /',
  '$(touch /tmp/chaos-pwned)',
  '`id`',
  'node && reboot',
  'x|nc 1.2.3.4 80',
  'NODE-UPPER',
  '',
  ' ',
  '-rf',
  'a'.repeat(5_000),
  'tab\there',
  'esc\u001b[31mred',
  'ünïcödé',
];

const HOSTILE_PATHS = [
  'srv/forge',
  '/srv/../etc',
  '/',
  '/srv/forge;reboot',
  '/srv/$(id)',
  '',
  '/srv/forge\n/etc',
];

/** An argument as the report names it: quoted, escaped, at most 40 characters. */
const shown = (value: string) => {
  const quoted = JSON.stringify(value);
  return quoted.length > 40 ? `${quoted.slice(0, 30)}…" (${value.length} chars)` : quoted;
};

/** One bad invocation: its argv after `mesh`, and why it is wrong. */
interface BadCall {
  args: string[];
  what: string;
}

/** Every verb with wrong, missing and hostile arguments; `node` is a real node of the mesh, `gate` a real gate. */
function badCalls(node: string): BadCall[] {
  const calls: BadCall[] = [];
  const add = (what: string, ...args: string[]) => calls.push({ what, args });
  const edge = (over: Record<string, string>) => {
    const base: Record<string, string> = {
      '--node': node,
      '--module': 'route-proxy',
      '--predecessor': 'caddy',
      '--public-name': 'example.test',
      '--public-address': 'http://127.0.0.1:1',
      '--successor-address': 'http://127.0.0.1:2',
      '--successor-marker': 'route-proxy',
      '--predecessor-marker': 'caddy',
      '--detach': '',
      ...over,
    };
    return Object.entries(base).flatMap(([k, v]) =>
      v === '' && k === '--detach' ? [k] : v === '\0omit' ? [] : [k, v],
    );
  };
  const move = (over: Record<string, string>) => {
    const base: Record<string, string> = {
      '--node': node,
      '--module': 'forge',
      '--from': '/srv/forge',
      '--to': '/var/lib/forge',
      '--container': 'web',
      ...over,
    };
    return [...Object.entries(base).flatMap(([k, v]) => (v === '\0omit' ? [] : [k, v])), '--detach'];
  };
  add('unknown kind', 'runbook', 'start', 'flip-everything');
  add('unknown kind with traversal', 'runbook', 'start', '../edge-flip');
  for (const flag of ['--node', '--module', '--predecessor', '--successor-marker', '--predecessor-marker'])
    add(`edge-flip without ${flag}`, 'runbook', 'start', 'edge-flip', ...edge({ [flag]: '\0omit' }));
  for (const name of HOSTILE_NAMES) {
    add(`edge-flip --node ${shown(name)}`, 'runbook', 'start', 'edge-flip', ...edge({ '--node': name }));
    add(`edge-flip --module ${shown(name)}`, 'runbook', 'start', 'edge-flip', ...edge({ '--module': name }));
  }
  add(
    'edge-flip with the same module twice',
    'runbook',
    'start',
    'edge-flip',
    ...edge({ '--module': 'caddy' }),
  );
  for (const address of [
    'not a url',
    'file:///etc/passwd',
    'http://',
    'javascript:alert(1)',
    'http://127.0.0.1:99999',
  ])
    add(
      `edge-flip --public-address ${address}`,
      'runbook',
      'start',
      'edge-flip',
      ...edge({ '--public-address': address }),
    );
  add('edge-flip --expect-status 0', 'runbook', 'start', 'edge-flip', ...edge({}), '--expect-status', '0');
  add(
    'edge-flip --expect-status abc',
    'runbook',
    'start',
    'edge-flip',
    ...edge({}),
    '--expect-status',
    'abc',
  );
  add('edge-flip with an unknown option', 'runbook', 'start', 'edge-flip', ...edge({}), '--force');
  for (const path of HOSTILE_PATHS) {
    add(
      `data-path-move --from ${JSON.stringify(path)}`,
      'runbook',
      'start',
      'data-path-move',
      ...move({ '--from': path }),
    );
    add(
      `data-path-move --to ${JSON.stringify(path)}`,
      'runbook',
      'start',
      'data-path-move',
      ...move({ '--to': path }),
    );
  }
  add(
    'data-path-move --to equal to --from',
    'runbook',
    'start',
    'data-path-move',
    ...move({ '--to': '/srv/forge' }),
  );
  add(
    'data-path-move --to inside --from',
    'runbook',
    'start',
    'data-path-move',
    ...move({ '--to': '/srv/forge/new' }),
  );
  add(
    'data-path-move --container ../x',
    'runbook',
    'start',
    'data-path-move',
    ...move({ '--container': '../x' }),
  );
  add('data-path-move --nodes a,,b', 'runbook', 'start', 'data-path-move', ...move({}), '--nodes', 'a,,b');
  for (const verb of ['status', 'watch', 'history', 'abort']) {
    add(`${verb} without an id`, 'runbook', verb);
    for (const id of ['runbook-never-started', ...HOSTILE_NAMES.filter((n) => n !== '')])
      add(`${verb} ${shown(id)}`, 'runbook', verb, id);
  }
  for (const [flag, value] of [
    ['--phase', 'exploded'],
    ['--limit', '-1'],
    ['--limit', 'abc'],
    ['--node', '../x'],
    ['--node', "x' OR 1=1 OR MeshNode='"],
  ] as const)
    add(`list ${flag} ${value}`, 'runbook', 'list', flag, value);
  add('approve without a gate', 'runbook', 'approve', node);
  add('approve an unknown runbook', 'runbook', 'approve', 'never-started', 'approve-stop-predecessor');
  add('approve a hostile gate', 'runbook', 'approve', node, '; rm -rf /');
  add('approve with an empty --as', 'runbook', 'approve', node, 'approve-stop-predecessor', '--as', '');
  add('approve a gate it does not wait at', 'runbook', 'approve', node, 'approve-stop-predecessor');
  add('decide an action the gate does not offer', 'runbook', 'decide', node, 'recreate');
  add('decide with a stale evidence hash', 'runbook', 'decide', node, 'take', '--evidence', 'deadbeef');
  add('decide without an action', 'runbook', 'decide', node);
  add('decide an unknown runbook', 'runbook', 'decide', 'never-started', 'take');
  add('decide a hostile action', 'runbook', 'decide', node, '$(reboot)');
  add('decide with a traversal gate', 'runbook', 'decide', node, 'take', '--gate', '../../gate');
  add('clear an unknown node', 'runbook', 'clear', 'ghost-node', '--reason', 'looked');
  add('clear without --reason', 'runbook', 'clear', node);
  add('clear a hostile node', 'runbook', 'clear', '../../etc', '--reason', 'x');
  add('worker --node traversal', 'runbook', 'worker', '--node', '../x');
  add('worker --host-root relative', 'runbook', 'worker', '--node', node, '--host-root', 'relative/dir');
  add('local assign traversal', 'local', 'assign', '../x', node);
  add('local assign to an unknown node', 'local', 'assign', 'caddy', 'ghost-node');
  add('local push hostile node', 'local', 'push', '$(touch /tmp/chaos-pwned)');
  add('local take unknown module', 'local', 'take', 'ghost-module', node);
  add('local unassign traversal', 'local', 'unassign', 'caddy', '../../x');
  add('local node create traversal', 'local', 'node', 'create', '../escape');
  add('local module show unknown', 'local', 'module', 'show', 'ghost-module');
  add('local build traversal', 'local', 'build', '../../x');
  add('unknown verb', 'runbook', 'explode', node);
  return calls;
}

/**
 * A node agent's own bookkeeping, not the mesh's state: a lingering agent withdraws its presence file and
 * logs on its own time, whatever the CLI is asked meanwhile.
 */
const AGENT_BOOKKEEPING = new Set(['agent.pid', 'agent.log']);

/** A digest of every file below `dir` but agents' bookkeeping (paths, sizes, contents), to tell that nothing changed. */
async function treeDigest(dir: string): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (path: string): Promise<void> => {
    const entries = (await readdir(path, { withFileTypes: true })).filter(
      (entry) => !AGENT_BOOKKEEPING.has(entry.name),
    );
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const full = join(path, entry.name);
      hash.update(`${full}\n`);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) hash.update(await readFile(full));
      else hash.update(String((await stat(full).catch(() => ({ size: -1 }))).size));
    }
  };
  await walk(dir);
  return hash.digest('hex');
}

async function workflowCount(client: Client): Promise<number> {
  return (await client.workflow.count()).count;
}

/** What is wrong with the CLI's answer to a bad call, if anything. */
export function judgeAnswer(run: {
  code: number | null;
  stdout: string;
  stderr: string;
}): string | undefined {
  const text = run.stderr.trim();
  if (run.code !== 2) return `exit ${run.code}, not 2 (${text.split('\n')[0]?.slice(0, 160)})`;
  if (text === '') return 'exit 2 with nothing said';
  if (/\n\s+at .+\(.+:\d+:\d+\)/.test(text)) return 'a stack trace, not a sentence';
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  if (lines.length > 3) return `${lines.length} lines, not a sentence: ${lines[0]?.slice(0, 120)}`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(text))
    return 'control characters echoed back to the terminal';
  return undefined;
}

/**
 * Experiment 6: every CLI verb with wrong, missing and hostile arguments, through the compiled CLI against
 * the suite's server and a local mesh whose node has an edge flip waiting at gate-apply (its worker in this
 * process): one sentence, exit 2, no runbook started (the server's count of workflows), nothing changed in
 * the mesh's state, the waiting runbook's evidence and decisions as they were.
 */
export async function badOperatorInput(
  env: ChaosEnv,
  quick: boolean,
  log: (line: string) => void,
): Promise<ExperimentResult> {
  const started = Date.now();
  const client = await env.client();
  await using world = await runbookWorld();
  const seeded = await seedEdgeFlip(world, { leftovers: true });
  const handle = await world.start(edgeFlip, seeded);
  await statusWhen(handle, waitingAt('gate-apply'), 180_000);
  const cli = cliEnv(world.taskQueue, world.stateDir);
  let calls = badCalls(seeded.node);
  if (quick) calls = calls.filter((_, i) => i % 8 === 0);
  const runs: RunResult[] = [];
  const look = async () => {
    const status = await handle.query(statusQuery);
    return {
      workflows: await workflowCount(client),
      state: await treeDigest(world.stateDir),
      runbook: JSON.stringify([status.phase, status.waiting?.evidence, status.decisions.length]),
    };
  };
  for (const call of calls) {
    const before = await look();
    const answer = await runCli(call.args, cli, 60_000);
    const after = await look();
    const notes: string[] = [];
    const wrong = judgeAnswer(answer);
    if (wrong) notes.push(wrong);
    const startedRunbooks = after.workflows - before.workflows;
    if (startedRunbooks !== 0) notes.push(`${startedRunbooks} workflow(s) started`);
    if (after.state !== before.state) notes.push("the local mesh's state changed");
    if (after.runbook !== before.runbook)
      notes.push(`the waiting runbook changed: ${before.runbook} → ${after.runbook}`);
    runs.push({
      name: call.what,
      passed: notes.length === 0,
      lost: 0,
      duplicated: 0,
      wrongProceeds: startedRunbooks > 0 ? startedRunbooks : 0,
      notes,
    });
    if (notes.length > 0) log(`  ${call.what}: ${notes.join('; ')}`);
  }
  log(
    `  ${runs.filter((r) => r.passed).length} of ${runs.length} bad calls answered with one sentence and exit 2`,
  );
  return { experiment: 'bad operator input', runs, seconds: (Date.now() - started) / 1000 };
}
