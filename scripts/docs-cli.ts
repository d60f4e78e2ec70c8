import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildWholeProgram } from '../cli/program';
import { cliReference } from '../cli/reference';

/** `npm run docs:cli`: writes docs/cli.md, the CLI reference, from the commands' own definitions. */
const file = join(__dirname, '..', 'docs', 'cli.md');
writeFileSync(file, cliReference(buildWholeProgram()));
process.stdout.write(`wrote ${file}\n`);
