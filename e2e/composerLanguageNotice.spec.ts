/**
 * The language notice where the person writes: typing Chinese with the bundled English embedder
 * shows a notice beside the message box, whose one button downloads the multilingual model (from a
 * local hub of random-weight models, test/support/modelHub.ts) and puts it in use, after which the
 * notice is gone. Dismissing is remembered per language; offline it says so instead of offering a
 * download; English shows nothing; the notice passes axe and is reached by keyboard.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { messageBox, openWithModelHub, printPageOnFailure, useModelHub } from './appSteps';
import { chooseFromMore } from './moreMenu';

const E5 = 'Xenova/multilingual-e5-small';
// A real-length turn (≈ 1,100 characters of a person's Chinese writing), not a keyword.
const CHINESE = (
  '我最近开始学钢琴，每天晚上练习半个小时。老师说我的左手还不够稳，所以周末我会多练音阶。' +
  '上个月我和妹妹一起去了杭州，在西湖边走了一整天，吃了很多小笼包，还买了龙井茶送给妈妈。' +
  '下个月公司要派我去北京出差，我想顺便去看看大学时的室友，她现在在一家设计公司工作。'
).repeat(6);
const JAPANESE = '来週、東京で友達とピーナッツバターのお店に行きます。そのあとで美術館にも行く予定です。';
const ENGLISH = 'I started piano lessons last month and practise every evening for half an hour before dinner. '.repeat(10);

const hub = useModelHub();
printPageOnFailure();

const notice = (page: Page) => page.getByTestId('composer-language-notice');
/** Requests for the multilingual model since `from` (the hub is shared by the tests of a file). */
const e5Requests = (from: number) => hub.requests.slice(from).filter((r) => r.startsWith(E5));

async function newConversation(page: Page) {
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await expect(messageBox(page)).toBeVisible();
}

test.beforeEach(() => test.setTimeout(180_000)); // shared 2-core machine; nothing here is timed

test('Chinese in the message box: the notice offers the model that covers it, one click downloads and uses it, then it is gone', async ({
  page,
  context,
}) => {
  const from = hub.requests.length;
  await openWithModelHub(page, context, hub.url);
  await newConversation(page);

  await messageBox(page).fill(ENGLISH);
  await expect(page.getByTestId('embedding-status')).toHaveCount(0);
  // English is what the bundled model covers: nothing is shown (given time to settle).
  await page.waitForTimeout(1_000);
  await expect(notice(page)).toHaveCount(0);

  await messageBox(page).fill(CHINESE);
  await expect(notice(page)).toContainText('You are writing in Chinese');
  await expect(notice(page)).toContainText('multilingual-e5-small covers it');
  const axe = await new AxeBuilder({ page }).include('[data-testid="composer-language-notice"]').analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`)).toEqual([]);

  // Sending keeps the notice (it follows what was written, not the now-empty box).
  await messageBox(page).press('Enter');
  await expect(page.getByTestId('message')).toHaveCount(1, { timeout: 60_000 });
  await expect(notice(page)).toBeVisible();

  expect(e5Requests(from)).toEqual([]); // nothing until asked
  hub.slowOnnxMs = 1_500;
  await notice(page).getByRole('button', { name: 'Download multilingual-e5-small and use it' }).click();
  await expect(notice(page).getByRole('progressbar', { name: 'Downloading multilingual-e5-small' })).toBeVisible();
  hub.slowOnnxMs = 0;
  await expect(notice(page)).toHaveCount(0, { timeout: 120_000 });
  expect(e5Requests(from).some((r) => r.startsWith(`${E5}/resolve/main/onnx/`))).toBe(true);

  // The model is the one in use: Models says so, and what was written is embedded with it.
  await chooseFromMore(page, 'Models');
  await expect(page.getByTestId('embedding-status')).toContainText('Search by meaning uses multilingual-e5-small', { timeout: 120_000 });
  await expect(page.getByTestId('embedded-count')).toHaveText('1', { timeout: 60_000 });
  await page.getByRole('button', { name: 'Close models' }).click();

  // Still covered after a reload: Chinese typed again shows no notice.
  await page.reload();
  await messageBox(page).fill(CHINESE);
  await page.waitForTimeout(1_000);
  await expect(notice(page)).toHaveCount(0);
});

test('dismissed by keyboard, remembered for that language across a reload, still shown for another', async ({ page, context }) => {
  const from = hub.requests.length;
  await openWithModelHub(page, context, hub.url);
  await newConversation(page);
  await messageBox(page).fill(CHINESE);
  await expect(notice(page)).toBeVisible();

  // Keyboard: the notice sits just before the box; Shift+Tab walks back into its buttons.
  await messageBox(page).focus();
  const dismiss = notice(page).getByRole('button', { name: /^Dismiss this notice for Chinese/ });
  for (let i = 0; i < 4 && !(await dismiss.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Shift+Tab');
  await expect(dismiss).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(notice(page)).toHaveCount(0);

  await page.reload();
  await messageBox(page).fill(CHINESE);
  await page.waitForTimeout(1_000);
  await expect(notice(page)).toHaveCount(0);

  await messageBox(page).fill(JAPANESE);
  await expect(notice(page)).toContainText('You are writing in Japanese');
  expect(e5Requests(from)).toEqual([]);
});

test('offline, with the model not downloaded: the notice says so and offers no download', async ({ page, context }) => {
  const from = hub.requests.length;
  await openWithModelHub(page, context, hub.url);
  await newConversation(page);
  await context.setOffline(true);
  await messageBox(page).fill(CHINESE);
  await expect(notice(page)).toContainText('you are offline: it can be downloaded once you are back online');
  await expect(notice(page).getByRole('button', { name: /Download/ })).toHaveCount(0);
  await context.setOffline(false);
  await expect(notice(page).getByRole('button', { name: 'Download multilingual-e5-small and use it' })).toBeVisible();
  expect(e5Requests(from)).toEqual([]);
});
