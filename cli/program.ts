import { Command } from 'commander';
import { registerCompletion } from './completion/command';
import { registerConfigCommands } from './config-command';
import { addEveryVerb, registerGroups } from './groups';
import { meshVersion } from './version';

/** The `mesh` command with the verbs of the group `args` names (all of a group's verbs when it names none). */
export function buildProgram(args: readonly string[], asPlugin: boolean): Command {
  const program = new Command('mesh')
    .description('mesh runbook: durable, evidence-checking cutovers for a mesh fleet')
    .version(meshVersion(), '-V, --version', 'print the version')
    .showSuggestionAfterError(true)
    .exitOverride()
    // Errors are printed once, by presentError; help asked for by mistake still goes to stderr.
    .configureOutput({ outputError: () => undefined });
  registerConfigCommands(program);
  registerCompletion(program);
  registerGroups(program, args, asPlugin);
  return program;
}

/** The `mesh` command with every verb of every group: what the CLI reference and completion describe. */
export function buildWholeProgram(): Command {
  const program = buildProgram([], false);
  addEveryVerb(program);
  return program;
}
