import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { hostPathOnNode } from '../../docker/placement';
import { AbsolutePath, Name } from '../../mesh/schemas';
import { firstIssueText } from '../../base/zod-issue';
import { Manifest } from './manifest';

/** Where a worker keeps runbook state of its own: $MESH_STATE_DIR/runbook, else ~/.local/state/mesh/runbook. */
export function resolveRunbookStateDir(
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): string {
  const root = env.MESH_STATE_DIR ? resolve(env.MESH_STATE_DIR) : join(home, '.local', 'state', 'mesh');
  return join(root, 'runbook');
}

export const BaselineId = z.string().regex(/^[a-z0-9][a-z0-9-]*-[0-9a-f]{12}$/, 'not a baseline id');

/** A and B of one move as they were after the last copy or catch-up: what later changes are judged against. */
export const Baseline = z.strictObject({
  version: z.literal(1),
  id: BaselineId,
  node: Name,
  from: AbsolutePath,
  to: AbsolutePath,
  recordedAt: z.iso.datetime(),
  a: Manifest,
  b: Manifest,
});
export type Baseline = z.infer<typeof Baseline>;

/** One id per node and pair of paths: recording again (a retry, a later move of the same paths) replaces it. */
export function baselineId(node: string, from: string, to: string): string {
  return `${node}-${createHash('sha256').update(`${from}\0${to}`).digest('hex').slice(0, 12)}`;
}

/** A baseline that cannot be read: missing, unparsable, or of another move. */
export class BaselineError extends Error {
  override readonly name = 'BaselineError';
}

/**
 * Where a node keeps the baselines of its data moves, as the node names the path: on the node's own disk,
 * so every worker of the node finds them, also one started after the worker that recorded them was
 * replaced, or beside it (a second unit, a recreated container).
 */
export const NODE_BASELINES = '/var/lib/mesh-runbook/baselines';

/**
 * Baselines as files, written whole or not at all, in `dir`; `earlier` is where workers kept them before
 * (their own state dir): read there when `dir` has none, so moves recorded before still catch up.
 */
export class BaselineStore {
  constructor(
    private readonly dir: string,
    private readonly earlier?: string,
  ) {}

  /** The store of the node whose host paths are at `hostRoot` here, reading `<stateDir>/baselines` too. */
  static onNode(hostRoot: string, stateDir: string): BaselineStore {
    return new BaselineStore(hostPathOnNode(hostRoot, NODE_BASELINES), join(stateDir, 'baselines'));
  }

  fileOf(id: string, dir = this.dir): string {
    return join(dir, `${BaselineId.parse(id)}.json`);
  }

  async write(baseline: Baseline): Promise<void> {
    const file = this.fileOf(baseline.id);
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(temp, `${JSON.stringify(Baseline.parse(baseline))}\n`, { flush: true, mode: 0o600 });
      await rename(temp, file);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  /** The baseline's file where it is found (this store's dir first), or undefined when there is none. */
  async find(id: string): Promise<{ file: string; text: string } | undefined> {
    for (const dir of this.earlier ? [this.dir, this.earlier] : [this.dir]) {
      const file = this.fileOf(id, dir);
      const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      if (text !== undefined) return { file, text };
    }
    return undefined;
  }

  /** Forgets a baseline wherever it is kept: the B it described is gone. */
  async remove(id: string): Promise<void> {
    for (const dir of this.earlier ? [this.dir, this.earlier] : [this.dir])
      await rm(this.fileOf(id, dir), { force: true });
  }

  async read(id: string, expected: { node: string; from: string; to: string }): Promise<Baseline> {
    if (!BaselineId.safeParse(id).success) throw new BaselineError(`"${id}" is not a baseline id.`);
    const found = await this.find(id);
    if (!found)
      throw new BaselineError(
        `There is no baseline ${id} on node ${expected.node} (${this.fileOf(id)}${this.earlier ? `, nor in this worker's ${this.earlier}` : ''}); record one first.`,
      );
    const { file, text } = found;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new BaselineError(`The baseline ${id} (${file}) is not JSON: ${(error as Error).message}`);
    }
    const parsed = Baseline.safeParse(json);
    if (!parsed.success)
      throw new BaselineError(`The baseline ${id} (${file}) does not read: ${firstIssueText(parsed.error)}.`);
    const { node, from, to } = parsed.data;
    if (node !== expected.node || from !== expected.from || to !== expected.to)
      throw new BaselineError(
        `The baseline ${id} is of the move ${from} → ${to} on node ${node}, not ${expected.from} → ${expected.to} on node ${expected.node}.`,
      );
    return parsed.data;
  }
}
