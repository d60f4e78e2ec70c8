import type { Placement } from './declarations';

export interface PlannedFile {
  file: string;
  placement: Placement;
  expectedMs: number;
}

/**
 * Runs every file once: `jobs` lanes take the dev-server files (the longest expected first), one lane the
 * lab's files (one story at a time: they share the lab's hosts), both at once; then each file that must
 * run alone, with nothing beside it. `run` gets the lane's number (0..jobs for the lab's lane).
 */
export async function runInLanes<T>(
  files: PlannedFile[],
  jobs: number,
  run: (file: PlannedFile, lane: number) => Promise<T>,
): Promise<T[]> {
  const longestFirst = (a: PlannedFile, b: PlannedFile) => b.expectedMs - a.expectedMs;
  const devServer = files
    .filter((f) => f.placement.kind === 'shared' || f.placement.kind === 'own-server')
    .sort(longestFirst);
  const lab = files.filter((f) => f.placement.kind === 'lab').sort(longestFirst);
  const alone = files.filter((f) => f.placement.kind === 'alone');
  const outcomes: T[] = [];
  const lane = async (queue: PlannedFile[], index: number) => {
    for (let next = queue.shift(); next; next = queue.shift()) outcomes.push(await run(next, index));
  };
  await Promise.all([
    ...Array.from({ length: Math.min(jobs, devServer.length) }, (_, i) => lane(devServer, i)),
    lane(lab, jobs),
  ]);
  await lane(alone, 0);
  return outcomes;
}
