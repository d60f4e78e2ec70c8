import type { DataPathMoveInputArg, EdgeFlipInputArg, RunbookKind } from '../workflows/contracts';
import { plain } from '../workflows/runbook/details';

export interface LaunchDescription {
  /** One line for the Temporal Web UI's list and the run's page. */
  summary: string;
  /** The run's parameters, in markdown; the kind's plan follows them in the Web UI's static details. */
  parameters: string[];
}

/** What the Web UI shows of a runbook from its start: a summary line and its parameters. */
export function launchDescription(kind: RunbookKind, input: unknown): LaunchDescription {
  if (kind === 'edge-flip') {
    const i = input as EdgeFlipInputArg;
    return {
      summary: `edge-flip on ${i.node}: ${i.predecessor} → ${i.module} (started by ${i.startedBy})`,
      parameters: [
        `**public names:** ${i.publicNames.join(', ')}`,
        `**public address:** ${i.publicAddress}`,
        `**successor address:** ${i.successorAddress}`,
        ...(i.successorMarker !== undefined ? [`**successor marker:** ${plain(i.successorMarker)}`] : []),
        ...(i.predecessorMarker !== undefined
          ? [`**predecessor marker:** ${plain(i.predecessorMarker)}`]
          : []),
        ...(i.nodeHeader !== undefined
          ? [`**node header:** ${plain(i.nodeHeader)} (its value must be ${i.node})`]
          : []),
      ],
    };
  }
  const i = input as DataPathMoveInputArg;
  return {
    summary: `data-path-move on ${i.node}: ${i.module} ${i.from} → ${i.to} (started by ${i.startedBy})`,
    parameters: [
      `**from:** ${plain(i.from)}`,
      `**to:** ${plain(i.to)}`,
      `**containers:** ${i.containers?.join(', ') || 'whatever mounts --from'}`,
    ],
  };
}
