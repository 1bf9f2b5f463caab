/**
 * Forget deletes exactly what it listed: "Forget everything about Ana" lists
 * N items; confirming deletes those N, the report counts exactly N with the right plural for each
 * kind, and the plan and fact of the same episode that do not mention Ana stay. The memory is
 * synthesised in Node through the engine (mock endpoint) and imported in the app, as
 * explorer.spec.ts does.
 */
import { expect, test } from '@playwright/test';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { immediateTimer, topicProvider } from '../test/support/topicEmbedder';
import { openNodeStore } from '../src/storage/openNodeDatabase';
import { LlmClient } from '../src/llm/LlmClient';
import { createEngine } from '../src/host/createEngine';
import { connectEndpoint, openSavedMemories, replaceMemory } from './appSteps';
import { saveWithoutVectors } from './fixtureMemory';

const H = 3_600_000;
const T0 = Date.now() - 2 * 24 * H;
const FILE = 'test-results/forget-exact.sqlite';

let mock: MockLlmServer;

/** Two synthesised episodes mentioning Ana; the first also holds a plan and a fact that do not. */
async function prefill(): Promise<void> {
  const store = await openNodeStore();
  const llm = new LlmClient(
    { baseUrl: mock.url, model: 'mock-model' },
    { sink: store.llmCalls, timeoutMs: 5_000, maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
  );
  const engine = createEngine(store, {
    embedders: topicProvider(['hiking', 'flight', 'food']),
    llm,
    timer: immediateTimer,
    profileDebounceMs: 0,
  });
  await engine.start();
  await engine.synthesis.setPolicy('eager');
  await store.createConversation({ id: 'week', title: 'This week' });
  let n = 0;
  const say = async (at: number, texts: string[]) => {
    for (const [i, content] of texts.entries())
      await engine.conversations.appendTurn({ id: `m${++n}`, conversationId: 'week', role: 'user', content, occurredAt: at + i * 60_000 });
    await engine.idle();
    await engine.closeOpenCells();
    await engine.idle();
  };
  await say(T0, ['Ana and I went hiking on Mount Tam.', 'I am flying to Porto next week for the conference.']);
  await say(T0 + 26 * H, ['Ana recommended a sushi place near the station.']);
  await saveWithoutVectors(store, FILE);
  engine.stop();
}

test.beforeAll(async () => {
  mock = await startMockLlmServer({ responder: (req) => (req.stream ? 'Noted.' : synthesisResponder(req)) });
  await prefill();
});
test.afterAll(async () => mock.close());

/** How the report names each kind, one and many (written out here, not taken from the app). */
const NOUNS: Record<string, [string, string]> = {
  turn: ['message', 'messages'],
  fact: ['fact', 'facts'],
  episode: ['episode', 'episodes'],
  foresight: ['plan', 'plans'],
  profile: ['profile item', 'profile items'],
  scene: ['theme summary', 'theme summaries'],
};

test('forgetting "Ana" deletes exactly the listed items, reports that count with correct plurals, and keeps the unlisted plan and fact', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.goto('/');
  await connectEndpoint(page, mock.url);
  await replaceMemory(page, FILE, /Imported 3 messages/);

  // Before: the Porto plan and fact are remembered.
  const saved = await openSavedMemories(page);
  await expect(saved.getByRole('heading', { name: /Plans ahead \([1-9]/ })).toBeVisible();
  await expect(saved.locator('h3:has-text("Plans ahead") + ul')).toContainText('Porto');
  await expect(saved.getByTestId('saved-item').filter({ hasText: 'Porto' }).first()).toBeVisible();
  const portoBefore = await saved.getByTestId('saved-item').filter({ hasText: 'Porto' }).count();

  await page.getByRole('tab', { name: 'Forget', exact: true }).click();
  await page.getByLabel('Forget everything about').fill('Ana');
  await page.getByRole('button', { name: 'Find' }).click();
  const listed = page.locator('.forget-list li');
  await expect(listed.first()).toBeVisible();
  const n = await listed.count();
  const kinds = await listed.locator('.kind').allTextContents();
  expect(kinds).toHaveLength(n);
  // The two messages that mention Ana are among them; nothing listed is about Porto.
  expect(kinds.filter((k) => k === 'turn')).toHaveLength(2);
  expect(kinds.length).toBeGreaterThan(2);
  for (const text of await listed.allTextContents()) if (!/Ana/i.test(text)) expect(text).not.toMatch(/Porto/);
  await expect(page.getByTestId('forget-found')).toContainText(`Found ${n} items`);
  // Nothing starts ticked: the person ticks what goes (here all of it, with the count in the button).
  await expect(listed.getByRole('checkbox', { checked: true })).toHaveCount(0);
  await page.getByRole('button', { name: `Tick all ${n}` }).click();
  await expect(page.getByTestId('forget-chosen')).toContainText(`${n} of ${n} ticked, to be deleted for good`);

  await page.getByRole('button', { name: `Forget ${n} items` }).click();
  const report = page.getByRole('status').filter({ hasText: 'Forgotten:' });
  await expect(report).toBeVisible({ timeout: 30_000 });
  const counts = new Map<string, number>();
  for (const k of kinds) counts.set(k, (counts.get(k) ?? 0) + 1);
  const parts = [...counts].map(([kind, count]) => `${count} ${count === 1 ? NOUNS[kind]![0] : NOUNS[kind]![1]}`);
  const said = (await report.textContent())!.match(/^Forgotten: (.*)\. They will not come back/)![1]!.split(', ');
  expect([...said].sort()).toEqual([...parts].sort());
  expect(said.reduce((a, p) => a + Number(p.split(' ')[0]), 0)).toBe(n);

  // Nothing about Ana is left; the unlisted Porto plan and fact of the same episode stay.
  await page.getByLabel('Forget everything about').fill('Ana');
  await page.getByRole('button', { name: 'Find' }).click();
  await expect(page.getByText('Nothing remembered mentions “Ana”.')).toBeVisible();
  const after = await openSavedMemories(page);
  await expect(after.locator('h3:has-text("Plans ahead") + ul')).toContainText('Porto');
  await expect(after.getByTestId('saved-item').filter({ hasText: 'Porto' })).toHaveCount(portoBefore);
  await expect(after.getByTestId('saved-item').filter({ hasText: 'Ana' })).toHaveCount(0);
});
