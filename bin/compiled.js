// Whether dist/ (tsc -p tsconfig.build.json, then the workflow bundle) may run in place of the sources: a
// build output is fresh when it is newer than every source file and than the build settings. Plain
// JavaScript, so it costs no compilation to ask.
const { readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const SOURCES = [
  'cli',
  'client',
  'workflows',
  'activities',
  'worker',
  'mesh',
  'docker',
  'base',
  'config',
  'lab',
];
const SETTINGS = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];
const STAMP = join('dist', '.stamp');
const WORKFLOW_BUNDLE = join('dist', 'workflow-bundle.js');

function newestIn(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestIn(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Whether `output` (relative to `root`) exists and is at least as new as every source and setting. */
function builtIsFresh(output, root = ROOT) {
  try {
    const built = statSync(join(root, output)).mtimeMs;
    const settings = SETTINGS.map((file) => statSync(join(root, file)).mtimeMs);
    const sources = SOURCES.map((dir) => newestIn(join(root, dir)));
    return Math.max(...settings, ...sources) <= built;
  } catch {
    return false;
  }
}

const compiledIsFresh = (root = ROOT) => builtIsFresh(STAMP, root);
const workflowBundleIsFresh = (root = ROOT) => builtIsFresh(WORKFLOW_BUNDLE, root);

module.exports = { compiledIsFresh, workflowBundleIsFresh, ROOT, SOURCES, SETTINGS, STAMP, WORKFLOW_BUNDLE };
