import { spawnSync } from 'node:child_process';
import { chmod, chown, link, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyTreeWithResume, FILE_LANES } from '../activities/data/copy-tree';
import { verifyTrees } from '../activities/data/verify-tree';

/**
 * Times the data-path-move copy mechanisms side by side on one 1 GiB tree of mixed file sizes (many
 * small files, some medium, a few large, symlinks and hard links): plain `cp -a`, the Node copy and
 * rsync, in rotating order over several rounds. Prints medians, MB/s and ratios against `cp -a`; each
 * copy is verified once (not timed). Each copy is followed by `sync -f` so write-back does not spill
 * into the next; `+sync` is the time until the data is on disk. Removes everything it made.
 *
 *   npx tsx scripts/bench-copy.ts [rounds=3] [parent dir=os.tmpdir()]
 */

const GIB = 1024 ** 3;
const rounds = Number(process.argv[2] ?? 3);
const parent = process.argv[3] ?? tmpdir();

/** mulberry32: the same tree on every run. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

async function buildTree(root: string): Promise<{ files: number; bytes: number }> {
  const random = prng(42);
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const pool = Buffer.alloc(64 << 20);
  for (let i = 0; i < pool.length; i += 4) pool.writeUInt32LE((random() * 2 ** 32) >>> 0, i);
  const sizes = [
    ...Array.from({ length: 20_000 }, () => int(100, 16 << 10)),
    ...Array.from({ length: 300 }, () => int(256 << 10, 2 << 20)),
  ];
  const rest = GIB - sizes.reduce((a, b) => a + b, 0);
  sizes.push(...Array.from({ length: 4 }, (_, i) => Math.floor(rest / 4) + (i === 0 ? rest % 4 : 0)));
  const paths: string[] = [];
  for (const [i, size] of sizes.entries()) {
    const dir = join(root, `d${i % 20}`, `e${i % 200}`);
    await mkdir(dir, { recursive: true });
    const path = join(dir, `f${i}.bin`);
    const content = Buffer.alloc(size);
    for (let at = 0; at < size; at += pool.length) {
      const start = int(0, pool.length - Math.min(size - at, pool.length));
      pool.copy(content, at, start, start + Math.min(size - at, pool.length));
    }
    await writeFile(path, content, { mode: i % 7 === 0 ? 0o600 : 0o644 });
    if (i % 11 === 0) await chown(path, 1234, 1234);
    paths.push(path);
  }
  for (let i = 0; i < 200; i++) {
    const target = paths[int(0, paths.length - 1)] as string;
    await symlink(i % 10 === 0 ? '../missing' : target, join(root, `d${i % 20}`, `link${i}`));
    await link(paths[int(0, paths.length - 1)] as string, join(root, `d${i % 20}`, `hard${i}`));
  }
  await chmod(join(root, 'd3'), 0o750);
  return { files: paths.length + 200, bytes: sizes.reduce((a, b) => a + b, 0) };
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${result.stderr.toString()}`);
}

const MECHANISMS: Record<string, (from: string, to: string) => Promise<unknown>> = {
  'cp -a': async (from, to) => run('cp', ['-a', `${from}/.`, to]),
  [`node (${FILE_LANES} lanes)`]: (from, to) => copyTreeWithResume(from, to),
  'node (1 lane)': (from, to) => copyTreeWithResume(from, to, undefined, undefined, { lanes: 1 }),
  'rsync -aH': async (from, to) =>
    run('rsync', ['-aH', '--numeric-ids', '--no-inc-recursive', '--info=progress2', `${from}/`, `${to}/`]),
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const work = await mkdtemp(join(parent, 'bench-copy-'));
  try {
    const source = join(work, 'source');
    const built = Date.now();
    const tree = await buildTree(source);
    run('sync', ['-f', work]);
    console.log(
      `tree: ${tree.files} files, ${(tree.bytes / GIB).toFixed(2)} GiB, built in ${(Date.now() - built) / 1000}s`,
    );
    const names = Object.keys(MECHANISMS);
    const times: Record<string, { copy: number; synced: number }[]> = {};
    for (let round = 0; round < rounds; round++) {
      for (const name of [...names.slice(round % names.length), ...names.slice(0, round % names.length)]) {
        const target = join(work, 'target');
        await mkdir(target);
        const started = process.hrtime.bigint();
        await MECHANISMS[name]?.(source, target);
        const copied = process.hrtime.bigint();
        run('sync', ['-f', target]);
        const seconds = (end: bigint) => Number(end - started) / 1e9;
        (times[name] ??= []).push({ copy: seconds(copied), synced: seconds(process.hrtime.bigint()) });
        if (round === 0) {
          const verified = await verifyTrees(source, target);
          if (verified.mismatchCount > 0)
            throw new Error(`${name}: ${JSON.stringify(verified.details.slice(0, 5))}`);
        }
        await rm(target, { recursive: true, force: true });
        run('sync', ['-f', work]);
      }
      const line = names.map((name) => `${name} ${times[name]?.[round]?.copy.toFixed(2)}s`).join(', ');
      console.log(`round ${round + 1}: ${line} (load ${loadavg()[0]?.toFixed(1)})`);
    }
    /** Per round, a mechanism's time over cp -a's in the same round; then the median over rounds. */
    const ratio = (name: string, key: 'copy' | 'synced') =>
      median((times[name] ?? []).map((t, round) => t[key] / (times['cp -a']?.[round]?.[key] ?? NaN)));
    const mbps = (s: number) => (tree.bytes / 1e6 / s).toFixed(0).padStart(6);
    console.log(
      `\nmedians of ${rounds} rounds; ratio = time / time of cp -a in the same round (lower is faster)`,
    );
    console.log('mechanism          copy s   MB/s   ratio | +sync s   MB/s   ratio');
    for (const name of names) {
      const copy = median((times[name] ?? []).map((t) => t.copy));
      const synced = median((times[name] ?? []).map((t) => t.synced));
      console.log(
        `${name.padEnd(18)} ${copy.toFixed(2).padStart(6)} ${mbps(copy)} ${ratio(name, 'copy').toFixed(2).padStart(7)} | ` +
          `${synced.toFixed(2).padStart(7)} ${mbps(synced)} ${ratio(name, 'synced').toFixed(2).padStart(7)}`,
      );
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

void main();
