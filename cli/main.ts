import { Command } from 'commander';
import { registerConfigCommands } from './config-command';
import { presentError } from './errors';
import { printError } from './output';
import { registerLocalCommands } from './local';
import { registerRunbookCommands } from './runbook';

function buildProgram(): Command {
  const program = new Command('mesh')
    .description('mesh runbook: durable, evidence-checking cutovers for a mesh fleet')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ writeErr: () => undefined });
  registerConfigCommands(program);
  registerLocalCommands(program);
  registerRunbookCommands(program);
  return program;
}

async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return process.exitCode === undefined ? 0 : Number(process.exitCode);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help')
      return 0;
    const presented = presentError(error);
    printError(presented.message, presented.suggestion);
    return presented.exitCode;
  }
}

void main(process.argv).then((code) => process.exit(code));
