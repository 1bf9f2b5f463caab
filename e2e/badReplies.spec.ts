/**
 * The answer path in the browser says what an endpoint really sent (the Node half is
 * test/llm/badReplies.test.ts): a 200 that is a web page or empty, a stream with a malformed or an
 * error frame are each named, never stored as "(no answer)" and never reported as a broken
 * connection; a runaway streamed answer (3 MB) is cut at the limit, shown cut, and the tab stays
 * responsive enough to keep chatting.
 */
import { expect, test } from '@playwright/test';
import { defaultResponder, startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { connectEndpoint, typeAndSend as ask } from './appSteps';

let mock: MockLlmServer;
let answerText = 'Basil likes warm sun and steady water.';
test.beforeAll(async () => {
  mock = await startMockLlmServer({ responder: (req) => (req.stream ? answerText : defaultResponder(req)) });
});
test.afterAll(async () => mock.close());
test.beforeEach(() => {
  answerText = 'Basil likes warm sun and steady water.';
  mock.setBehaviour({ htmlNext: 0, emptyNext: 0, badFrameNext: 0, errorFrameNext: 0, ignoreMaxTokens: false });
});

test('a web page, an empty reply, a malformed and an error frame are each named, and nothing is stored as an answer', async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto('/');
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await connectEndpoint(page, mock.url);
  await expect(page.getByTestId('no-endpoint')).toBeHidden();

  const cases: [Parameters<MockLlmServer['setBehaviour']>[0], RegExp][] = [
    [{ htmlNext: 1 }, /web page \(HTML\)/],
    [{ emptyNext: 1 }, /empty/],
    [{ badFrameNext: 1 }, /malformed reply/],
    [{ errorFrameNext: 1 }, /The model crashed while generating\./],
  ];
  const streaming = page.getByTestId('streaming-answer');
  for (const [i, [behaviour, said]] of cases.entries()) {
    mock.setBehaviour(behaviour);
    await ask(page, `Question ${i + 1}: what grows with basil?`);
    const alert = streaming.getByRole('alert');
    // The first answer of a fresh profile may wait for the embedding model to load.
    await expect(alert).toContainText(said, { timeout: 60_000 });
    await expect(alert).not.toContainText(/connection broke|CORS|no answer/i);
    // Only the user's questions are stored: no "(no answer)" turn from a reply that was not one.
    await expect(page.getByTestId('message')).toHaveCount(i + 1);
    await expect(page.getByTestId('message').last()).toContainText(`Question ${i + 1}`);
  }
  await expect(page.getByTestId('message').filter({ hasText: /\(no answer\)/ })).toHaveCount(0);

  // The endpoint works again: the next answer arrives and is stored.
  await ask(page, 'And now?');
  await expect(streaming).toBeHidden({ timeout: 60_000 });
  await expect(page.getByTestId('message').last()).toContainText('steady water');
});

test('a runaway streamed answer is cut at the limit, shown as cut, and the chat keeps working', async ({ page }) => {
  test.setTimeout(240_000);
  await page.goto('/');
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await connectEndpoint(page, mock.url);
  await expect(page.getByTestId('no-endpoint')).toBeHidden();

  answerText = 'Tomatoes need sun and steady water. '.repeat(85_000); // ≈ 3 MB
  mock.setBehaviour({ ignoreMaxTokens: true });
  await ask(page, 'Tell me everything about tomatoes.');
  const answer = page.getByTestId('message').last();
  await expect(answer.getByTestId('answer-cut-off')).toContainText('longer than', { timeout: 180_000 });
  const stored = await answer.innerText();
  expect(stored.length).toBeLessThanOrEqual(101_000);
  expect(stored).toContain('Tomatoes need sun');

  answerText = 'Short and sweet.';
  mock.setBehaviour({ ignoreMaxTokens: false });
  await ask(page, 'In one line?');
  await expect(page.getByTestId('message').last()).toContainText('Short and sweet.', { timeout: 60_000 });
});
