import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import type { Command } from 'commander';
import { buildProgram, buildWholeProgram } from '../../cli/program';

const ROOT = join(__dirname, '..', '..');
const OPERATORS = readFileSync(join(ROOT, 'docs', 'operators.md'), 'utf8');

function markdownUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** The README and every page of docs/, each by its path from the repository's root. */
const PAGES = [join(ROOT, 'README.md'), ...markdownUnder(join(ROOT, 'docs'))].map((path) => ({
  name: relative(ROOT, path),
  text: readFileSync(path, 'utf8'),
}));

/** `mesh runbook` with every verb, as the CLI registers them. */
function runbookCommand(): Command {
  const program = buildProgram(['runbook'], false);
  return program.commands.find((c) => c.name() === 'runbook') ?? assert.fail('no runbook group');
}

/** The whole `mesh` command as the CLI builds it: its own options, every `mesh local` and `mesh runbook` verb. */
const meshCommand = buildWholeProgram;

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
 * Every command line a page shows for `mesh runbook <verb>`: in code blocks (continuation lines joined,
 * comments cut) and in inline code, with where it is.
 */
function commandsShown(page: string): { line: number; words: string[] }[] {
  const found: { line: number; words: string[] }[] = [];
  const lines = page.split('\n');
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

describe('the README and docs/ show the CLI as it is', () => {
  it('every --flag a page shows for a `mesh runbook <verb>` exists on that verb', () => {
    const runbook = runbookCommand();
    const unknown: string[] = [];
    const commands = PAGES.flatMap((page) => commandsShown(page.text).map((shown) => ({ ...shown, page })));
    assert.ok(commands.length > 100, `found only ${commands.length} command lines in the README and docs/`);
    for (const { line, words, page } of commands) {
      const verbAt = words.indexOf('runbook') + 1;
      if (/^[<[]/.test(words[verbAt] ?? '<')) continue; // `mesh runbook <verb>`, `[command]`: any verb
      const verb = sub(runbook, words[verbAt] ?? '');
      if (!verb) {
        unknown.push(`${page.name}:${line}: no verb ${words[verbAt] ?? '(none)'}`);
        continue;
      }
      const kind = sub(verb, words[verbAt + 1] ?? '');
      const command = kind ?? verb;
      const flags = longFlags(command);
      for (const word of words.slice(verbAt + 1).filter((w) => !w.startsWith('<'))) {
        const flag = /^\[?(--[a-z][a-z-]*)/.exec(word)?.[1];
        if (flag && !flags.has(flag)) unknown.push(`${page.name}:${line}: ${command.name()} has no ${flag}`);
      }
    }
    assert.deepEqual(unknown, []);
  });

  it('every --flag a page names anywhere is an option of a mesh command, or of the program named here', () => {
    const mesh = new Set(everyCommand(meshCommand()).flatMap((c) => [...longFlags(c)]));
    const unknown = PAGES.flatMap((page) =>
      [...new Set([...page.text.matchAll(/--[a-zA-Z][a-zA-Z-]*/g)].map((m) => m[0]))]
        .filter((flag) => !mesh.has(flag) && OTHER_PROGRAMS[flag] === undefined)
        .map((flag) => `${page.name}: ${flag}`),
    );
    assert.deepEqual(unknown, []);
  });

  it('reads every page of docs/, the CLI reference among them', () => {
    assert.ok(PAGES.some((page) => page.name === join('docs', 'cli.md')));
    assert.ok(PAGES.some((page) => page.name === join('docs', 'design.md')));
  });

  it("every option of start and plan is in the operators' manual", () => {
    const runbook = runbookCommand();
    const missing: string[] = [];
    for (const verb of ['start', 'plan'])
      for (const kind of ['edge-flip', 'data-path-move']) {
        const command = sub(sub(runbook, verb) ?? runbook, kind) ?? assert.fail(`no ${verb} ${kind}`);
        for (const flag of longFlags(command))
          if (flag !== '--help' && !new RegExp(`${flag}(?![a-z-])`).test(OPERATORS))
            missing.push(`${verb} ${kind} ${flag}`);
      }
    assert.deepEqual(missing, []);
  });
});
