/**
 * The memory at daily-use scale (scripts/build-fixture-memory.ts) for browser tests: built in Node,
 * kept in .cache/ under a hash of its builder and the source it is written through (fileCache.ts),
 * rebuilt when it is 12 hours old (its times are relative to the build), and imported through the
 * app's own "Import…" control.
 */
import { test, type BrowserContext, type Page } from '@playwright/test';
import { replaceMemory } from './appSteps';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { buildFixtureMemory, type FixtureSummary } from '../scripts/build-fixture-memory';
import { loadDatabaseFile, openNodeStore } from '../src/storage/openNodeDatabase';
import type { SqliteMemoryStore } from '../src/storage/SqliteMemoryStore';
import { createEngine } from '../src/host/createEngine';
import { buildOnce, cachedPath } from './fileCache';

export const FIXTURE_FILE = cachedPath('fixture-memory', 'sqlite', ['scripts/build-fixture-memory.ts', 'src']);
/** What the builder writes with its defaults (pinned here so a changed builder shows up in the tests). */
export const FIXTURE = { conversations: 470, turns: 4_700 } as const;

/** Builds the file unless one from the last 12 hours exists (its "now" is the build time). */
export async function ensureFixtureMemory(): Promise<FixtureSummary | null> {
  let summary: FixtureSummary | null = null;
  await buildOnce(
    FIXTURE_FILE,
    async (file) => {
      summary = await buildFixtureMemory(file);
    },
    12 * 3_600_000,
  );
  return summary;
}

/** A fixture memory of a given size: its file, what it holds, and how to build it once. */
export interface SizedFixture {
  readonly file: string;
  readonly conversations: number;
  readonly turns: number;
  readonly ensure: () => Promise<unknown>;
}

/**
 * The same memory with `conversations` conversations of 10 turns (the builder's shape, fewer of
 * them): the daily-use fixture above at 470, a smaller one for a quick pass over the same views.
 * A smaller one is kept in .cache/ under its own name, so building one never removes the other.
 */
export function sizedFixture(conversations: number): SizedFixture {
  if (conversations === FIXTURE.conversations) return { file: FIXTURE_FILE, ...FIXTURE, ensure: ensureFixtureMemory };
  const file = cachedPath(`fixture${conversations}-memory`, 'sqlite', ['scripts/build-fixture-memory.ts', 'src']);
  return {
    file,
    conversations,
    turns: conversations * 10,
    ensure: () => buildOnce(file, (out) => buildFixtureMemory(out, { conversations }), 12 * 3_600_000),
  };
}

/**
 * How many episodes (or facts: two per episode) the fixture holds. The segmenter's count depends on
 * the day the file was built (its times are relative to then), so tests read it from the file.
 */
export async function fixtureCount(table: 'memcells' | 'facts'): Promise<number> {
  const db = await loadDatabaseFile(FIXTURE_FILE, { migrateSchema: false });
  const [row] = await db.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`);
  await db.close();
  return Number(row?.n);
}

/** Replaces the page's memory with the fixture through Import… → Replace memory. */
export async function importFixtureMemory(page: Page): Promise<void> {
  // 18 MB checked and swapped in: minutes on a busy machine.
  await replaceMemory(
    page,
    FIXTURE_FILE,
    `Imported ${FIXTURE.turns.toLocaleString('en-US')} messages in ${FIXTURE.conversations} conversations`,
    180_000,
  );
}

/**
 * Puts the fixture file in place as this origin's memory (the OPFS file the app opens,
 * `recollect.sqlite`, storage/openOpfsStore.ts) before the app first runs, from a blank page of the
 * same origin: seconds, where Import… checks and swaps 18 MB in for most of a minute on a 2-core
 * machine. For tests about what happens with a memory of this size, not about importing it
 * (import.spec and the shareFixturePage users go through Import…). Leaves the page on the blank
 * page: the test opens the app next.
 */
export async function seedFixtureMemory(page: Page, file = FIXTURE_FILE): Promise<void> {
  const blank = '**/__seed-memory';
  const bytes = '**/__seed-memory.sqlite';
  await page.route(blank, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>seeding</title>' }));
  await page.route(bytes, (route) => route.fulfill({ path: file, contentType: 'application/octet-stream' }));
  await page.goto('/__seed-memory');
  await page.evaluate(async (name) => {
    const data = await (await fetch('/__seed-memory.sqlite')).arrayBuffer();
    const root = await navigator.storage.getDirectory();
    const writable = await (await root.getFileHandle(name, { create: true })).createWritable();
    await writable.write(data);
    await writable.close();
  }, 'recollect.sqlite');
  await page.unroute(blank);
  await page.unroute(bytes);
}

/**
 * One page holding the fixture memory, imported once before a file's tests and shared by them in
 * order (serial mode), for a file whose tests only read the memory or change parts of it the later
 * tests do not count on. Each import through the app takes half a minute or more on a 2-core
 * machine, and the import itself is tested where it is the subject. Returns the page's getter.
 */
export function shareFixturePage(): () => Page {
  test.describe.configure({ mode: 'serial' });
  let context: BrowserContext | undefined;
  let page: Page | undefined;
  test.beforeAll(async ({ browser }) => {
    test.setTimeout(300_000); // building the fixture memory takes a minute or more on a busy machine
    await ensureFixtureMemory();
    context = await browser.newContext();
    page = await context.newPage();
    await page.goto('/');
    await importFixtureMemory(page);
  });
  test.afterAll(async () => context?.close());
  return () => page!;
}

/**
 * A small memory saved with synthesis "eager" and none of its 15 turns synthesised (what
 * `npm run import` writes): importing it brings up "Synthesise the restored memory?".
 */
export async function writeUnsynthesisedMemory(path: string): Promise<void> {
  const store = await openNodeStore();
  const engine = createEngine(store, { only: ['episodes'] });
  await engine.start();
  await store.createConversation({ id: 'c', title: 'cello practice' });
  for (let d = 0; d < 5; d++) {
    for (let i = 0; i < 3; i++) {
      await engine.conversations.appendTurn({
        id: `t${d}-${i}`,
        conversationId: 'c',
        role: 'user',
        content: `Day ${d}: I practised the cello and worked on the Bach suite, part ${i}.`,
        occurredAt: Date.UTC(2023, 4, 1) + d * 86_400_000 + i * 60_000,
      });
    }
  }
  await engine.idle();
  await store.setMeta('consolidation.policy', 'eager');
  await writeFile(path, await store.exportDatabase());
  engine.stop();
}

/**
 * Writes a memory built in Node to `path` for a browser test, without its vectors: the browser has
 * its own embedder and embeds from scratch.
 */
export async function saveWithoutVectors(store: SqliteMemoryStore, path: string): Promise<void> {
  await store.db.exec("DELETE FROM meta WHERE key LIKE 'embedder.%'");
  await store.db.exec('DELETE FROM vectors');
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, await store.exportDatabase());
}
