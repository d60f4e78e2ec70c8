import { writeFileSync } from 'node:fs';
import { runTestFiles } from '../node-test-run';

/**
 * One test file under node:test, in a process of its own that the harness started with the file's own
 * environment (server, ports): `one-file.ts <file> <tally.json>`. Its progress goes to stdout, its
 * stderr to stderr; how its tests ended goes to the tally file.
 */
async function main(): Promise<void> {
  const [file, tallyFile] = process.argv.slice(2);
  if (!file || !tallyFile) throw new Error('usage: one-file.ts <test file> <tally file>');
  const tally = await runTestFiles([file]);
  writeFileSync(tallyFile, JSON.stringify(tally));
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`harness: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
