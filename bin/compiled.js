// Whether dist/ (tsc -p tsconfig.build.json) may run in place of the sources: its stamp is newer than every
// source file and than the build settings. Plain JavaScript, so it costs no compilation to ask.
const { readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const STAMP = join(ROOT, 'dist', '.stamp');
const SOURCES = ['cli', 'client', 'workflows', 'activities', 'worker', 'mesh', 'docker', 'config'];
const SETTINGS = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

function newestIn(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestIn(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function compiledIsFresh() {
  try {
    const built = statSync(STAMP).mtimeMs;
    const settings = SETTINGS.map((file) => statSync(join(ROOT, file)).mtimeMs);
    const sources = SOURCES.map((dir) => newestIn(join(ROOT, dir)));
    return Math.max(...settings, ...sources) <= built;
  } catch {
    return false;
  }
}

module.exports = { compiledIsFresh, ROOT, SOURCES };
