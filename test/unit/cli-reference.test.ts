import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buildWholeProgram } from '../../cli/program';
import { cliReference, REGENERATE } from '../../cli/reference';

const FILE = join(__dirname, '..', '..', 'docs', 'cli.md');

/** The first line where two texts part, as `line N: "…" here, "…" in the commands`. */
function firstDifference(committed: string, generated: string): string {
  const have = committed.split('\n');
  const want = generated.split('\n');
  const at = want.findIndex((line, i) => have[i] !== line);
  const line = at < 0 ? want.length : at;
  return `line ${line + 1}: ${JSON.stringify(have[line] ?? '(end of file)')} here, ${JSON.stringify(want[line] ?? '(end)')} in the commands`;
}

describe('docs/cli.md, the CLI reference', () => {
  it('is what the commands’ own definitions generate', () => {
    const committed = readFileSync(FILE, 'utf8');
    const generated = cliReference(buildWholeProgram());
    assert.ok(
      committed === generated,
      `docs/cli.md is stale (${firstDifference(committed, generated)}): regenerate it with \`${REGENERATE}\``,
    );
  });

  it('has every command, each under its own heading, and the help of each', () => {
    const generated = cliReference(buildWholeProgram());
    for (const heading of ['## mesh runbook start edge-flip', '## mesh local node create', '## mesh config'])
      assert.ok(generated.includes(`\n${heading}\n`), heading);
    assert.match(generated, /Usage: mesh runbook decide \[options\] <id> <action>/);
    assert.match(generated, /Exit codes: 0 ok \(running or completed\)/, 'texts added after the help are in');
  });
});
