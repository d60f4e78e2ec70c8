import { closeSync, openSync, readSync } from 'node:fs';

/**
 * What a test file needs of the harness, declared on its first line with the reason:
 *   // harness: alone: <why it cannot run beside other files>
 *   // harness: own dev server: <why sharing the harness's dev server breaks its isolation>
 * Files under test/lab/ run one at a time on the lab, beside the dev-server files.
 */
export type Placement =
  { kind: 'shared' } | { kind: 'own-server'; why: string } | { kind: 'alone'; why: string } | { kind: 'lab' };

const DECLARATION = /^\/\/ harness: (alone|own dev server): (\S.*)$/;

export function placementOf(file: string): Placement {
  const line = firstLine(file);
  const declared = DECLARATION.exec(line);
  if (declared?.[1] === 'alone') return { kind: 'alone', why: declared[2] ?? '' };
  if (declared?.[1] === 'own dev server') return { kind: 'own-server', why: declared[2] ?? '' };
  if (line.startsWith('// harness:'))
    throw new Error(
      `${file} declares "${line}": write "// harness: alone: <why>" or "// harness: own dev server: <why>".`,
    );
  return /(^|\/)test\/lab\//.test(file) ? { kind: 'lab' } : { kind: 'shared' };
}

function firstLine(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(400);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, read).toString('utf8').split('\n')[0] ?? '';
  } finally {
    closeSync(fd);
  }
}
