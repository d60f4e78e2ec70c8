import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parsePgReading, parseLsn, pgWritten, walBytesBetween } from '../../scripts/bench/pg-written';
import {
  clockTicksPerSecond,
  cpuUsed,
  parseProcStat,
  readProcCpu,
  sumCpu,
  treeCpu,
} from '../../scripts/bench/proc-cpu';

/** A real line of the lab's runbook worker, and the same process 2.5 s of CPU later. */
const WORKER =
  '27509 (node) S 1 27509 27509 0 -1 4194304 443442 1608034 0 0 1724 468 2935 818 20 0 16 0 3399032 ' +
  '12919226368 59582 18446744073709551615 11988992 39846385 140733512467552 0 0 0 0 16781312 17922 0 0 0 17 1 0 0 0 0 0';
const LATER = WORKER.replace('1724 468 2935 818', '1904 538 2955 823');

describe('bench --lab: CPU time from /proc/<pid>/stat', () => {
  it('reads utime, stime, the waited-for children and the start time', () => {
    assert.deepEqual(parseProcStat(WORKER), {
      pid: 27509,
      comm: 'node',
      ppid: 1,
      utime: 1724,
      stime: 468,
      cutime: 2935,
      cstime: 818,
      starttime: 3399032,
    });
  });

  it('counts the fields from the last parenthesis: a command may hold spaces and parentheses', () => {
    const odd = WORKER.replace('(node)', '(a) b (c d)');
    assert.equal(parseProcStat(odd).comm, 'a) b (c d');
    assert.equal(parseProcStat(odd).utime, 1724);
    assert.equal(parseProcStat(odd).starttime, 3399032);
  });

  it('refuses what is not a stat line', () => {
    assert.throws(() => parseProcStat(''), /not a \/proc/);
    assert.throws(() => parseProcStat('12 (node) S 1 2 3'), /field 14/);
  });

  it('turns ticks into ms, own threads apart from waited-for children', () => {
    assert.deepEqual(cpuUsed(parseProcStat(WORKER), parseProcStat(LATER), 100), {
      ownMs: 2_500,
      childrenMs: 250,
    });
  });

  it('knows nothing of a process that restarted under the same pid between the readings', () => {
    const restarted = LATER.replace(' 3399032 ', ' 3500000 ');
    assert.equal(cpuUsed(parseProcStat(WORKER), parseProcStat(restarted), 100), undefined);
    assert.equal(sumCpu([{ ownMs: 1, childrenMs: 0 }, undefined]), undefined);
    assert.deepEqual(
      sumCpu([
        { ownMs: 1, childrenMs: 2 },
        { ownMs: 3, childrenMs: 4 },
      ]),
      { ownMs: 4, childrenMs: 6 },
    );
  });

  it("counts a process tree's time right when a child ends between the readings (PostgreSQL's backends)", () => {
    const proc = (pid: number, ppid: number, utime: number, cutime = 0) => ({
      pid,
      comm: 'postgres',
      ppid,
      utime,
      stime: 0,
      cutime,
      cstime: 0,
      starttime: pid,
    });
    const before = treeCpu(proc(10, 1, 100), [proc(11, 10, 50), proc(12, 10, 20), proc(99, 1, 1_000)]);
    // 11 ended after 30 more ticks (its whole 80 now in the root's cutime), 13 started and used 5.
    const after = treeCpu(proc(10, 1, 110, 80), [proc(12, 10, 30), proc(13, 10, 5), proc(99, 1, 2_000)]);
    const used = cpuUsed(before, after, 100);
    assert.equal((used?.ownMs ?? 0) + (used?.childrenMs ?? 0), 550);
  });

  it('reads this very process, whose CPU time grows while it works', () => {
    const before = readProcCpu(process.pid);
    assert.equal(before?.pid, process.pid);
    assert.ok(before);
    // Busy until the kernel has counted a tick of it (a loaded machine may take a while to schedule us).
    let used = cpuUsed(before, before, clockTicksPerSecond());
    for (const deadline = Date.now() + 30_000; Date.now() < deadline && (used?.ownMs ?? 0) === 0;) {
      const now = readProcCpu(process.pid);
      used = now && cpuUsed(before, now, clockTicksPerSecond());
    }
    assert.ok(used && used.ownMs > 0, 'no CPU time counted in 30 s of work');
    assert.equal(readProcCpu(2 ** 30), undefined, 'no such process');
  });
});

describe('bench --lab: what PostgreSQL wrote', () => {
  it('reads a pg_lsn as a byte position, across the 32-bit boundary', () => {
    assert.equal(parseLsn('0/40E10B0'), 0x40e10b0n);
    assert.equal(parseLsn('16/B374D848'), (0x16n << 32n) + 0xb374d848n);
    assert.equal(walBytesBetween('0/FFFFFFF0', '1/10'), 0x20);
    assert.equal(walBytesBetween('0/40E10B0', '0/40E10B0'), 0);
    assert.throws(() => walBytesBetween('1/0', '0/FFFFFFFF'), /went back/);
    assert.throws(() => parseLsn('40E10B0'), /not a WAL position/);
  });

  const before =
    '0/40E10B0,temporal,10421,14494,5465,56320\n0/40E10B0,temporal_visibility,3028,1550,697,1773\n';
  const after =
    '0/4286170,temporal,10621,14694,5485,56420\n0/4286170,temporal_visibility,3031,1560,697,1776\n';
  const dbs = ['temporal', 'temporal_visibility'];

  it('takes the WAL bytes and each database rows and commits between two readings', () => {
    assert.deepEqual(pgWritten(parsePgReading(before, dbs), parsePgReading(after, dbs)), {
      walBytes: 0x4286170 - 0x40e10b0,
      rows: 200 + 200 + 20 + 3 + 10,
      commits: 103,
      databases: {
        temporal: { inserted: 200, updated: 200, deleted: 20, commits: 100 },
        temporal_visibility: { inserted: 3, updated: 10, deleted: 0, commits: 3 },
      },
    });
  });

  it('refuses a reading without a database, and counters that went back', () => {
    assert.throws(() => parsePgReading(before.split('\n')[0] ?? '', dbs), /no temporal_visibility/);
    assert.throws(() => parsePgReading('0/1,temporal,x,1,1,1', ['temporal']), /not a line/);
    assert.throws(
      () =>
        pgWritten(
          parsePgReading(after, dbs),
          parsePgReading(before.replace(/0\/40E10B0/g, '0/5000000'), dbs),
        ),
      /statistics of temporal went back/,
    );
  });
});
