import { randomBytes } from 'node:crypto';
import type { BenchEnv } from './bench-env';
import { FLEET_WAVE_SIZE, runFleet, type FleetRun } from './fleet';
import type { FleetSite } from './fleet-site';
import type { FleetCurve } from './result';

/** The nodes a fleet started: every figure per node is over these (a failed fleet leaves some unstarted). */
export const nodesRun = (run: FleetRun) => run.nodes - run.histories.notStarted;
export const cpuPerNode = (run: FleetRun) =>
  run.worker.cpuMs === undefined ? undefined : run.worker.cpuMs / nodesRun(run);

/**
 * One fleet per size and site, smallest first, the sites taking turns at each size (so both see the machine
 * under about the same load), and the ratio of each one's worker CPU per node to its own site's smallest.
 */
export async function fleetCurve(
  env: BenchEnv,
  sites: FleetSite[],
  sizes: number[],
  log: (line: string) => void,
): Promise<FleetCurve> {
  // One tag for every fleet of this run: the same names (and so the same bytes) on every site.
  const tag = randomBytes(2).toString('hex');
  const runs: FleetRun[] = [];
  for (const size of [...sizes].sort((a, b) => a - b))
    for (const site of sites) {
      log(`fleet: ${size} simulated nodes on the ${site.server}, waves of ${FLEET_WAVE_SIZE}`);
      const run = await runFleet(env, site, size, tag, log);
      const perNode = cpuPerNode(run);
      log(
        `fleet ${size} on the ${site.server}: ${run.phase}, ${run.approvals} approval(s), worker CPU ${perNode?.toFixed(0) ?? '-'} ms/node, ` +
          `parent ${run.histories.parent.events} events in ${run.histories.parent.runs} run(s) (at most ${run.histories.parent.maxRunEvents} in one), status ${run.statusCli.ms?.median.toFixed(0) ?? '-'} ms`,
      );
      runs.push(run);
    }
  const smallest = (run: FleetRun) => {
    const first = runs.find((r) => r.server === run.server);
    return first && cpuPerNode(first);
  };
  return {
    waveSize: FLEET_WAVE_SIZE,
    runs,
    cpuPerNodeVsSmallest: runs.map((run) => {
      const own = cpuPerNode(run);
      const base = smallest(run);
      return own !== undefined && base ? own / base : undefined;
    }),
  };
}
