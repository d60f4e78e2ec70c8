import { CommanderError } from 'commander';
import { quietWhenReaderLeaves, readerClosedEarly } from './closed-pipe';
import { DETACHED, EXIT, presentError } from './errors';
import { printError } from './output';
import { argsAsInvoked, invokedAsPlugin } from './plugin-name';
import { buildProgram } from './program';
import { unknownSubcommand } from './unknown-command';

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
