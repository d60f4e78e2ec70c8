import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireLock, LockTimeoutError } from '../../mesh/local/lock';

/**
 * Ports 20000-31999, below the kernel's ephemeral ports (32768 up) and above the lab's (15432-19093), in
 * blocks a harness claims for its whole run (a lock file held by its process, broken when it died), so two
 * harnesses on one machine, or two files of one harness, never pick the same port.
 */
const FIRST = 20_000;
const BLOCK = 1_500;
const BLOCKS = 8;
const LOCKS = join(tmpdir(), 'mesh-test-ports');

export interface PortBlock {
  /** The `<first>-<last>` range of share `index` of `shares` equal parts of the block. */
  share(index: number, shares: number): string;
  release(): Promise<void>;
}

/** The ports this harness shares out: its file's range when it runs inside a test file, else a block of its own. */
export async function claimPortBlock(): Promise<PortBlock> {
  const given = /^(\d+)-(\d+)$/.exec(process.env.MESH_TEST_PORTS ?? '');
  if (given) return blockOf(Number(given[1]), Number(given[2]) - Number(given[1]) + 1, async () => undefined);
  for (let block = 0; block < BLOCKS; block++) {
    // One try: a block held by a live harness is passed over at once.
    const release = await acquireLock(join(LOCKS, `block-${block}.lock`), { timeoutMs: 1 }).catch(
      (error: unknown) => {
        if (error instanceof LockTimeoutError) return undefined;
        throw error;
      },
    );
    if (!release) continue;
    return blockOf(FIRST + block * BLOCK, BLOCK, release);
  }
  throw new Error(`all ${BLOCKS} port blocks are claimed (${LOCKS}): ${BLOCKS} harnesses run already`);
}

function blockOf(first: number, size: number, release: () => Promise<void>): PortBlock {
  return {
    share(index, shares) {
      const part = Math.floor(size / shares);
      return `${first + index * part}-${first + (index + 1) * part - 1}`;
    },
    release,
  };
}
