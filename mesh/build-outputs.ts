import { join } from 'node:path';
import { PACKAGE_ROOT } from './package-root';

/** What bin/compiled.js tells about dist/: whether each build output is newer than every source. */
export interface BuildOutputs {
  WORKFLOW_BUNDLE: string;
  compiledIsFresh(root?: string): boolean;
  workflowBundleIsFresh(root?: string): boolean;
}

/** bin/compiled.js, plain JavaScript outside the compiled tree, found from the package root. */
export function buildOutputs(): BuildOutputs {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(join(PACKAGE_ROOT, 'bin', 'compiled.js')) as BuildOutputs;
}
