import { Command, CommanderError } from 'commander';
import { quietWhenReaderLeaves, readerClosedEarly } from './closed-pipe';
import { registerConfigCommands } from './config-command';
import { DETACHED, EXIT, presentError } from './errors';
import { printError } from './output';
import { registerGroups } from './groups';
import { argsAsInvoked, invokedAsPlugin } from './plugin-name';
import { unknownSubcommand } from './unknown-command';
import { meshVersion } from './version';

function buildProgram(args: readonly string[], asPlugin: boolean): Command {
  const program = new Command('mesh')
    .description('mesh runbook: durable, evidence-checking cutovers for a mesh fleet')
    .version(meshVersion(), '-V, --version', 'print the version')
    .showSuggestionAfterError(true)
    .exitOverride()
    // Errors are printed once, by presentError; help asked for by mistake still goes to stderr.
    .configureOutput({ outputError: () => undefined });
  registerConfigCommands(program);
  registerGroups(program, args, asPlugin);
  return program;
}

/** Help the operator asked for is exit 0; help shown because a command is missing (`mesh runbook`) is 2. */
function helpExit(error: CommanderError): number | undefined {
  if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT.ok;
  if (error.code === 'commander.help') return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  return undefined;
}

async function main(argv: string[]): Promise<number> {
  try {
    const invokedAs = argv[1] ?? '';
    const program = buildProgram(argv.slice(2), invokedAsPlugin(invokedAs));
    const args = argsAsInvoked(program, invokedAs, argv.slice(2));
    const unknown = unknownSubcommand(program, args);
    if (unknown) throw unknown;
    await program.parseAsync(args, { from: 'user' });
    return process.exitCode === undefined ? 0 : Number(process.exitCode);
  } catch (error) {
    const help = error instanceof CommanderError ? helpExit(error) : undefined;
    if (help !== undefined) return help;
    const presented = presentError(error);
    printError(presented.message, presented.suggestion);
    return presented.exitCode;
  }
}

/** Following stopped because its reader left, not because the operator detached: nothing went wrong. */
const exitCode = (code: number) => (code === DETACHED && readerClosedEarly() ? EXIT.ok : code);

quietWhenReaderLeaves();
void main(process.argv).then((code) => process.exit(exitCode(code)));
