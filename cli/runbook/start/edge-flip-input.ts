import { z } from 'zod';
import { firstIssue } from '../../../base/zod-issue';
import { EdgeFlipInput, type EdgeFlipInputArg } from '../../../workflows/contracts';
import { UsageError } from '../../errors';

/** The `start edge-flip` (and `plan edge-flip`) options as commander hands them over (strings, repeated --public-name collected). */
export const EdgeFlipOptions = z.object({
  node: z.string(),
  module: z.string(),
  predecessor: z.string(),
  publicName: z.array(z.string()).min(1),
  publicAddress: z.string(),
  successorAddress: z.string(),
  successorMarker: z.string(),
  predecessorMarker: z.string(),
  nodeHeader: z.string().optional(),
  expectStatus: z.string().optional(),
});
export type EdgeFlipOptions = z.infer<typeof EdgeFlipOptions>;

/** Which option sets each input field, so a bad field is reported as the option the operator typed. */
const FLAG: Partial<Record<keyof EdgeFlipInputArg, string>> = {
  node: '--node',
  module: '--module',
  predecessor: '--predecessor',
  publicNames: '--public-name',
  publicAddress: '--public-address',
  successorAddress: '--successor-address',
  successorMarker: '--successor-marker',
  predecessorMarker: '--predecessor-marker',
  nodeHeader: '--node-header',
  expectStatus: '--expect-status',
  startedBy: '--as',
};

const SUGGESTION: Partial<Record<keyof EdgeFlipInputArg, string>> = {
  node: 'Names use lower-case letters, digits and dashes, e.g. --node novox.',
  module: 'Names use lower-case letters, digits and dashes, e.g. --module route-proxy.',
  predecessor: 'Names use lower-case letters, digits and dashes, e.g. --predecessor caddy.',
  publicNames:
    'Give each host name with its own option, e.g. --public-name example.org --public-name www.example.org.',
  publicAddress: 'Give scheme, host and port, e.g. --public-address http://127.0.0.1:80.',
  successorAddress: 'Give scheme, host and port, e.g. --successor-address http://127.0.0.1:8081.',
  expectStatus: 'Give an HTTP status code, e.g. --expect-status 200.',
  successorMarker:
    "Give text only the successor's answers contain, e.g. --successor-marker 'served by route-proxy'.",
  predecessorMarker:
    "Give text only the predecessor's answers contain, e.g. --predecessor-marker 'served by caddy'.",
  nodeHeader:
    'Give the name of the answer header that carries the node name, e.g. --node-header X-Served-By.',
};

/** `{node}` in an address or a marker stands for the node's name: `http://{node}.example.net:80`. */
export function forNode(text: string, node: string): string {
  return text.replaceAll('{node}', node);
}

/** The edge-flip workflow input from the options, validated by the workflow's own schema before anything starts. */
export function edgeFlipInputFrom(options: EdgeFlipOptions, startedBy: string): EdgeFlipInput {
  const raw: EdgeFlipInputArg = {
    node: options.node,
    module: options.module,
    predecessor: options.predecessor,
    publicNames: options.publicName,
    publicAddress: forNode(options.publicAddress, options.node),
    successorAddress: forNode(options.successorAddress, options.node),
    successorMarker: forNode(options.successorMarker, options.node),
    predecessorMarker: forNode(options.predecessorMarker, options.node),
    startedBy,
    ...(options.nodeHeader !== undefined ? { nodeHeader: options.nodeHeader } : {}),
    ...(options.expectStatus !== undefined ? { expectStatus: Number(options.expectStatus) } : {}),
  };
  const parsed = EdgeFlipInput.safeParse(raw);
  if (!parsed.success) {
    const { path, problem } = firstIssue(parsed.error);
    const field = path[0] as keyof EdgeFlipInputArg | undefined;
    const flag = (field && FLAG[field]) ?? 'the input';
    const given =
      field === 'expectStatus'
        ? options.expectStatus
        : path.reduce<unknown>(
            (value, key) => (value as Record<PropertyKey, unknown> | undefined)?.[key],
            raw,
          );
    const shown = typeof given === 'string' || typeof given === 'number' ? ` "${given}"` : '';
    throw new UsageError(
      `${flag}${shown} is invalid: ${problem}.`,
      (field && SUGGESTION[field]) ?? 'Add --help to the command to see what it accepts.',
    );
  }
  const { successorMarker, predecessorMarker } = parsed.data;
  if (successorMarker !== undefined && successorMarker === predecessorMarker)
    throw new UsageError(
      `--successor-marker and --predecessor-marker are both "${successorMarker}"; the probes could not tell the two edges apart.`,
      "Give text only each edge's own answers contain, e.g. --successor-marker 'served by route-proxy' --predecessor-marker 'served by caddy'.",
    );
  if (parsed.data.predecessor === parsed.data.module) {
    throw new UsageError(
      `--predecessor and --module are both ${parsed.data.module}; an edge flip replaces one module with another.`,
      'Name the edge module serving now with --predecessor and its successor with --module.',
    );
  }
  return parsed.data;
}
