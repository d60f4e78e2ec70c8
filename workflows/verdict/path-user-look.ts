/** A container with a bind mount at or under a path, as containersUsingPath reports it. */
export interface PathUserSeen {
  name: string;
  id: string;
  source: string;
}

/**
 * One line per mount of a path's user: which container (its id) and the mount's source. Its state is left
 * out: a container uses the path whether it runs or not, so only a user that comes or goes is a change.
 */
export function pathUserLook(u: PathUserSeen): string {
  return `container ${u.name} (${u.id.slice(0, 12)}) mounts ${u.source}`;
}

/** What differs between two looks at a path's users, in one clause; undefined when nothing does. */
export function pathUsersChange(before: readonly string[], now: readonly string[]): string | undefined {
  const was = new Set(before);
  const is = new Set(now);
  const added = now.find((look) => !was.has(look));
  if (added !== undefined) return `now ${added}`;
  const gone = before.find((look) => !is.has(look));
  return gone === undefined ? undefined : `no longer ${gone}`;
}
