import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Lab } from '../../../test/support/lab';
import { servedWith, STAGING_ONLY } from '../../../test/support/lab-dark-edge';
import {
  applyModule,
  edgeFlipArgs,
  fleetArgs,
  seedEdges,
  seedForge,
} from '../../../test/support/lab-stories';
import { statusQuery, type RunbookStatus } from '../../../workflows/contracts';
import type { LabExperimentName } from '../options';
import type { ExperimentResult } from '../result';
import { forgedStartsOnLab } from './forged-starts';
import { ctl, labRun, type LabFault, type LabStory } from './lab-run';

const running = (step: string) => (s: RunbookStatus) =>
  s.steps.some((x) => x.name === step && x.state === 'running');

function edgeFlip(node: string, leftovers: boolean): LabStory {
  return {
    name: `edge flip on ${node}${leftovers ? ' (leftovers)' : ''}`,
    nodes: [node],
    seed: (lab) => seedEdges(lab, [node], leftovers ? [node] : []),
    start: (lab) => ['edge-flip', ...edgeFlipArgs(lab, node)],
    runbooks: [`runbook-${node}`],
    main: `runbook-${node}`,
  };
}

/** A forge whose data is large enough (400 files of 1 MiB) for a fault to land inside its copy. */
function dataMove(node: string): LabStory {
  return {
    name: `data-path move on ${node} (400 MiB)`,
    nodes: [node],
    async seed(lab: Lab) {
      await seedForge(lab, node);
      const dir = lab.onDisk(node, '/srv/forge/blobs');
      await mkdir(dir, { recursive: true });
      const block = Buffer.alloc(1024 * 1024, 7);
      for (let i = 0; i < 400; i++) await writeFile(join(dir, `blob-${i}`), block);
    },
    start: () => [
      'data-path-move',
      '--node',
      node,
      '--module',
      'forge',
      '--from',
      '/srv/forge',
      '--to',
      '/var/lib/forge',
    ],
    runbooks: [`runbook-${node}`],
    main: `runbook-${node}`,
  };
}

/** An edge flip whose successor never takes the public port: probe-public fails and the flip rolls back. */
function darkEdge(node: string): LabStory {
  return {
    ...edgeFlip(node, false),
    name: `edge flip on ${node} whose successor leaves the names dark`,
    async seed(lab: Lab) {
      await seedEdges(lab, [node]);
      await applyModule(lab, STAGING_ONLY);
    },
    ends: 'rolled-back',
  };
}

/** The whole outage a failed flip may cost with the default timings: from the predecessor's stop to its page. */
const DARK_EDGE_TARGET_MS = 10_000;
const MESHD_DOWN_MS = 30_000;

function fleet(nodes: string[]): LabStory {
  return {
    name: `fleet of ${nodes.join(', ')}, waves of 2`,
    nodes,
    seed: (lab) => seedEdges(lab, nodes),
    start: () => ['edge-flip', ...fleetArgs(nodes)],
    runbooks: nodes.map((n) => `runbook-${n}`),
    main: 'runbook-fleet-route-proxy',
  };
}

const LAB_CASES: Record<Exclude<LabExperimentName, 'forged-starts'>, () => [LabStory, LabFault]> = {
  'history-kill': () => [
    edgeFlip('novox', true),
    {
      what: 'the history service SIGKILLed while gate-apply waits, started again 5 s later',
      atWait: 'gate-apply',
      strike: () => ctl('kill', 'temporal-history'),
      heal: () => ctl('up'),
      healAfterMs: 5_000,
    },
  ],
  'postgres-restart': () => [
    edgeFlip('novox', false),
    {
      what: 'PostgreSQL restarted while the approval waits',
      atWait: 'approve-stop-predecessor',
      strike: () => ctl('restart-postgres'),
    },
  ],
  'dockerd-kill': () => [
    dataMove('forge1'),
    {
      what: "forge1's dockerd SIGKILLed during the copy, started again 3 s later",
      when: running('copy'),
      strike: () => ctl('kill', 'dockerd-forge1'),
      heal: () => ctl('up'),
      healAfterMs: 3_000,
    },
  ],
  'network-cut': () => [
    edgeFlip('edge3', false),
    {
      what: "edge3's link cut for 60 s during verify-successor (its worker cannot reach Temporal)",
      when: running('verify-successor'),
      strike: () => ctl('cut', 'edge3'),
      heal: () => ctl('mend', 'edge3'),
      healAfterMs: 60_000,
    },
  ],
  'dark-edge': () => [
    darkEdge('novox'),
    {
      what: `meshd SIGKILLed as probe-public starts (the default timings), started again ${MESHD_DOWN_MS / 1000} s later`,
      when: running('probe-public'),
      strike: () => ctl('kill', 'meshd'),
      heal: () => ctl('up'),
      healAfterMs: MESHD_DOWN_MS,
      async watch(lab, main) {
        const at = await servedWith(lab, 'novox', 'served by caddy on novox.', MESHD_DOWN_MS);
        if (at === undefined)
          return { problem: `the names stayed dark while meshd was down (${MESHD_DOWN_MS / 1000} s)` };
        const status: RunbookStatus = await main.query(statusQuery);
        const stoppedAt = Date.parse(
          status.steps.find((s) => s.name === 'stop-predecessor')?.startedAt ?? '',
        );
        if (Number.isNaN(stoppedAt)) return { problem: 'the predecessor served, but was never stopped' };
        const ms = at - stoppedAt;
        return ms > DARK_EDGE_TARGET_MS
          ? {
              ms,
              problem: `the names were dark ${ms} ms from the predecessor's stop, over ${DARK_EDGE_TARGET_MS / 1000} s`,
            }
          : { ms };
      },
    },
  ],
  'worker-kill-fleet': () => [
    fleet(['novox', 'forge1', 'edge3']),
    {
      what: 'the runbook worker SIGKILLed while the second wave runs, started again 2 s later',
      when: (s) => s.steps.filter((x) => x.state === 'running' || x.state === 'waiting').length >= 2,
      strike: () => ctl('kill', 'runbook-worker'),
      heal: () => ctl('up'),
      healAfterMs: 2_000,
    },
  ],
};

/** One lab experiment: its story run once with its fault, counted as the chaos table counts. */
export async function labExperiment(
  name: LabExperimentName,
  log: (line: string) => void,
): Promise<ExperimentResult> {
  if (name === 'forged-starts') return forgedStartsOnLab(log);
  const started = Date.now();
  const [story, fault] = LAB_CASES[name]();
  const run = await labRun(story, fault, log);
  return { experiment: `lab ${name}`, runs: [run], seconds: (Date.now() - started) / 1000 };
}
