import { lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { scanTree } from './tree';

/** True when `dir` exists and holds something: what is there must be replaced, not written through. */
export async function hasEntries(dir: string): Promise<boolean> {
  return (await readdir(dir).catch(() => [])).length > 0;
}

/** Makes room at `path` for a new entry: whatever is there (a file, a link, a directory) goes. */
export async function clearSlot(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true });
}

/** A directory at `path`, replacing a file or link an earlier attempt (or anyone) left there. */
export async function ensureDirectory(path: string): Promise<void> {
  const existing = await lstat(path).catch(() => undefined);
  if (existing?.isDirectory()) return;
  if (existing) await clearSlot(path);
  await mkdir(path, { recursive: true });
}

/** Removes what `to` holds beyond `wanted` (relative paths), so a copy into a used target mirrors its source. */
export async function removeExtras(to: string, wanted: ReadonlySet<string>): Promise<number> {
  let removed = 0;
  let gone = '\0';
  for (const entry of await scanTree(to)) {
    if (wanted.has(entry.rel) || entry.rel.startsWith(`${gone}/`)) continue;
    await clearSlot(join(to, entry.rel));
    gone = entry.rel;
    removed++;
  }
  return removed;
}
