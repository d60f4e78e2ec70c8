#!/usr/bin/env node
// Runs the TypeScript CLI directly; tsx compiles on load so there is no build step to forget.
require('tsx/cjs');
require('../cli/main.ts');
