import type { LocalMesh } from '../../../mesh/local';
import type { RunbookKind, Waiting } from '../../../workflows/contracts';
import { colour, printLine } from '../../output';

/** One demo: what it seeds on the local mesh, the runbook it starts, and what it shows at the end. */
export interface DemoStory {
  kind: RunbookKind;
  defaultNode: string;
  workflowType: 'edgeFlip' | 'dataPathMove';
  /** Seeds the local mesh and returns the runbook's input. */
  seed(mesh: LocalMesh, node: string, port: (preferred: number) => Promise<number>): Promise<unknown>;
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
