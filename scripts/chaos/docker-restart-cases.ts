import type { WorkflowHandle } from '@temporalio/client';
import { LABEL, type DockerEngine } from '../../docker/engine';
import { dataPathMove, edgeFlip } from '../../workflows';
import { moveInput, seedForge } from '../../test/support/data-move';
import { seedEdgeFlip } from '../../test/support/edge-flip-seed';
import type { RunbookWorld } from '../../test/support/runbook-world';
import { dataPathMoveAnswer, edgeFlipAnswer, type Answer } from './drive';
import { CHAOS_TIMINGS } from './runbook-cases';

/**
 * Where a run restarts the node's engine: as the `occurrence`th container check is scheduled (the check
 * meets the engine down), or, with no activity, while the runbook waits for its approval. `gate` is the
 * gate whose end marks the runbook moving again.
 */
export interface RestartMoment {
  label: string;
  activity?: string;
  occurrence: number;
  gate: string;
}

export interface SeededRun {
  start(): Promise<WorkflowHandle>;
  /** How the node's containers differ from an undisturbed run's end: nothing when they are the same. */
  endState(engine: DockerEngine): Promise<string[]>;
}

export interface RestartCase {
  kind: 'edge-flip' | 'data-path-move';
  answer: Answer;
  moments: RestartMoment[];
  /** The moments the quick subset runs. */
  quick: string[];
  seed(world: RunbookWorld, node: string): Promise<SeededRun>;
}

/** Long enough that the restart lands inside gate-apply's stability window, which watches the event stream. */
const TIMINGS = { ...CHAOS_TIMINGS, stabilityWindowMs: 3_000 };

/** `{container name: state}` of the node's containers on the engine. */
export async function statesOf(engine: DockerEngine, node: string): Promise<Record<string, string>> {
  const found = await engine.listByLabels({ [LABEL.node]: node });
  return Object.fromEntries(found.map((c) => [(c.Names[0] ?? '').replace(/^\//, ''), c.State]));
}

async function onlyRunning(engine: DockerEngine, node: string, expected: string[]): Promise<string[]> {
  const states = await statesOf(engine, node);
  const running = Object.keys(states).filter((name) => states[name] === 'running');
  const same =
    JSON.stringify(running.sort()) === JSON.stringify([...expected].sort()) &&
    Object.keys(states).length === expected.length;
  return same ? [] : [`end state differs from an undisturbed run: ${JSON.stringify(states)}`];
}

/** An edge flip without leftovers: three successor containers replace the predecessor. */
const EDGE_FLIP: RestartCase = {
  kind: 'edge-flip',
  answer: edgeFlipAnswer,
  moments: [
    { label: 'gate-apply', activity: 'observeModuleContainers', occurrence: 1, gate: 'gate-apply' },
    {
      label: 'verify-successor',
      activity: 'observeModuleContainers',
      occurrence: 2,
      gate: 'verify-successor',
    },
    {
      label: 'recheck-successor',
      activity: 'observeModuleContainers',
      occurrence: 3,
      gate: 'recheck-successor',
    },
    { label: 'the approval wait', occurrence: 0, gate: 'recheck-successor' },
  ],
  quick: ['gate-apply'],
  async seed(world, node) {
    const input = await seedEdgeFlip(world, {
      node,
      predecessor: `caddy-${node}`,
      successor: `proxy-${node}`,
    });
    return {
      start: () => world.start(edgeFlip, { ...input, timings: { ...input.timings, ...TIMINGS } }),
      endState: (engine) =>
        onlyRunning(
          engine,
          node,
          ['edge', 'ca', 'dns'].map((c) => `${node}.proxy-${node}.${c}`),
        ),
    };
  },
};

/**
 * The forge move: the engine restarts as gate-apply checks the container the push left on the old path,
 * or as it checks the container recreated on the new path. Either must end with the one container running
 * on the new path, as an undisturbed move does.
 */
const DATA_PATH_MOVE: RestartCase = {
  kind: 'data-path-move',
  answer: dataPathMoveAnswer,
  moments: [
    {
      label: 'gate-apply (the container on the old path)',
      activity: 'observeModuleContainers',
      occurrence: 1,
      gate: 'gate-apply',
    },
    {
      label: 'gate-apply (the container recreated on the new path)',
      activity: 'observeModuleContainers',
      occurrence: 2,
      gate: 'gate-apply',
    },
  ],
  quick: ['gate-apply (the container recreated on the new path)'],
  async seed(world, node) {
    const forge = await seedForge(world, node);
    return {
      start: () => world.start(dataPathMove, moveInput(forge, {}, TIMINGS)),
      async endState(engine) {
        const problems = await onlyRunning(engine, node, [forge.web]);
        const mounts = (await engine.inspect(forge.web))?.Mounts.map((m) => m.Source) ?? [];
        if (!mounts.includes(forge.hostTo))
          problems.push(`${forge.web} mounts ${mounts.join(', ') || 'nothing'}, not ${forge.hostTo}`);
        return problems;
      },
    };
  },
};

export const RESTART_CASES = [EDGE_FLIP, DATA_PATH_MOVE];
