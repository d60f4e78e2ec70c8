import { EdgeFlipInput } from './edge-flip-input';
import { EDGE_FLIP } from './edge-flip-plan';
import { plain } from './runbook/details';
import { defineKind } from './runbook/kind';

/** An edge flip: a node's edge proxy replaced by its successor, the predecessor stopped only after approval. */
export const EDGE_FLIP_KIND = defineKind({
  kind: 'edge-flip',
  plan: EDGE_FLIP,
  input: EdgeFlipInput,
  workflowType: 'edgeFlip',
  describe: (i) => ({
    summary: `edge-flip on ${i.node}: ${i.predecessor} → ${i.module} (started by ${i.startedBy})`,
    parameters: [
      `**public names:** ${i.publicNames.join(', ')}`,
      `**public address:** ${i.publicAddress}`,
      `**successor address:** ${i.successorAddress}`,
      ...(i.successorMarker !== undefined ? [`**successor marker:** ${plain(i.successorMarker)}`] : []),
      ...(i.predecessorMarker !== undefined ? [`**predecessor marker:** ${plain(i.predecessorMarker)}`] : []),
      ...(i.nodeHeader !== undefined
        ? [`**node header:** ${plain(i.nodeHeader)} (its value must be ${i.node})`]
        : []),
    ],
  }),
  locks: ({ node, module, predecessor }) => ({
    nodes: [node],
    modules: [],
    reads: [module, predecessor],
    what: `edge-flip ${predecessor} → ${module} on ${node}`,
  }),
  fleet: { workflowType: 'edgeFlipFleet' },
});
