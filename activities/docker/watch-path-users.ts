import { z } from 'zod';
import type { DockerEngine } from '../../docker/engine';
import type { MeshPort } from '../../mesh/port';
import { AbsolutePath, Name } from '../../mesh/schemas';
import { pathUserLook, pathUsersChange } from '../../workflows/verdict/path-user-look';
import type { HostRootOf } from '../host-root';
import { parseActivityInput } from '../failures';
import { containersUsingPath } from './containers-using-path';
import { watchUntilChanged, type WatchOutcome } from './watch-loop';

export const WatchPathInput = z.strictObject({
  node: Name,
  path: AbsolutePath,
  /** What the waiting approval rests on: each user's look (`pathUserLook`) when last looked at. */
  judged: z.array(z.string().min(1).max(5_000)).max(1_000),
  /** How long to watch before answering unchanged (the runbook then watches again). */
  forMs: z.number().int().min(1).max(86_400_000),
});
export type WatchPathInput = z.infer<typeof WatchPathInput>;

/** A container's creation or removal adds or takes away a user of the path; a rename changes its name. */
const USER_EVENTS = ['create', 'destroy', 'rename'];

/**
 * Watches the containers that use a path on the node while an approval to remove it waits: any
 * container's lifecycle event wakes it (whoever made the container), every wake reads the path's users
 * again, and it answers as soon as they differ from those the approval was asked on.
 */
export async function watchPathUsers(
  deps: { mesh: MeshPort; dockerFor(node: string): DockerEngine; hostRootOf: HostRootOf },
  input: WatchPathInput,
): Promise<WatchOutcome> {
  const { node, path, judged, forMs } = parseActivityInput('watchPathUsers', WatchPathInput, input);
  const changeNow = async () =>
    pathUsersChange(judged, (await containersUsingPath(deps, { node, path })).map(pathUserLook));
  const watching = `users of ${path} on ${node}`;
  return watchUntilChanged(deps.dockerFor(node), { event: USER_EVENTS }, changeNow, forMs, watching);
}
