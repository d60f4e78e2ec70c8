import { resolve } from 'node:path';

/** A taker gave up its place: nobody in this process took and released the lock for the whole timeout. */
export class LineStalledError extends Error {
  override readonly name = 'LineStalledError';
}

interface Line {
  tail: Promise<void>;
  /** When a taker of this process last released the lock it held. */
  progressAt: number;
  takers: number;
}

const lines = new Map<string, Line>();

/**
 * Takers of one lock file in this process wait their turn in the order they asked, and only the first in
 * line polls the file: fifty activities of one worker no longer race each other for it every 50 ms, and
 * none times out while the lock keeps changing hands. A taker gives up only when no taker of this process
 * released the lock for `timeoutMs` since it joined: a wait bounded by progress, not by its place in line.
 * Resolves, at the taker's turn, to the function that ends it (`released`: it held the lock and let go).
 */
export async function takeTurn(file: string, timeoutMs: number): Promise<(released: boolean) => void> {
  const key = resolve(file);
  const line = lines.get(key) ?? { tail: Promise.resolve(), progressAt: 0, takers: 0 };
  lines.set(key, line);
  line.takers += 1;
  const before = line.tail;
  let passOn!: () => void;
  const mine = new Promise<void>((done) => (passOn = done));
  line.tail = before.then(() => mine);
  const end = (released: boolean) => {
    if (released) line.progressAt = Date.now();
    passOn();
    if (--line.takers === 0 && lines.get(key) === line) lines.delete(key);
  };

  const joinedAt = Date.now();
  const turn = before.then(() => true);
  for (;;) {
    const left = timeoutMs - (Date.now() - Math.max(joinedAt, line.progressAt));
    if (left <= 0) {
      void before.then(() => end(false));
      throw new LineStalledError(`no taker of ${file} in this process let go of it for ${timeoutMs} ms`);
    }
    if (await raceTimer(turn, left)) return end;
  }
}

/** `promise`'s value, or false after `ms` (the timer does not outlive the race). */
async function raceTimer(promise: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((done) => (timer = setTimeout(() => done(false), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
