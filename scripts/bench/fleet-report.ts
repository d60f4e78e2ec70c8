import type { BenchResult } from './result';
import type { FleetRun } from './fleet';
import { cpuPerNode, nodesRun } from './fleet-curve';
import { table } from './table';

const n0 = (value: number | undefined) =>
  value === undefined ? '-' : Math.round(value).toLocaleString('en-US');
const s1 = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const kb = (bytes: number | undefined) => (bytes === undefined ? '-' : `${(bytes / 1024).toFixed(1)} KB`);
const x2 = (value: number | undefined) => (value === undefined ? '-' : `${value.toFixed(2)}x`);
const perNode = (run: FleetRun, value: number | undefined) =>
  value === undefined ? undefined : value / nodesRun(run);
const ratioOf = (lab: number | undefined, dev: number | undefined) =>
  lab === undefined || dev === undefined || dev === 0 ? undefined : lab / dev;

/** At each size run on both servers: the lab's figure over the dev server's, measured in the same bench run. */
function labOverDev(runs: FleetRun[]): string[] {
  const rows = [...new Set(runs.map((r) => r.nodes))].flatMap((size) => {
    const dev = runs.find((r) => r.nodes === size && r.server === 'dev server');
    const lab = runs.find((r) => r.nodes === size && r.server === 'lab');
    if (!dev || !lab) return [];
    const growth = (run: FleetRun) =>
      run.database && perNode(run, run.database.afterBytes - run.database.beforeBytes);
    return [
      [
        String(size),
        x2(ratioOf(lab.wallMs, dev.wallMs)),
        x2(ratioOf(cpuPerNode(lab), cpuPerNode(dev))),
        x2(ratioOf(perNode(lab, lab.temporalCpuMs), perNode(dev, dev.temporalCpuMs))),
        x2(ratioOf(lab.histories.parent.bytes, dev.histories.parent.bytes)),
        x2(ratioOf(growth(lab), growth(dev))),
        x2(ratioOf(lab.statusCli.ms?.median, dev.statusCli.ms?.median)),
        x2(ratioOf(lab.watch.shownAfterMs, dev.watch.shownAfterMs)),
      ],
    ];
  });
  if (rows.length === 0) return [];
  return [
    '',
    ...table(
      [
        'fleet nodes',
        'lab/dev wall',
        'worker CPU/node',
        'Temporal CPU/node',
        'parent bytes',
        'database growth/node',
        'status CLI',
        'watch',
      ],
      rows,
    ),
  ];
}

/** The fleet's curve as two tables (time and history, then cost), and what was and was not simulated. */
export function fleetLines(result: BenchResult): string[] {
  const curve = result.fleet;
  if (!curve) return [];
  const history = curve.runs.map((run) => {
    const { parent, perNode } = run.histories;
    return [
      String(run.nodes),
      run.server,
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
      run.server,
      n0(run.worker.cpuMs),
      n0(cpuPerNode(run)),
      x2(curve.cpuPerNodeVsSmallest[i]),
      n0(perNode(run, run.temporalCpuMs)),
      n0(perNode(run, run.postgresCpuMs)),
      `${Math.round(run.worker.idleRssMb)} -> ${Math.round(run.worker.peakRssMb)} MB`,
      run.database?.measured ?? '-',
      kb(growth),
      kb(perNode(run, growth)),
      kb(perNode(run, run.database?.postgres?.walBytes)),
    ];
  });
  return [
    '',
    ...table(
      [
        'fleet nodes',
        'server',
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
      ...(run.failure ? [`  fleet ${run.nodes} on the ${run.server} failed: ${run.failure}`] : []),
      ...(run.histories.notStarted > 0
        ? [`  fleet ${run.nodes} on the ${run.server}: ${run.histories.notStarted} node(s) never started`]
        : []),
      ...(run.terminatedLeftovers > 0
        ? [
            `  fleet ${run.nodes} on the ${run.server}: ${run.terminatedLeftovers} workflow(s) left running, terminated`,
          ]
        : []),
    ]),
    '',
    ...table(
      [
        'fleet nodes',
        'server',
        'worker CPU ms',
        'per node',
        'per node vs smallest',
        'Temporal CPU ms/node',
        'PostgreSQL CPU ms/node',
        'worker RSS idle -> peak',
        'database',
        'growth',
        'per node',
        'WAL/node',
      ],
      cost,
    ),
    ...labOverDev(curve.runs),
    `fleet: one edgeFlipFleet runbook per size, approvals canary-then-waves, the canary alone then waves of ${curve.waveSize}; every node clean; the operator (another identity than the starter) answers each wait where the fleet says to: the canary's approval on the canary, approve-waves on the fleet. node columns: medians over the nodes' own runbooks; parent: all runs of the fleet's id, max: its largest run (the history bound continues it as new past half of FLEET_HISTORY_BOUND); per node: per node the fleet started.`,
    "simulated below mesh (scripts/bench/simulated-node/): the mesh controller, each node agent (applies and reports at once), its Docker engine (in memory) and its edge (HTTP on its own 127.77.x.y address). Real: the workflows, every activity, one node worker per node (all in the one fleet worker process, each on its own node in production), the dev server (SQLite in a file) and, with --lab, the lab's Temporal Server (PostgreSQL).",
    "status CLI: `mesh runbook status` of the completed fleet, whole process, median of 3; watch: `mesh runbook watch` of the fleet started with it, from the fleet's first wait (the canary's approval) beginning to watch printing it.",
    "worker CPU: the fleet worker process from the start call to the close, node workers and simulated nodes included (on this machine on both servers); Temporal CPU: the dev server, or the lab's four Temporal services, over the same window; PostgreSQL CPU: the lab's postmaster and backends. per node vs smallest: over the same server's smallest fleet.",
    "database: the dev server's SQLite file with its WAL (size after the close less before the start); the lab's Temporal databases on disk (pg_database_size) read 11 s after the close, and WAL/node: the PostgreSQL WAL written over the same window (pg-written.ts). lab/dev: the lab's figure over the dev server's at the same size, in the same bench run, the two taking turns.",
  ];
}
