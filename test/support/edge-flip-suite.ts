import { after, afterEach, before } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import type { ActivityDeps } from '../../activities';
import { dockerResolver } from '../../docker/endpoints';
import { LocalWorld } from './local-world';
import { seededEdgeFlipInput, startEdgeFlip } from './edge-flip-start';
import { terminateOpen } from './runbooks';
import { startTestWorker, type TestWorker } from './temporal';

export interface EdgeFlipSuite {
  world: LocalWorld;
  worker: TestWorker;
  /**
   * Seeds a node (`leftovers`: the incident, so the runbook waits at gate-apply for take) and starts an
   * edge flip there; the suite terminates it after the test if it is still open.
   */
  start(options?: {
    leftovers?: boolean;
    startedBy?: string;
  }): Promise<{ node: string; handle: WorkflowHandle }>;
}

/**
 * Registers before/after hooks for a describe block: a LocalWorld, a worker with `extra` deps (a function is
 * called in the hook, after earlier hooks ran), cleanup.
 */
export function edgeFlipSuite(
  extra: Partial<ActivityDeps> | (() => Partial<ActivityDeps>) = {},
): EdgeFlipSuite {
  const handles: WorkflowHandle[] = [];
  const suite = {
    async start(options: { leftovers?: boolean; startedBy?: string } = {}) {
      const node = suite.world.nodeName();
      const input = await seededEdgeFlipInput(suite.world.mesh, node, options);
      const handle = await startEdgeFlip(suite.worker.client, suite.worker.taskQueue, input);
      handles.push(handle);
      return { node, handle };
    },
  } as unknown as EdgeFlipSuite;

  before(async () => {
    suite.world = await LocalWorld.create();
    suite.worker = await startTestWorker({
      mesh: suite.world.mesh,
      dockerFor: dockerResolver({}),
      ...(typeof extra === 'function' ? extra() : extra),
    });
  });
  afterEach(() => terminateOpen(handles));
  after(async () => {
    await terminateOpen(handles);
    await suite.worker?.stop();
    await suite.world?.cleanup();
  });
  return suite;
}
