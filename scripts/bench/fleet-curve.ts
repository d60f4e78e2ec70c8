import type { BenchEnv } from './bench-env';
import { FLEET_WAVE_SIZE, runFleet, type FleetRun } from './fleet';
import type { FleetCurve } from './result';

/** The nodes a fleet started: every figure per node is over these (a failed fleet leaves some unstarted). */
export const nodesRun = (run: FleetRun) => run.nodes - run.histories.notStarted;
const cpuPerNode = (run: FleetRun) =>
  run.worker.cpuMs === undefined ? undefined : run.worker.cpuMs / nodesRun(run);

/** One fleet per size, smallest first, and the ratio of each one's worker CPU per node to the smallest's. */
export async function fleetCurve(
  env: BenchEnv,
  sizes: number[],
  log: (line: string) => void,
): Promise<FleetCurve> {
  const runs: FleetRun[] = [];
  for (const size of [...sizes].sort((a, b) => a - b)) {
    log(`fleet: ${size} simulated nodes, waves of ${FLEET_WAVE_SIZE}`);
    const run = await runFleet(env, size, log);
    const perNode = cpuPerNode(run);
    log(
      `fleet ${size}: ${run.phase}, ${run.approvals} approval(s), worker CPU ${perNode?.toFixed(0) ?? '-'} ms/node, ` +
        `parent ${run.histories.parent.events} events in ${run.histories.parent.runs} run(s) (at most ${run.histories.parent.maxRunEvents} in one), status ${run.statusCli.ms?.median.toFixed(0) ?? '-'} ms`,
    );
    runs.push(run);
  }
  const smallest = runs[0] && cpuPerNode(runs[0]);
  return {
    waveSize: FLEET_WAVE_SIZE,
    runs,
    cpuPerNodeVsSmallest: runs.map((run) => {
      const own = cpuPerNode(run);
      return own !== undefined && smallest ? own / smallest : undefined;
    }),
  };
}
