import { rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { AbsolutePath, Name } from '../../mesh/schemas';
import type { HostRootOf } from '../host-root';
import { parseActivityInput } from '../failures';
import { moveRefusalsAreFinal } from './failures';
import { locatePath } from './locate';

/**
 * Whether two nodes' directories are one (a network file system, or one directory mounted on both): one
 * node's worker leaves a mark in its directory, the other node's worker looks for it in its own. Only the
 * nodes' own disks say so; nothing a runbook's input claims.
 */
const MarkInput = z.strictObject({
  node: Name,
  path: AbsolutePath,
  /** Names the mark: unique to one look, so no other look's mark is mistaken for it. */
  token: z.uuid(),
});
export type MarkInput = z.infer<typeof MarkInput>;

const markName = (token: string) => `.mesh-runbook-shared-${token}`;

async function markAt(deps: { hostRootOf: HostRootOf }, activity: string, input: MarkInput) {
  const { node, path, token } = parseActivityInput(activity, MarkInput, input);
  const at = await locatePath(deps.hostRootOf, node, 'data dir', path);
  const isDirectory = (await stat(at.host).catch(() => undefined))?.isDirectory() ?? false;
  return { isDirectory, mark: join(at.host, markName(token)), node };
}

export function createSharedPathActivities(deps: { hostRootOf: HostRootOf }) {
  return {
    /** Leaves the look's mark in the node's directory; false (nothing left) when it is no directory there. */
    markPath: (input: MarkInput): Promise<boolean> =>
      moveRefusalsAreFinal(async () => {
        const { isDirectory, mark, node } = await markAt(deps, 'markPath', input);
        if (!isDirectory) return false;
        await writeFile(mark, `left by the runbook worker of ${node}: is this directory shared?\n`);
        return true;
      }),

    /** Whether the node's directory holds the look's mark: it is the same directory as the marked one. */
    pathHasMark: (input: MarkInput): Promise<boolean> =>
      moveRefusalsAreFinal(async () => {
        const { isDirectory, mark } = await markAt(deps, 'pathHasMark', input);
        return isDirectory && (await stat(mark).catch(() => undefined)) !== undefined;
      }),

    /** Removes the look's mark; none there is success. */
    unmarkPath: (input: MarkInput): Promise<void> =>
      moveRefusalsAreFinal(async () => {
        const { mark } = await markAt(deps, 'unmarkPath', input);
        await rm(mark, { force: true });
      }),
  };
}
