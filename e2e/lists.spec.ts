/**
 * Lists at daily-use scale (≈ 940 episodes over three years): the Episodes list pages by cursor to
 * its true end, and the timeline opens on now and zooms and pans over the years; Forget says when a
 * kind reaches its review limit; Foresight pages by cursor to its end.
 */
import { expect, test, type Page } from '@playwright/test';
import { fixtureCount, shareFixturePage } from './fixtureMemory';

// Both tests only read the memory: one import serves them.
const sharedPage = shareFixturePage();

/** The memory explorer, from wherever the page is. */
async function openExplorer(page: Page) {
  const memory = page.getByRole('button', { name: 'Memory', exact: true });
  if ((await memory.getAttribute('aria-pressed')) !== 'true') await memory.click();
  await expect(memory).toHaveAttribute('aria-pressed', 'true');
}

test('the Episodes list reaches its last episode and the timeline opens on now and zooms out to the years', async () => {
  test.setTimeout(240_000);
  const page = sharedPage();
  await openExplorer(page);

  await page.getByRole('tab', { name: 'Episodes', exact: true }).click();
  const count = page.getByTestId('episode-count');
  const total = await fixtureCount('memcells');
  expect(total).toBeGreaterThan(500);
  await expect(count).toHaveText(`${total.toLocaleString('en-US')} episodes · 200 loaded`);
  const list = page.getByRole('list', { name: 'Episodes' });
  // Scroll to the bottom until every page is in: the count stops saying "loaded". Each scroll
  // waits for the next page to arrive (the count changes) rather than for a fixed time.
  for (let i = 0; i < 20 && /loaded/.test((await count.textContent()) ?? ''); i++) {
    const before = await count.textContent();
    await list.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await expect(count).not.toHaveText(before!);
  }
  await expect(count).toHaveText(`${total} episodes`);
  await list.evaluate((el) => el.scrollTo(0, el.scrollHeight));
  // The oldest episode (three years back) is the last row.
  const years = (await page.getByTestId('memcell-row').last().textContent())!.match(/\b20\d\d\b/g) ?? [];
  expect(Number(years[0])).toBeLessThanOrEqual(new Date().getFullYear() - 2);

  await page.getByRole('tab', { name: 'Timeline', exact: true }).click();
  const range = page.getByTestId('timeline-range');
  const timeline = page.getByTestId('explorer-timeline');
  await expect(timeline.locator('text.now-text')).toHaveText('now');
  const inView = async () => Number((await range.textContent())!.match(/· (\d[\d,]*) episode/)![1]!.replace(/,/g, ''));
  // The fixture's conversations are spread evenly over three years: three months hold about a
  // twelfth of the episodes; at least half that share is in view.
  await expect.poll(inView).toBeGreaterThan(total / 24);
  const recent = await inView();
  expect(recent).toBeLessThan(total / 4); // three months, not the whole history
  await page.getByRole('button', { name: 'All of it' }).click();
  await expect.poll(inView).toBe(total);
  await expect(timeline.locator('circle.episode-dot')).toHaveCount(total);
  await page.getByRole('button', { name: 'Zoom in' }).click();
  await expect.poll(inView).toBeLessThan(total);
  await page.getByRole('button', { name: '← Earlier' }).click();
  await page.getByRole('button', { name: 'Now' }).click();
  await expect.poll(inView).toBe(recent);
});

test('Forget says when a kind reaches its review limit, and Foresight pages to its end', async () => {
  test.setTimeout(240_000);
  const page = sharedPage();
  await openExplorer(page);

  // "raised beds" is in hundreds of the fixture's turns: more than one review's worth.
  await page.getByRole('tab', { name: 'Forget', exact: true }).click();
  await page.getByLabel('Forget everything about').fill('raised beds');
  await page.getByRole('button', { name: 'Find', exact: true }).click();
  await expect(page.getByTestId('forget-limit')).toContainText('turn');
  await expect(page.locator('.forget-list li .kind.turn')).toHaveCount(50);
  // A word in no item: no notice.
  await page.getByLabel('Forget everything about').fill('zyzzyvaqx');
  await page.getByRole('button', { name: 'Find', exact: true }).click();
  await expect(page.getByText('Nothing remembered mentions “zyzzyvaqx”.')).toBeVisible();
  await expect(page.getByTestId('forget-limit')).toHaveCount(0);

  await page.getByRole('tab', { name: 'Foresight', exact: true }).click();
  const items = page.getByTestId('foresight-item');
  await expect(items.first()).toBeVisible();
  // ≈ 360 plans: the first page of 200 says how many there are, Show more reaches the end.
  const count = page.getByTestId('foresight-count');
  await expect(count).toHaveText(/^200 of \d+ items$/);
  const total = Number((await count.textContent())!.match(/of (\d+)/)![1]);
  await expect(items).toHaveCount(200);
  await page.getByRole('button', { name: /^Show more \(/ }).click();
  await expect(count).toHaveText(`${total} items`);
  await expect(items).toHaveCount(total);
  await expect(page.getByRole('button', { name: /^Show more \(/ })).toHaveCount(0);
});
