import type { BenchResult } from './result';
import { nodesRun } from './fleet-curve';
import { table } from './table';

const n0 = (value: number | undefined) =>
  value === undefined ? '-' : Math.round(value).toLocaleString('en-US');
const s1 = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const kb = (bytes: number | undefined) => (bytes === undefined ? '-' : `${(bytes / 1024).toFixed(1)} KB`);
const x2 = (value: number | undefined) => (value === undefined ? '-' : `${value.toFixed(2)}x`);

/** The fleet's curve as two tables (time and history, then cost), and what was and was not simulated. */
export function fleetLines(result: BenchResult): string[] {
  const curve = result.fleet;
  if (!curve) return [];
  const history = curve.runs.map((run) => {
    const { parent, perNode } = run.histories;
    return [
      String(run.nodes),
      run.phase,
      s1(run.wallMs),
      String(run.approvals),
      String(run.decisions.length),
      n0(perNode.workflowTasks?.median),
      n0(perNode.events?.median),
      String(parent.runs),
      n0(parent.events),
      n0(parent.maxRunEvents),
      kb(parent.bytes),
      kb(parent.maxRunBytes),
      n0(parent.events / nodesRun(run)),
      n0(run.statusCli.ms?.median),
      n0(run.watch.shownAfterMs),
    ];
  });
  const cost = curve.runs.map((run, i) => {
    const growth = run.database && run.database.afterBytes - run.database.beforeBytes;
    return [
      String(run.nodes),
      n0(run.worker.cpuMs),
      n0(run.worker.cpuMs === undefined ? undefined : run.worker.cpuMs / nodesRun(run)),
      x2(curve.cpuPerNodeVsSmallest[i]),
      n0(run.temporalCpuMs === undefined ? undefined : run.temporalCpuMs / nodesRun(run)),
      `${Math.round(run.worker.idleRssMb)} -> ${Math.round(run.worker.peakRssMb)} MB`,
      kb(growth),
      kb(growth === undefined ? undefined : growth / nodesRun(run)),
    ];
  });
  return [
    '',
    ...table(
      [
        'fleet nodes',
        'phase',
        'wall',
        'approvals',
        'decisions',
        'node wf tasks',
        'node events',
        'parent runs',
        'parent events',
        'max events/run',
        'parent bytes',
        'max bytes/run',
        'parent events/node',
        'status CLI ms',
        'watch shows wait ms',
      ],
      history,
    ),
    ...curve.runs.flatMap((run) => [
      ...(run.failure ? [`  fleet ${run.nodes} failed: ${run.failure}`] : []),
      ...(run.histories.notStarted > 0
        ? [`  fleet ${run.nodes}: ${run.histories.notStarted} node(s) never started`]
        : []),
    ]),
    '',
    ...table(
      [
        'fleet nodes',
        'worker CPU ms',
        'per node',
        'per node vs smallest',
        'Temporal CPU ms/node',
        'worker RSS idle -> peak',
        'database growth',
        'per node',
      ],
      cost,
    ),
    `fleet: one edgeFlipFleet runbook per size, approvals canary-then-waves, the canary alone then waves of ${curve.waveSize}; every node clean; the operator (another identity than the starter) answers each wait where the fleet says to: the canary's approval on the canary, approve-waves on the fleet. node columns: medians over the nodes' own runbooks; parent: all runs of the fleet's id, max: its largest run (the history bound continues it as new past half of FLEET_HISTORY_BOUND); per node: per node the fleet started.`,
    'simulated below mesh (scripts/bench/simulated-node/): the mesh controller, each node agent (applies and reports at once), its Docker engine (in memory) and its edge (HTTP on its own 127.77.x.y address). Real: the workflows, every activity, one node worker per node (all in the one fleet worker process, each on its own node in production), the dev server (SQLite in a file).',
    "status CLI: `mesh runbook status` of the completed fleet, whole process, median of 3; watch: `mesh runbook watch` of the fleet started with it, from the fleet's first wait (the canary's approval) beginning to watch printing it.",
    'worker CPU: the fleet worker process from the start call to the close, node workers and simulated nodes included; Temporal CPU: the dev server over the same window.',
  ];
}
