#!/usr/bin/env node
// Runs the compiled CLI (dist/, built by scripts/bootstrap.sh or `npm run build`) when it is at least as
// new as every source file; otherwise the TypeScript itself through tsx, so an edit never runs stale code.
const { compiledIsFresh } = require('./compiled');

require('./lazy-zod-locales').deferZodLocales();

if (compiledIsFresh()) {
  require('../dist/cli/main.js');
} else {
  require('tsx/cjs');
  require('../cli/main.ts');
}
