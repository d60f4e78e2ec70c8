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
    files: ['bin/**', 'cli/**', 'client/**', 'docker/**', 'lab/**', 'mesh/**', 'worker/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [benchOnly] }] },
  },
  {
    files: ['activities/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/mesh/local', '**/mesh/local/**'],
              message:
                'Activities work through the mesh port; shared naming and paths are in docker/placement.',
            },
            benchOnly,
          ],
        },
      ],
    },
  },
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
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: nodeBuiltins, message: 'Workflow code is deterministic: no Node built-ins.' },
            {
              group: [
                'dockerode',
                'pino',
                '@temporalio/client',
                '@temporalio/worker',
                '@temporalio/activity',
              ],
              message: 'Not in workflow code.',
            },
            {
              group: ['**/activities/**', '../activities', '../activities/*'],
              allowTypeImports: true,
              message: 'Workflows only import type from activities.',
            },
            benchOnly,
          ],
        },
      ],
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
  },
);
