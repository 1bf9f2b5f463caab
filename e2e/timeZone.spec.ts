import { expect, test } from '@playwright/test';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { connectEndpoint, messageBox as box } from './appSteps';

// The browser reports New York; the user picks Tokyo in Settings; the choice is kept in the memory
// database (it survives a reload) and can be cleared back to the browser's zone.
test.use({ timezoneId: 'America/New_York' });

test('the time zone follows the browser until the user picks one in Settings, and the choice is kept', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const zone = page.getByLabel('Your time zone');
  await expect(zone.locator('option').first()).toHaveText("Browser's (America/New_York)");
  await expect(zone).toHaveValue('');
  await zone.selectOption('Asia/Tokyo');
  await expect(zone).toHaveValue('Asia/Tokyo');

  await page.reload();
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await expect(page.getByLabel('Your time zone')).toHaveValue('Asia/Tokyo');
  await page.getByLabel('Your time zone').selectOption('');
  await page.reload();
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await expect(page.getByLabel('Your time zone')).toHaveValue('');
});

test.describe('one time zone everywhere', () => {
  let mock: MockLlmServer;
  test.beforeAll(async () => {
    mock = await startMockLlmServer({ responder: (req) => (req.stream ? 'Noted.' : synthesisResponder(req)) });
  });
  test.afterAll(async () => mock.close());

  test("the synthesis prompt shows a turn at the hour it was written in the user's zone", async ({ page }) => {
    await page.goto('/');
    await connectEndpoint(page, mock.url, { keepOpen: true });
    await page.getByLabel('Your time zone').selectOption('Asia/Tokyo');
    await page.getByRole('button', { name: 'Close settings' }).click();
    await page.getByRole('button', { name: '+ New conversation' }).click();
    await box(page).fill('I am flying to Lisbon tomorrow for the design conference.');
    await box(page).press('Enter');
    const sentAt = Date.now();
    await expect(page.getByTestId('message')).toHaveCount(2, { timeout: 30_000 });

    await page.getByRole('button', { name: 'Memory', exact: true }).click();
    await page.getByRole('tab', { name: 'Episodes', exact: true }).click();
    await page.getByTestId('memcell-row').first().click();
    await page.getByRole('button', { name: 'Re-synthesise' }).click();
    await expect
      .poll(() => mock.requests.some((r) => JSON.stringify(r.body?.messages ?? '').includes('TURNS:')), { timeout: 30_000 })
      .toBe(true);
    const prompt = mock.requests.map((r) => JSON.stringify(r.body?.messages ?? '')).find((m) => m.includes('TURNS:'))!;
    // The turn's time in Tokyo (the setting), not UTC and not the browser's New York.
    const tokyo = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Tokyo', hour: '2-digit', hourCycle: 'h23' }).format(sentAt);
    const utc = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', hour: '2-digit', hourCycle: 'h23' }).format(sentAt);
    expect(prompt).toContain('(Asia/Tokyo)');
    expect(prompt).not.toContain('(UTC)');
    expect(prompt).toMatch(new RegExp(`\\[1\\] \\w+ \\d+ \\w+ \\d{4}, ${tokyo}:\\d\\d \\| You`));
    if (tokyo !== utc) expect(prompt).not.toMatch(new RegExp(`\\[1\\] \\w+ \\d+ \\w+ \\d{4}, ${utc}:\\d\\d \\| You`));
  });
});
