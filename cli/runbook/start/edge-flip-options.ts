import type { Command } from 'commander';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * The options that describe an edge flip, the same for `start edge-flip` and `plan edge-flip` (and for a
 * fleet, where `{node}` stands for each node's name in the addresses and markers).
 */
export function addEdgeFlipOptions(command: Command): Command {
  return command
    .requiredOption('--module <module>', 'the successor edge module')
    .requiredOption('--predecessor <module>', 'the edge module serving the public names now')
    .requiredOption('--public-name <host>', 'a public host name the edge serves (repeat for each)', collect)
    .requiredOption(
      '--public-address <url>',
      'where the node serves its public names, e.g. http://10.0.0.5:80',
    )
    .requiredOption('--successor-address <url>', 'where the successor answers before the flip')
    .requiredOption(
      '--successor-marker <text>',
      "text only the successor's answers contain; every probe of the successor wants it",
    )
    .requiredOption(
      '--predecessor-marker <text>',
      "text only the predecessor's answers contain; preflight and the rollback's probe want it",
    )
    .option(
      '--node-header <name>',
      'an answer header whose value is the name of the node that answered (e.g. X-Served-By); every probe then fails an answer from another node',
    )
    .option('--expect-status <code>', 'the HTTP status every public name answers with (default 200)');
}
