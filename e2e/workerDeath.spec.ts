/**
 * The model worker dies — closed from inside, as running out of memory while loading a large model
 * on a phone ends it — while an answer is under way: the app notices, says so in
 * plain words, starts a new model worker, keeps what the person typed, and the next question is
 * answered (its embedding comes from the new worker). The engine worker, which runs synthesis, dies
 * while an episode's synthesis request is out: said, restarted, the draft kept, the next question
 * answered, and the episode's synthesis resumes by itself (its job was running; a new engine puts it
 * back in the queue). The model worker dies during an embedder switch (right after Use, while it
 * loads the downloaded model and re-embeds): said, restarted, the switch ends on a working model
 * (never stuck re-embedding), the draft kept, and the next turn is stored and embedded. The engine
 * worker's death otherwise: e2e/engineRestart.spec.ts.
 */
import { expect, test, type Page } from '@playwright/test';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { buildTestHub, startModelHub, type ModelHub } from '../test/support/modelHub';
import { connectEndpoint, firstLongTurnEveryEpisode, messageBox as box, openWithModelHub, printPageOnFailure } from './appSteps';
import { chooseFromMore } from './moreMenu';

let mock: MockLlmServer;
const isSynthesis = (content: string) => content.includes('\nTURNS:\n');
const synthesisRequests = () =>
  mock.requests.filter((r) => {
    const messages = (r.body?.messages ?? []) as { role: string; content: string }[];
    return isSynthesis(messages.find((m) => m.role === 'user')?.content ?? '');
  }).length;
test.beforeAll(async () => {
  mock = await startMockLlmServer({
    chunkDelayMs: 300,
    responder: (req) =>
      req.stream ? 'Tomatoes like basil, marigolds and borage; they dislike fennel and cabbage in the same bed.' : synthesisResponder(req),
  });
});
test.afterAll(async () => mock.close());

printPageOnFailure();

/**
 * Ends the worker whose script is `script` from inside; the page gets no message for this. (A real
 * out-of-memory in a dedicated worker is not reproducible here: Chromium takes the whole renderer
 * down with it — "Target crashed" — so the page has nothing left to notice with. Closing from
 * inside ends the worker the same way for the page: its lock is released, nothing is said.)
 */
async function kill(page: Page, script: string): Promise<void> {
  const worker = page.workers().find((w) => w.url().includes(script));
  if (!worker) throw new Error(`no ${script}`);
  await worker.evaluate(() => (self as unknown as { close(): void }).close()).catch(() => undefined);
}

const stoppedNotice = (page: Page) =>
  page.getByRole('alert').filter({ hasText: 'The model worker (search and embedding models) stopped unexpectedly' });

{
  test('the model worker dies during an answer: said in plain words, restarted, the draft kept, the next question answered', async ({
    page,
  }) => {
    test.setTimeout(180_000); // the first answer may wait for the embedding model on a loaded machine
    await page.goto('/');
    await page.getByRole('button', { name: '+ New conversation' }).click();
    await connectEndpoint(page, mock.url);
    await box(page).fill('What grows well with tomatoes?');
    await box(page).press('Enter');
    const streaming = page.getByTestId('streaming-answer');
    await expect(streaming).toContainText('Tomatoes', { timeout: 60_000 });

    await box(page).fill('This draft must survive.');
    await kill(page, 'model.worker');
    await expect(stoppedNotice(page)).toBeVisible();
    // The answer came from the endpoint and goes on; nothing typed is lost.
    await expect(streaming).toBeHidden({ timeout: 60_000 });
    await expect(page.getByTestId('message')).toHaveCount(2);
    await expect(box(page)).toHaveValue('This draft must survive.');

    await box(page).press('Enter');
    await expect(page.getByTestId('message').filter({ hasText: 'This draft must survive.' })).toBeVisible();
    await expect(page.getByTestId('message')).toHaveCount(4, { timeout: 60_000 });
    await expect(page.getByTestId('message').last()).toContainText('cabbage in the same bed');
  });
}

test('the engine worker dies while an episode is being synthesised: said, restarted, the draft kept, the next question answered, the synthesis resumed', async ({
  page,
}) => {
  test.setTimeout(300_000);
  mock.setBehaviour({ chunkDelayMs: 0 });
  await page.goto('/');
  const secondTurn = await firstLongTurnEveryEpisode(page, mock.url);
  await expect(page.getByTestId('streaming-answer')).toBeHidden({ timeout: 60_000 });

  // Every reply now waits, so the synthesis request is still out when the engine dies.
  mock.setBehaviour({ latencyMs: 20_000 });
  const before = synthesisRequests();
  // The second long turn overflows the episode's size cap: the first episode closes and goes to synthesis.
  await box(page).fill(secondTurn);
  await box(page).press('Enter');
  await expect.poll(synthesisRequests, { timeout: 120_000 }).toBeGreaterThan(before);
  await box(page).fill('This draft must survive.');
  await kill(page, 'engine.worker');
  mock.setBehaviour({ latencyMs: 0 });
  await expect(page.getByRole('alert').filter({ hasText: 'The memory engine stopped unexpectedly and was restarted' })).toBeVisible();
  await expect(box(page)).toHaveValue('This draft must survive.');
  await expect(page.getByTestId('message').filter({ hasText: 'My sister Lena lives in Porto' })).toHaveCount(1);

  // The synthesis that was cut off runs again on the new engine, by itself.
  await expect(page.getByTestId('memory-activity')).toContainText(/Memory updated · .*\d+ facts?/, { timeout: 120_000 });
  // The answer that was waiting when the engine died says why (never a hang); the draft is sent next.
  await expect(page.getByTestId('streaming-answer').getByRole('alert')).toContainText('The memory engine stopped unexpectedly');
  await box(page).press('Enter');
  await expect(page.getByTestId('message').filter({ hasText: 'This draft must survive.' })).toBeVisible();
  await expect(page.getByTestId('message').last()).toContainText('cabbage in the same bed', { timeout: 60_000 });
});

test('the model worker dies during an embedder switch: said, restarted, the switch ends on a working model, the draft kept, the next turn embedded', async ({
  page,
  context,
}) => {
  test.setTimeout(300_000);
  await buildTestHub();
  const hub: ModelHub = await startModelHub();
  try {
    await openWithModelHub(page, context, hub.url);
    await page.getByRole('button', { name: '+ New conversation' }).click();
    for (const [i, text] of [
      'I adopted a puppy from the shelter last weekend and named him Biscuit.',
      'The quarterly report shows revenue fell sharply in the north.',
    ].entries()) {
      await box(page).fill(text);
      await box(page).press('Enter');
      await expect(page.getByTestId('message')).toHaveCount(i + 1);
    }
    await chooseFromMore(page, 'Models');
    await expect(page.getByTestId('embedded-count')).toHaveText('2', { timeout: 60_000 });
    const row = page.getByTestId('model-embedder-Xenova/all-MiniLM-L6-v2');
    await row.getByRole('button', { name: /Download/ }).click();
    await expect(row).toContainText('downloaded', { timeout: 60_000 });
    await row.getByRole('button', { name: 'Use' }).click();
    await kill(page, 'model.worker');
    await expect(stoppedNotice(page)).toBeVisible();
    // The switch ends: on the new model or back on the one that worked, not re-embedding for ever.
    const status = page.getByTestId('embedding-status');
    await expect(status).toContainText(/Search by meaning uses (all-MiniLM-L6-v2|Offline GloVe 100-d)/, { timeout: 120_000 });
    await expect(status).not.toContainText('Re-embedding', { timeout: 120_000 });
    await page.getByRole('button', { name: 'Close models' }).click();

    await box(page).fill('This draft must survive.');
    await expect(box(page)).toHaveValue('This draft must survive.');
    await box(page).press('Enter');
    await expect(page.getByTestId('message')).toHaveCount(3);
    await chooseFromMore(page, 'Models');
    await expect(page.getByTestId('embedded-count')).toHaveText('3', { timeout: 120_000 });
  } finally {
    await hub.close();
  }
});
