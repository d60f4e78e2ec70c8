import assert from 'node:assert/strict';
import {
  chmod,
  mkdir,
  open,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { copyTreeWithResume, type CatchUpResult } from '../../activities/data';
import { NODE_BASELINES } from '../../activities/data/baseline-store';
import { LocalMesh } from '../../mesh/local';
import { FAILURE } from '../../workflows/contracts';
import { dataActivitiesFor } from '../support/data-activities';
import { Scratch } from '../support/scratch';

const NOTHING: CatchUpResult = { copied: [], removed: [], conflicts: [], kept: [] };

describe('catching B up with A after the switch: B is the truth, only A-only changes come over', () => {
  const scratch = new Scratch();
  const node = 'n1';
  let data: ReturnType<typeof dataActivitiesFor>;
  let hostRoot = '';
  let stateDir = '';
  let moves = 0;

  /** A fresh A (config, notes, x, y, logs/old.log, a symlink), copied to B, verified, baseline recorded. */
  async function copiedMove() {
    moves++;
    const move = { node, from: `/srv/app${moves}`, to: `/var/lib/app${moves}` };
    const [a, b] = [join(hostRoot, move.from), join(hostRoot, move.to)];
    await mkdir(join(a, 'logs'), { recursive: true });
    for (const name of ['config', 'notes', 'x', 'y', 'logs/old.log'])
      await writeFile(join(a, name), `${name} v1`);
    await symlink('config', join(a, 'current'));
    await data.copyTree(move);
    assert.equal((await data.verifyTree(move)).mismatchCount, 0);
    const { baseline, files } = await data.recordBaseline(move);
    assert.equal(files, 5);
    const catchUp = (keepNewOnConflict: boolean) =>
      data.catchUpCopy({ ...move, baseline, keepNewOnConflict });
    const read = (root: string, name: string) => readFile(join(root, name), 'utf8');
    return { move, a, b, baseline, catchUp, read };
  }

  before(async () => {
    hostRoot = await scratch.dir('mesh-data-catch-up-');
    stateDir = join(hostRoot, 'worker-state');
    const mesh = new LocalMesh({ stateDir: join(hostRoot, 'state') });
    await mesh.createNode(node, { adopted: false, hostRoot });
    data = dataActivitiesFor(mesh, hostRoot);
  });
  after(() => scratch.cleanup());

  it('a write on B after the switch survives a catch-up', async () => {
    const { a, b, catchUp, read } = await copiedMove();
    await writeFile(join(b, 'new-on-b'), 'written by the service on B');
    await writeFile(join(b, 'notes'), 'notes edited on B');
    await writeFile(join(a, 'config'), 'config v2, written on A by a container left there');
    assert.deepEqual(await catchUp(false), { ...NOTHING, copied: ['config'] });
    assert.equal(await read(b, 'new-on-b'), 'written by the service on B');
    assert.equal(await read(b, 'notes'), 'notes edited on B');
    assert.equal(await read(b, 'config'), 'config v2, written on A by a container left there');
    const micros = async (root: string) =>
      (await stat(join(root, 'config'), { bigint: true })).mtimeNs / 1000n;
    assert.equal(await micros(b), await micros(a), "A's time, to the microsecond");
    assert.deepEqual(
      (await readdir(b)).sort(),
      ['config', 'current', 'logs', 'new-on-b', 'notes', 'x', 'y'],
      'nothing deleted on B',
    );
  });

  it("a copy over B once its baseline exists is refused: the mirroring copy would overwrite and delete B's new writes", async () => {
    const { move, a, b, read } = await copiedMove();
    await writeFile(join(b, 'new-on-b'), 'written by the service on B');
    await writeFile(join(b, 'notes'), 'notes edited on B');
    await assert.rejects(data.copyTree(move), (error: unknown) => {
      assert.ok(error instanceof ApplicationFailure);
      assert.deepEqual([error.type, error.nonRetryable], [FAILURE.targetIsTruth, true]);
      assert.match(
        error.message,
        new RegExp(`^The target path ${move.to} on node ${node} already is the truth`),
      );
      return true;
    });
    assert.equal(await read(b, 'notes'), 'notes edited on B');
    assert.equal(await read(b, 'new-on-b'), 'written by the service on B');
    // What the copy itself does to a B that holds anything (the hazard the refusal keeps away):
    await copyTreeWithResume(a, b);
    assert.equal(await read(b, 'notes'), 'notes v1', "A's old notes overwrote B's");
    await assert.rejects(readFile(join(b, 'new-on-b')), "B's new file was deleted");
  });

  it('a baseline whose B was emptied since (an earlier move, reverted) is forgotten by the next copy, and recopies work', async () => {
    const { move, b, baseline, read } = await copiedMove();
    await rm(b, { recursive: true });
    await data.copyTree(move);
    await assert.rejects(readFile(join(hostRoot, NODE_BASELINES, `${baseline}.json`)), 'forgotten');
    await data.copyTree(move);
    assert.equal(await read(b, 'notes'), 'notes v1');
  });

  it('a file changed on both sides stops the catch-up with its path and changes nothing', async () => {
    const { a, b, catchUp, read } = await copiedMove();
    await writeFile(join(a, 'notes'), 'notes edited on A');
    await writeFile(join(b, 'notes'), 'notes edited on B');
    await writeFile(join(a, 'config'), 'config v2');
    await rm(join(a, 'x'));
    assert.deepEqual(await catchUp(false), { ...NOTHING, conflicts: ['notes'] });
    assert.equal(await read(b, 'notes'), 'notes edited on B');
    assert.equal(await read(b, 'config'), 'config v1', 'not even the change without conflict');
    assert.equal(await read(b, 'x'), 'x v1');
    assert.deepEqual(await catchUp(false), { ...NOTHING, conflicts: ['notes'] }, 'the baseline stayed');
  });

  it("keepNewOnConflict keeps B's version and brings the rest", async () => {
    const { a, b, catchUp, read } = await copiedMove();
    await writeFile(join(a, 'notes'), 'notes edited on A');
    await writeFile(join(b, 'notes'), 'notes edited on B');
    await writeFile(join(a, 'config'), 'config v2');
    await writeFile(join(a, 'same'), 'identical');
    await writeFile(join(b, 'same'), 'identical');
    assert.deepEqual(await catchUp(true), {
      copied: ['config'],
      removed: [],
      conflicts: ['notes'],
      kept: ['notes'],
    });
    assert.equal(await read(b, 'notes'), 'notes edited on B');
    assert.equal(await read(b, 'config'), 'config v2');
    assert.deepEqual(await catchUp(false), NOTHING, 'kept paths are settled: the baseline moved on');
  });

  it('a file deleted on A is deleted on B only if B never changed it', async () => {
    const { a, b, catchUp, read } = await copiedMove();
    await rm(join(a, 'x'));
    await rm(join(a, 'y'));
    await writeFile(join(b, 'y'), 'y edited on B');
    assert.deepEqual(await catchUp(false), { ...NOTHING, conflicts: ['y'] });
    assert.equal(await read(b, 'x'), 'x v1');
    assert.deepEqual(await catchUp(true), { copied: [], removed: ['x'], conflicts: ['y'], kept: ['y'] });
    await assert.rejects(readFile(join(b, 'x')));
    assert.equal(await read(b, 'y'), 'y edited on B');
  });

  it('a directory removed on A stays on B when B wrote into it; what B did not touch in it goes', async () => {
    const { a, b, catchUp, read } = await copiedMove();
    await rm(join(a, 'logs'), { recursive: true });
    await writeFile(join(b, 'logs/new.log'), 'B logs on');
    assert.deepEqual(await catchUp(true), {
      copied: [],
      removed: ['logs/old.log'],
      conflicts: ['logs'],
      kept: ['logs'],
    });
    assert.deepEqual(await readdir(join(b, 'logs')), ['new.log']);
    assert.equal(await read(b, 'logs/new.log'), 'B logs on');
  });

  it("brings A's new directories, symlinks and modes, and removes a directory B never touched", async () => {
    const { move, a, b, catchUp, read } = await copiedMove();
    await mkdir(join(a, 'cache/deep'), { recursive: true });
    await writeFile(join(a, 'cache/deep/blob'), 'blob');
    await rm(join(a, 'current'));
    await symlink('notes', join(a, 'current'));
    await chmod(join(a, 'x'), 0o600);
    await rm(join(a, 'logs'), { recursive: true });
    assert.deepEqual(await catchUp(false), {
      ...NOTHING,
      copied: ['cache', 'cache/deep', 'cache/deep/blob', 'current', 'x'],
      removed: ['logs'],
    });
    assert.equal(await read(b, 'cache/deep/blob'), 'blob');
    assert.equal(await readlink(join(b, 'current')), 'notes');
    assert.equal((await stat(join(b, 'x'))).mode & 0o777, 0o600);
    await assert.rejects(stat(join(b, 'logs')));
    assert.deepEqual((await data.verifyTree(move)).differences, [], 'B is A again');
  });

  it('a second catch-up brings only later changes', async () => {
    const { a, b, catchUp, read } = await copiedMove();
    await writeFile(join(a, 'config'), 'config v2');
    assert.deepEqual(await catchUp(false), { ...NOTHING, copied: ['config'] });
    await writeFile(join(b, 'config'), 'config v3, edited on B after the catch-up');
    await writeFile(join(a, 'notes'), 'notes v2');
    assert.deepEqual(await catchUp(false), { ...NOTHING, copied: ['notes'] });
    assert.equal(await read(b, 'config'), 'config v3, edited on B after the catch-up');
    assert.equal(await read(b, 'notes'), 'notes v2');
  });

  it("a file A gained and one A removed leave B's directories with A's times, so B verifies against A", async () => {
    const { move, a, catchUp } = await copiedMove();
    await writeFile(join(a, 'logs', 'new.log'), 'a log line written on A during the wait');
    await rm(join(a, 'y'));
    assert.deepEqual(await catchUp(false), { ...NOTHING, copied: ['logs/new.log'], removed: ['y'] });
    const verified = await data.verifyTree(move);
    assert.deepEqual(verified.differences, [], 'no directory differs by its mtime');
  });

  it("records a baseline idempotently, as one whole file on the node's own disk", async () => {
    const { move, baseline } = await copiedMove();
    assert.deepEqual(await data.recordBaseline(move), { baseline, files: 5 });
    const onNode = join(hostRoot, NODE_BASELINES);
    const files = await readdir(onNode);
    assert.ok(files.includes(`${baseline}.json`), files.join(', '));
    assert.deepEqual(
      files.filter((name) => !name.endsWith('.json')),
      [],
      'no temporary file left',
    );
    const file = JSON.parse(await readFile(join(onNode, `${baseline}.json`), 'utf8'));
    assert.deepEqual([file.node, file.from, file.to], [node, move.from, move.to]);
    assert.match(file.a.config.mtimeNs, /^\d+$/);
    assert.match(file.a.config.ctimeNs, /^\d+$/);
    assert.match(file.a.config.ino, /^\d+$/);
    await assert.rejects(readdir(join(stateDir, 'baselines')), "nothing in the worker's own state dir");
  });

  it('a baseline a worker kept in its own state dir before (no ctime, no inode) is still read there', async () => {
    const { a, b, baseline, catchUp, read } = await copiedMove();
    const onNode = join(hostRoot, NODE_BASELINES, `${baseline}.json`);
    const recorded = JSON.parse(await readFile(onNode, 'utf8'));
    for (const side of [recorded.a, recorded.b])
      for (const entry of Object.values(side) as { ctimeNs?: string; ino?: string }[]) {
        delete entry.ctimeNs;
        delete entry.ino;
      }
    await mkdir(join(stateDir, 'baselines'), { recursive: true });
    await writeFile(join(stateDir, 'baselines', `${baseline}.json`), JSON.stringify(recorded));
    await rm(onNode);
    await writeFile(join(a, 'config'), 'config v2, written on A');
    await writeFile(join(b, 'notes'), 'notes edited on B');
    assert.deepEqual(await catchUp(false), { ...NOTHING, copied: ['config'] });
    assert.equal(await read(b, 'config'), 'config v2, written on A');
    assert.equal(await read(b, 'notes'), 'notes edited on B');
    assert.deepEqual(
      (await readdir(join(hostRoot, NODE_BASELINES))).includes(`${baseline}.json`),
      true,
      'moved forward onto the node',
    );
  });

  it('a file rewritten in place on A with its size and mtime put back is still brought over (ctime)', async () => {
    const { a, b, catchUp, read } = await copiedMove();
    // A whole second, which utimes sets exactly: the baseline then holds the very mtime put back below.
    const when = new Date('2024-01-02T03:04:05Z');
    await utimes(join(a, 'x'), when, when);
    assert.deepEqual(await catchUp(false), { ...NOTHING, copied: ['x'] });
    const file = await open(join(a, 'x'), 'r+');
    await file.write('X v2', 0); // `x v1` and `X v2`: the same four bytes
    await file.close();
    await utimes(join(a, 'x'), when, when);
    const after = await stat(join(a, 'x'), { bigint: true });
    assert.deepEqual(
      [after.size, after.mtimeNs],
      [4n, BigInt(when.getTime()) * 1_000_000n],
      'size and mtime as before',
    );
    assert.deepEqual(await catchUp(false), { ...NOTHING, copied: ['x'] });
    assert.equal(await read(b, 'x'), 'X v2');
  });

  it('refuses a baseline of another move for good', async () => {
    const first = await copiedMove();
    const second = await copiedMove();
    await assert.rejects(
      data.catchUpCopy({ ...second.move, baseline: first.baseline, keepNewOnConflict: false }),
      (error: unknown) => {
        assert.ok(error instanceof ApplicationFailure);
        assert.deepEqual([error.type, error.nonRetryable], [FAILURE.invalidInput, true]);
        assert.match(error.message, new RegExp(`is of the move ${first.move.from} → ${first.move.to}`));
        return true;
      },
    );
  });

  it('heartbeats, and stops when the activity is cancelled (abort) without touching B', async () => {
    const { move, a, b, baseline, read } = await copiedMove();
    await writeFile(join(a, 'config'), 'config v2');
    const beats: unknown[] = [];
    const env = new MockActivityEnvironment();
    env.on('heartbeat', (details: unknown) => beats.push(details));
    const running = env.run(data.catchUpCopy, { ...move, baseline, keepNewOnConflict: false });
    env.cancel('CANCELLED');
    await assert.rejects(running, (error) => error instanceof CancelledFailure);
    assert.equal(await read(b, 'config'), 'config v1');
    assert.ok(beats.length > 0, 'it heartbeated');
  });
});
