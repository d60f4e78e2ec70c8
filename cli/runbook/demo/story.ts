import type { Client } from '@temporalio/client';
import type { LocalMesh } from '../../../mesh/local';
import type { RunbookKind, Waiting } from '../../../workflows/contracts';
import { colour, printLine } from '../../output';

/** One incident the demo replays: what it seeds on the local mesh, and the runbook it starts there. */
export interface DemoStory {
  kind: RunbookKind;
  defaultNode: string;
  /** Seeds the local mesh; `port` picks a free port, the preferred one if it can. */
  seed(mesh: LocalMesh, node: string, port: (preferred: number) => Promise<number>): Promise<DemoRunbook>;
  /** The runbook again, from the input the demo recorded when it started it (`--resume`). */
  reopen(recordedInput: unknown): DemoRunbook;
}

/** A seeded demo runbook: its input, how it starts, what the demo shows at a wait and at the end. */
export interface DemoRunbook {
  node: string;
  input: unknown;
  /** Starts the runbook by its workflow function. */
  start(client: Client, taskQueue: string): Promise<unknown>;
  /** Shows something at a wait before it is decided (e.g. that a build changes nothing now). */
  atWait?(mesh: LocalMesh, waiting: Waiting): Promise<void>;
  /** Shows the end state from outside the runbook. */
  finale(mesh: LocalMesh): Promise<void>;
}

/** What `--yes` answers: the way forward the demo is about; anything else is a real problem: abort. */
export function automaticAnswer(waiting: Waiting): string {
  const forward = ['take', 'recreate', 'approve', 'remove'].find((action) =>
    waiting.actions.includes(action),
  );
  return forward ?? 'abort';
}

export function say(line: string): void {
  printLine(colour.cyan(`demo: ${line}`));
}

/** The demo's worker lists no signers: its decisions are unsigned, and it says so once it started. */
export const UNSIGNED_HERE =
  "decisions here are unsigned: the demo's worker lists no signers (a production config requires signed approvals; see docs/production.md, Identity and signers)";
