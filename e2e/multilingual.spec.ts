/**
 * Memory in Chinese, Japanese and Korean in the running app: turns typed in those languages are
 * found by words inside their sentences in search, retrieved for a question in the same language
 * and sent to the model (the mock server checks the pipeline, not the answer), and the Models
 * panel says when most text is in a language the active embedder does not cover.
 */
import { expect, test, type Page } from '@playwright/test';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { connectEndpoint, messageBox as box } from './appSteps';
import { chooseFromMore } from './moreMenu';

let mock: MockLlmServer;
test.beforeAll(async () => {
  mock = await startMockLlmServer({ responder: (req) => (req.stream ? 'Noted [1].' : synthesisResponder(req)) });
});
test.afterAll(async () => mock.close());
test.beforeEach(() => test.setTimeout(180_000)); // shared machine; nothing here is timed

const TURNS = [
  { text: '我下个月要去北京出差，顺便给妈妈买一些花生糖。', word: '北京', question: '我要给妈妈买什么花生糖？' },
  { text: '来週、東京で友達とピーナッツバターのお店に行きます。', word: 'ピーナッツ', question: '東京で友達とどこに行きますか？' },
  { text: '다음 주에 부산에서 친구들과 바다를 보러 갈 거예요.', word: '부산', question: '부산에서 친구들과 뭐 해요?' },
];

async function say(page: Page, text: string, count: number) {
  await box(page).fill(text);
  await box(page).press('Enter');
  await expect(page.getByTestId('message')).toHaveCount(count, { timeout: 60_000 });
}

test('Chinese, Japanese and Korean turns are found in search and sent with an answer', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: '+ New conversation' }).click();
  for (const [i, t] of TURNS.entries()) await say(page, t.text, i + 1);

  const search = page.getByRole('searchbox', { name: 'Search memory' });
  for (const t of TURNS) {
    await search.fill(t.word);
    const hits = page.getByTestId('search-hit');
    await expect(hits).toHaveCount(1);
    await expect(hits.first()).toContainText(t.text.slice(0, 8));
    await expect(hits.first().locator('mark')).toHaveText(t.word);
  }
  await search.fill('');

  await connectEndpoint(page, mock.url);
  // Ask in another conversation, so the turns can only reach the request through memory.
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await expect(page.getByTestId('message')).toHaveCount(0);
  let count = 0;
  for (const t of TURNS) {
    count += 2;
    await say(page, t.question, count);
    const answer = page.getByTestId('message').last();
    await expect(answer).toContainText('Noted', { timeout: 60_000 });
    await answer.getByRole('button', { name: 'what was sent' }).click();
    const dialog = page.getByRole('dialog', { name: 'What was sent' });
    await expect(dialog.getByTestId('sent-content').filter({ hasText: t.text }).first()).toBeVisible();
    await dialog.getByRole('button', { name: 'Close what was sent' }).click();
    // A native modal leaves the page inert until it has closed: type only after that.
    await expect(dialog).toBeHidden();
  }
});

test('Models says when most of what you write is in a language the model does not cover', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await say(page, '我最近开始学钢琴，每天晚上练习半个小时。', 1);
  await say(page, '我家的猫叫小白，它总是跳到键盘上。', 2);
  await chooseFromMore(page, 'Models');
  const notice = page.getByTestId('language-notice');
  await expect(notice).toContainText('Most of what you write is in Chinese');
  await expect(notice).toContainText('search by words still finds it');
});

test('no language notice for English writing', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await say(page, 'I started piano lessons and practise every evening.', 1);
  await chooseFromMore(page, 'Models');
  await expect(page.getByTestId('embedding-status')).toBeVisible();
  await expect(page.getByTestId('language-notice')).toHaveCount(0);
});
