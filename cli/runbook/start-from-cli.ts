import type { RunbookKind } from '../../workflows/contracts';
import { workflowTypeOf } from './kinds';
import { load } from './lazy';

/** Starts a runbook from its `start` command: one summary line and the parameters for the Web UI. */
export async function startFromCli<I extends { node: string; module: string; startedBy: string }>(
  kind: RunbookKind,
  input: I,
  shown: { what: string; parameters: string[] },
  options: { detach: boolean; json: boolean },
): Promise<void> {
  const { withClient } = load.client();
  const { startRunbook } = load.launch();
  await withClient(
    (rb) =>
      startRunbook(rb, {
        kind,
        workflowType: workflowTypeOf(kind),
        node: input.node,
        module: input.module,
        input,
        summary: `${kind} on ${input.node}: ${shown.what} (started by ${input.startedBy})`,
        details: shown.parameters.join('\n\n'),
        detach: options.detach,
        json: options.json,
      }),
    { operator: input.startedBy },
  );
}
