import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Command } from 'commander';
import { addLocalVerbs } from '../../cli/local';
import { buildProgram } from '../../cli/program';

const README = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');

/** `mesh runbook` with every verb, as the CLI registers them. */
function runbookCommand(): Command {
  const program = buildProgram(['runbook'], false);
  return program.commands.find((c) => c.name() === 'runbook') ?? assert.fail('no runbook group');
}

/** The whole `mesh` command as the CLI builds it: its own options, every `mesh local` and `mesh runbook` verb. */
function meshCommand(): Command {
  const program = buildProgram(['runbook'], false);
  addLocalVerbs(program.commands.find((c) => c.name() === 'local') ?? assert.fail('no local group'));
  return program;
}

function everyCommand(command: Command): Command[] {
  return [command, ...command.commands.flatMap(everyCommand)];
}

/** Flags the README shows for other programs than `mesh`, and which program takes them. */
const OTHER_PROGRAMS: Record<string, string> = {
  '--noEmit': 'tsc',
  '--namespace': 'temporal operator',
  '--name': 'temporal operator',
  '--type': 'temporal operator',
  '--tlsverify': 'dockerd',
  '--quick': 'npm run chaos, npm run bench',
  '--only': 'npm run chaos, npm run bench',
  '--kill-at': 'npm run chaos',
  '--rounds': 'npm run bench',
  '--scale': 'npm run bench',
  '--fleet': 'npm run bench',
  '--lab': 'npm run chaos, npm run bench',
  '--purge': 'scripts/lab/down.sh',
  '--server': 'lab/bin/meshctl',
  '--network': 'docker run',
  '--net': 'nsenter',
  '--jobs': 'scripts/run-tests.ts, scripts/test',
  '--under-load': 'scripts/run-tests.ts, scripts/test',
};

const sub = (command: Command, name: string) => command.commands.find((c) => c.name() === name);
const longFlags = (command: Command) => new Set(['--help', ...command.options.flatMap((o) => o.long ?? [])]);

/**
 * Every command line the README shows for `mesh runbook <verb>`: in code blocks (continuation lines
 * joined, comments cut) and in inline code, with where it is.
 */
function readmeCommands(): { line: number; words: string[] }[] {
  const found: { line: number; words: string[] }[] = [];
  const lines = README.split('\n');
  let fenced = false;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? '';
    if (text.startsWith('```')) {
      fenced = !fenced;
      continue;
    }
    const spans = fenced ? [text] : [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
    for (const span of spans) {
      let command = span.replace(/^\$ /, '');
      const at = command.search(/(^|\s)(mesh|\.\/bin\/mesh\.js) runbook /);
      if (at < 0) continue;
      command = command.slice(at);
      for (let next = i + 1; fenced && /\\\s*$/.test(command) && next < lines.length; next++)
        command = command.replace(/\\\s*$/, ' ') + (lines[next] ?? '');
      command = command.replace(/\s#\s.*$/, '');
      found.push({ line: i + 1, words: command.trim().split(/\s+/) });
    }
  }
  return found;
}

describe('the README shows the CLI as it is', () => {
  it('every --flag the README shows for a `mesh runbook <verb>` exists on that verb', () => {
    const runbook = runbookCommand();
    const commands = readmeCommands();
    assert.ok(commands.length > 20, `found only ${commands.length} command lines in the README`);
    const unknown: string[] = [];
    for (const { line, words } of commands) {
      const verbAt = words.indexOf('runbook') + 1;
      if ((words[verbAt] ?? '<').startsWith('<')) continue; // `mesh runbook <verb>`: any verb
      const verb = sub(runbook, words[verbAt] ?? '');
      if (!verb) {
        unknown.push(`README.md:${line}: no verb ${words[verbAt] ?? '(none)'}`);
        continue;
      }
      const kind = sub(verb, words[verbAt + 1] ?? '');
      const command = kind ?? verb;
      const flags = longFlags(command);
      for (const word of words.slice(verbAt + 1).filter((w) => !w.startsWith('<'))) {
        const flag = /^\[?(--[a-z][a-z-]*)/.exec(word)?.[1];
        if (flag && !flags.has(flag)) unknown.push(`README.md:${line}: ${command.name()} has no ${flag}`);
      }
    }
    assert.deepEqual(unknown, []);
  });

  it('every --flag the README names anywhere is an option of a mesh command, or of the program named here', () => {
    const mesh = new Set(everyCommand(meshCommand()).flatMap((c) => [...longFlags(c)]));
    const named = new Set([...README.matchAll(/--[a-zA-Z][a-zA-Z-]*/g)].map((m) => m[0]));
    assert.deepEqual(
      [...named].filter((flag) => !mesh.has(flag) && OTHER_PROGRAMS[flag] === undefined),
      [],
    );
  });

  it('every option of start and plan is in the README', () => {
    const runbook = runbookCommand();
    const missing: string[] = [];
    for (const verb of ['start', 'plan'])
      for (const kind of ['edge-flip', 'data-path-move']) {
        const command = sub(sub(runbook, verb) ?? runbook, kind) ?? assert.fail(`no ${verb} ${kind}`);
        for (const flag of longFlags(command))
          if (flag !== '--help' && !new RegExp(`${flag}(?![a-z-])`).test(README))
            missing.push(`${verb} ${kind} ${flag}`);
      }
    assert.deepEqual(missing, []);
  });
});
