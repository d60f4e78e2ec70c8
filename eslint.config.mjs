import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const nodeBuiltins = ['node:*', 'fs', 'path', 'os', 'child_process', 'http', 'https', 'net', 'crypto'];

/** The bench's simulated nodes stand in for real ones in its measurements only. */
const benchOnly = {
  group: ['**/simulated-node', '**/simulated-node/**'],
  message:
    "Simulated nodes are the bench's alone (scripts/bench/simulated-node/): production never imports them.",
};

/** How deep a source file may sit below its top-level directory (`mesh/port.ts` is 1); today the deepest is 3. */
const DEPTHS = [1, 2, 3, 4, 5, 6];

/**
 * No imports up the stack. From bottom to top: base (pure pieces) → docker → mesh → activities → workflows
 * (bundle-safe); client → cli on top. A file `depth` directories deep reaches a top-level directory through
 * exactly `depth` `../`, so the pattern cannot mistake activities/mesh/ for mesh/.
 */
function upTheStack(dirs, depth, message, allowTypeImports = false) {
  return {
    regex: `^(\\.\\./){${depth}}(${dirs.join('|')})(/|$)`,
    message,
    ...(allowTypeImports ? { allowTypeImports } : {}),
  };
}

/**
 * One `no-restricted-imports` per directory and depth, each with its directory's whole pattern list: in flat
 * config a later `no-restricted-imports` for the same files replaces an earlier one, so nothing is split.
 */
function restrictedImports(dir, patternsAt, extraRules = {}) {
  return DEPTHS.map((depth) => ({
    files: [`${dir}/${'*/'.repeat(depth - 1)}*.ts`],
    rules: { 'no-restricted-imports': ['error', { patterns: patternsAt(depth) }], ...extraRules },
  }));
}

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'test/artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['bin/**/*.js', 'lab/bin/**/*.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['bin/**', 'cli/**', 'client/**', 'lab/**', 'worker/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [benchOnly] }] },
  },
  ...restrictedImports('base', (depth) => [
    upTheStack(
      [
        'docker',
        'mesh',
        'config',
        'activities',
        'workflows',
        'worker',
        'client',
        'cli',
        'lab',
        'bin',
        'scripts',
        'test',
      ],
      depth,
      'Shared pieces sit below every layer: they import none of them.',
    ),
    benchOnly,
  ]),
  ...restrictedImports('docker', (depth) => [
    upTheStack(
      ['mesh', 'activities', 'client', 'cli'],
      depth,
      'Docker sits below mesh: what both need (container specs, labels, names) is docker/ or base/.',
    ),
    benchOnly,
  ]),
  ...restrictedImports('mesh', (depth) => [
    upTheStack(
      ['activities', 'config', 'client', 'cli'],
      depth,
      'Mesh sits below activities and config: what both need (the heartbeat, ConfigError) is in base/.',
    ),
    benchOnly,
  ]),
  ...restrictedImports('activities', (depth) => [
    {
      group: ['**/mesh/local', '**/mesh/local/**'],
      message: 'Activities work through the mesh port; shared naming and paths are in docker/placement.',
    },
    upTheStack(
      ['client', 'cli'],
      depth,
      'Activities sit below the client: what both read (last runs, node marks) is in activities/runbook/.',
    ),
    benchOnly,
  ]),
  {
    files: ['config/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/activities', '**/activities/**'],
              message: 'Config describes settings; activities import config, never the other way round.',
            },
            benchOnly,
          ],
        },
      ],
    },
  },
  ...restrictedImports(
    'workflows',
    (depth) => [
      { group: nodeBuiltins, message: 'Workflow code is deterministic: no Node built-ins.' },
      {
        group: ['dockerode', 'pino', '@temporalio/client', '@temporalio/worker', '@temporalio/activity'],
        message: 'Not in workflow code.',
      },
      upTheStack(['activities'], depth, 'Workflows only import type from activities.', true),
      upTheStack(
        ['client', 'cli', 'worker'],
        depth,
        'Workflows sit below the client, the CLI and the worker: what both need moves down.',
      ),
      benchOnly,
    ],
    {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'No environment in workflow code.' },
        { object: 'Math', property: 'random', message: 'Use workflow APIs.' },
        {
          object: 'Date',
          property: 'now',
          message: 'Date.now in workflows is the workflow clock; prefer explicit workflow APIs.',
        },
      ],
    },
  ),
);
