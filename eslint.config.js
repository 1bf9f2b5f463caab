import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'public/**', 'test-results/**', 'playwright-report/**', 'bench/reports/**', '.cache/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // src/core is the portable engine: no DOM, workers, React, wa-sqlite, transformers.js or Node.
    files: ['src/core/**'],
    languageOptions: { globals: { ...globals.es2021 } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['react', 'react-*', 'react/*', '@tanstack/*', 'zustand', 'zustand/*'],
              message: 'src/core must not depend on React or UI state.',
            },
            {
              group: ['@journeyapps/wa-sqlite', '@journeyapps/wa-sqlite/*', 'wa-sqlite'],
              message: 'src/core receives Sql; wa-sqlite lives in src/storage.',
            },
            { group: ['comlink', '**/workers/**', '../../workers/*'], message: 'src/core must not know about workers.' },
            { group: ['@huggingface/*', 'onnxruntime-*'], message: 'src/core receives Embedder/Reranker; models live in src/models.' },
            { group: ['node:*', 'fs', 'path', 'os'], message: 'src/core must run in the browser too.' },
            {
              group: ['**/storage/**', '**/models/**', '**/llm/**', '**/app/**', '**/host/**'],
              message: 'Imports flow one way: other folders depend on core, not the reverse.',
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', 'window', 'document', 'navigator', 'self', 'localStorage', 'indexedDB', 'Worker', 'postMessage'],
    },
  },
);
