import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** A process's CPU times from /proc/<pid>/stat, in clock ticks, and when it started (to tell a restart). */
export interface ProcCpu {
  pid: number;
  /** The command's name (field 2, without its parentheses). */
  comm: string;
  ppid: number;
  /** Its own threads, in user and kernel mode. */
  utime: number;
  stime: number;
  /** Its children that it has waited for (they ended), in user and kernel mode. */
  cutime: number;
  cstime: number;
  /** Clock ticks after boot: a pid reused by another process starts at another time. */
  starttime: number;
}

/** CPU time used between two readings of one process, in ms. */
export interface CpuUsed {
  ownMs: number;
  childrenMs: number;
}

/**
 * Parses one /proc/<pid>/stat line (proc(5)): field 2, the command, is in parentheses and may itself hold
 * spaces and parentheses, so the numbered fields are counted from the last `)`.
 */
export function parseProcStat(line: string): ProcCpu {
  const close = line.lastIndexOf(')');
  const pid = Number(line.slice(0, line.indexOf('(')).trim());
  // After `) ` comes field 3 (state): field n is at index n - 3.
  const fields =
    close < 0
      ? []
      : line
          .slice(close + 1)
          .trim()
          .split(/\s+/);
  const field = (n: number) => {
    const value = Number(fields[n - 3]);
    if (!Number.isInteger(value) || value < 0)
      throw new Error(`not a /proc/<pid>/stat line (field ${n}): ${line.slice(0, 80)}`);
    return value;
  };
  if (!Number.isInteger(pid) || pid <= 0)
    throw new Error(`not a /proc/<pid>/stat line: ${line.slice(0, 80)}`);
  return {
    pid,
    comm: line.slice(line.indexOf('(') + 1, close),
    ppid: field(4),
    utime: field(14),
    stime: field(15),
    cutime: field(16),
    cstime: field(17),
    starttime: field(22),
  };
}

/** The CPU a process used from `before` to `after`; undefined when they are not the same process. */
export function cpuUsed(before: ProcCpu, after: ProcCpu, ticksPerSecond: number): CpuUsed | undefined {
  if (before.pid !== after.pid || before.starttime !== after.starttime) return undefined;
  const ms = (ticks: number) => (ticks * 1000) / ticksPerSecond;
  return {
    ownMs: ms(after.utime + after.stime - before.utime - before.stime),
    childrenMs: ms(after.cutime + after.cstime - before.cutime - before.cstime),
  };
}

/** The sum of several processes' CPU used; undefined when any of them is unknown (ended, restarted). */
export function sumCpu(used: readonly (CpuUsed | undefined)[]): CpuUsed | undefined {
  if (used.some((u) => u === undefined)) return undefined;
  return (used as CpuUsed[]).reduce(
    (a, b) => ({ ownMs: a.ownMs + b.ownMs, childrenMs: a.childrenMs + b.childrenMs }),
    {
      ownMs: 0,
      childrenMs: 0,
    },
  );
}

/** The process's CPU times now; undefined when it is gone. */
export function readProcCpu(pid: number): ProcCpu | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * A process and its children as one (PostgreSQL's postmaster and its backends): `utime`/`stime` are its own
 * and its live children's, `cutime`/`cstime` those of its children that ended. A child that ends between two
 * readings moves from the first to the second, so the total of `cpuUsed` stays right; its parts do not.
 */
export function treeCpu(root: ProcCpu, children: readonly ProcCpu[]): ProcCpu {
  const live = children.filter((child) => child.ppid === root.pid);
  const sum = (key: 'utime' | 'stime') => live.reduce((total, child) => total + child[key], root[key]);
  return { ...root, utime: sum('utime'), stime: sum('stime') };
}

/** Every process now. */
function everyProcess(): ProcCpu[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => readProcCpu(Number(entry)) ?? []);
}

/** The child of `parent` running `comm` (the first found), e.g. the dev server the SDK started. */
export function childNamed(parent: number, comm: string): number | undefined {
  return everyProcess().find((p) => p.ppid === parent && p.comm === comm)?.pid;
}

let ticks: number | undefined;

/** The kernel's clock ticks per second (USER_HZ), the unit of /proc/<pid>/stat's times. */
export function clockTicksPerSecond(): number {
  ticks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  if (!Number.isInteger(ticks) || ticks <= 0) throw new Error(`getconf CLK_TCK said ${ticks}`);
  return ticks;
}

/** Named processes' CPU times now (absent: gone). */
export type CpuReading = Record<string, ProcCpu | undefined>;

/** Each pid's CPU times now; `tree`: each with its live children (see treeCpu), from one pass over /proc. */
function readEach(pids: number[], tree: boolean): (ProcCpu | undefined)[] {
  if (!tree) return pids.map(readProcCpu);
  const all = everyProcess();
  return pids.map((pid) => {
    const root = all.find((p) => p.pid === pid);
    return root && treeCpu(root, all);
  });
}

/** Named processes' CPU times now; `tree`: each with its live children. */
export function readCpu(pids: Record<string, number>, tree = false): CpuReading {
  const names = Object.keys(pids);
  const read = readEach(Object.values(pids), tree);
  return Object.fromEntries(names.map((name, i) => [name, read[i]]));
}

/** Each named process's CPU used from `before` to now; undefined for one that ended or restarted between. */
export function cpuSince(before: CpuReading, tree = false): Record<string, CpuUsed | undefined> {
  const hz = clockTicksPerSecond();
  const entries = Object.entries(before);
  const now = readEach(
    entries.map(([, then]) => then?.pid ?? 0),
    tree,
  );
  return Object.fromEntries(
    entries.map(([name, then], i) => {
      const after = now[i];
      return [name, then && after ? cpuUsed(then, after, hz) : undefined];
    }),
  );
}
