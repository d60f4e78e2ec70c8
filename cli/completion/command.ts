import { Argument, Option, type Command } from 'commander';
import { addEveryVerb } from '../groups';
import { printLine } from '../output';
import type * as Runbooks from './runbooks';
import { completionScript, namesToComplete, SHELLS, type Shell } from './script';

/** Temporal's reads and the runbooks' contracts (zod): loaded only when the script asks for runbooks. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
const runbooks = () => require('./runbooks') as typeof Runbooks;

const LOADING = `
Load it in this shell:     source <(mesh completion bash)     (zsh: source <(mesh completion zsh), after compinit)
Load it in every new one:  put that line in ~/.bashrc (zsh: in ~/.zshrc, after compinit)
Where \`mesh\` on the PATH is another program (your mesh controller), the script completes mesh-runbook only.
Runbook ids and nodes are asked of Temporal as they are completed (TEMPORAL_ADDRESS, MESH_TASK_QUEUE, or
--config on the command line), for at most a second and a half (MESH_COMPLETION_WAIT_MS sets another bound, in
milliseconds); when it does not answer, none are offered.`;

/** `mesh completion bash|zsh`: the completion script, from the commands' own definitions. */
export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description(
      'print the completion script for bash or zsh: verbs, options, runbook kinds, and the runbook ids and nodes Temporal knows',
    )
    .addArgument(new Argument('<shell>', 'the shell the script is for').choices(SHELLS))
    .addOption(
      new Option(
        '--runbooks',
        'the ids and nodes of the runbooks on the task queue, as the script asks them',
      ).hideHelp(),
    )
    .addHelpText('after', LOADING)
    .action(async (shell: Shell, options: { runbooks?: boolean }) => {
      if (options.runbooks) return (await runbooks().runbookCompletions()).forEach((line) => printLine(line));
      addEveryVerb(program);
      process.stdout.write(completionScript(shell, program, namesToComplete(process.env.PATH)));
    });
}
