// `npm run screenshots`: the README screenshot script, kept out of the e2e suite (it asserts little).
import { defineConfig } from '@playwright/test';
import base from './playwright.config';

export default defineConfig({ ...base, testDir: 'screenshots', testMatch: '*.shots.ts' });
