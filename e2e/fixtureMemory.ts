/**
 * The memory at daily-use scale (scripts/build-fixture-memory.ts) for browser tests: built once
 * per day into test-results/ and imported through the app's own "Import…" control.
 */
import { existsSync, statSync } from 'node:fs';
import { expect, type Page } from '@playwright/test';
import { buildFixtureMemory, type FixtureSummary } from '../scripts/build-fixture-memory';

export const FIXTURE_FILE = 'test-results/fixture-memory.sqlite';
/** What the builder writes with its defaults (pinned here so a changed builder shows up in the tests). */
export const FIXTURE = { conversations: 470, turns: 4_700 } as const;

/** Builds the file unless one from the last 12 hours exists (its "now" is the build time). */
export async function ensureFixtureMemory(): Promise<FixtureSummary | null> {
  if (existsSync(FIXTURE_FILE) && Date.now() - statSync(FIXTURE_FILE).mtimeMs < 12 * 3_600_000) return null;
  return buildFixtureMemory(FIXTURE_FILE);
}

/** Replaces the page's memory with the fixture through Import… → Replace memory. */
export async function importFixtureMemory(page: Page): Promise<void> {
  await page.getByLabel('Import database file').setInputFiles(FIXTURE_FILE);
  await page.getByRole('button', { name: 'Replace memory' }).click();
  await expect(page.getByText(`Imported ${FIXTURE.turns} messages in ${FIXTURE.conversations} conversations`)).toBeVisible({ timeout: 60_000 });
}
