import { basename, dirname, resolve } from 'node:path';

/**
 * This package's root, whether this file runs from the sources (`mesh/`) or compiled (`dist/mesh/`): where
 * `bin/mesh.js` and `package.json` are.
 */
export const PACKAGE_ROOT = ((): string => {
  const above = resolve(__dirname, '..');
  return basename(above) === 'dist' ? dirname(above) : above;
})();
