import type { Command } from 'commander';

/** The width the reference's help is wrapped to, whatever terminal generates it. */
const HELP_WIDTH = 100;

/** The command that writes docs/cli.md; the test that finds it stale names it. */
export const REGENERATE = 'npm run docs:cli';

function everyCommand(command: Command): Command[] {
  return [command, ...command.commands.flatMap(everyCommand)];
}

function pathOf(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** A heading's anchor as GitHub makes it: lower case, spaces to dashes, punctuation dropped. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');
}

/** Text in a table cell: `|` escaped; `<` and `>` too outside code spans, where markdown would read a tag. */
function tableCell(text: string): string {
  return text
    .replace(/\|/g, '\\|')
    .split(/(`[^`]*`)/)
    .map((part) => (part.startsWith('`') ? part : part.replace(/</g, '&lt;').replace(/>/g, '&gt;')))
    .join('');
}

/** What `<command> --help` prints, texts added before and after included, without colours. */
function helpOf(command: Command): string {
  let text = '';
  const write = (chunk: string) => (text += chunk);
  command.configureOutput({
    writeOut: write,
    writeErr: write,
    getOutHelpWidth: () => HELP_WIDTH,
    getErrHelpWidth: () => HELP_WIDTH,
    getOutHasColors: () => false,
    getErrHasColors: () => false,
  });
  command.outputHelp();
  return text.trimEnd();
}

/**
 * docs/cli.md: a table of every command of `mesh`, then each command's help as `--help` prints it, made from
 * the commands' own definitions (descriptions, arguments, options, the texts added to their help).
 */
export function cliReference(program: Command): string {
  const commands = everyCommand(program);
  const row = (command: Command) => {
    const path = pathOf(command);
    const summary = tableCell(command.description().split('\n')[0] ?? '');
    return `| [\`${path}\`](#${anchorOf(path)}) | ${summary} |`;
  };
  return [
    '# The `mesh` command line',
    '',
    'For operators and scripts: every command of `mesh`, its arguments, options and exit codes, as',
    '`mesh <command> --help` prints them. Generated from the commands’ own definitions by',
    `\`${REGENERATE}\`; edit the commands, not this page (a unit test fails while it is stale).`,
    '',
    '| command | what it does |',
    '| --- | --- |',
    ...commands.map(row),
    '',
    ...commands.flatMap((command) => [`## ${pathOf(command)}`, '', '```text', helpOf(command), '```', '']),
  ].join('\n');
}
