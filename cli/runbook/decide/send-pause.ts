import {
  pauseUpdate,
  resumeUpdate,
  type Paused,
  type PauseRequest,
  type ResumeRequest,
} from '../../../workflows/contracts';
import type { RunbookClient } from '../client';
import { runningRunbook, sendUpdate } from './decision';

/** Sends `pause`; the runbook refuses it (exit 2) when it is already paused or undoing its work. */
export async function sendPause(rb: RunbookClient, id: string, request: PauseRequest): Promise<Paused> {
  const { handle, described } = await runningRunbook(rb, id, 'pause', 'a pause');
  return sendUpdate(rb, { id, taskQueue: described.taskQueue, verb: 'pause' }, whereItIs(id), () =>
    handle.executeUpdate(pauseUpdate, { args: [request] }),
  );
}

/** Sends `resume`; refused (exit 2) when the runbook is not paused. */
export async function sendResume(rb: RunbookClient, id: string, request: ResumeRequest): Promise<Paused> {
  const { handle, described } = await runningRunbook(rb, id, 'resume', 'a resume');
  return sendUpdate(rb, { id, taskQueue: described.taskQueue, verb: 'resume' }, whereItIs(id), () =>
    handle.executeUpdate(resumeUpdate, { args: [request] }),
  );
}

const whereItIs = (id: string) => `See where ${id} is with \`mesh runbook status ${id}\`.`;
