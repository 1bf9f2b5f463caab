/**
 * A citation of a plan, at daily-use size: the fixture memory's plans fill the Foresight chart
 * (22 px a plan) and list, and a new plan ("next Friday") sorts last. The answer cites it; the
 * citation opens Foresight scrolled to that plan, highlighted and focused, not the top of the chart.
 */
import { expect, test } from '@playwright/test';
import { startMockLlmServer, type MockChatRequest, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { backToChat, connectEndpoint, printPageOnFailure, sendMessage, waitForMessages } from './appSteps';
import { ensureFixtureMemory, importFixtureMemory } from './fixtureMemory';

const PLAN = 'I am flying to Lisbon next Friday.';
/** The number the answer context gave the plan, as the mock model saw it (0: not in the context). */
let citedPlan = 0;

/** Answers citing the Lisbon plan by the number its "Plans and expectations" line has in the prompt. */
function answer(req: MockChatRequest): string {
  const prompt = req.messages.map((m) => m.content).join('\n');
  const plans = prompt.indexOf('Plans and expectations still valid');
  const line = plans >= 0 ? /\[(\d+)\] [^\n]*flying to Lisbon/.exec(prompt.slice(plans)) : null;
  if (!line) return 'Noted, have a good time.';
  citedPlan = Number(line[1]);
  return `You fly to Lisbon next Friday [${citedPlan}].`;
}

let mock: MockLlmServer;
test.beforeAll(async () => {
  await ensureFixtureMemory();
  mock = await startMockLlmServer({ responder: (req) => (req.stream ? answer(req) : synthesisResponder(req)) });
});
test.afterAll(async () => mock.close());
printPageOnFailure();

test('a cited plan opens Foresight scrolled to it, highlighted and focused', async ({ page }) => {
  test.setTimeout(420_000);
  await page.goto('/');
  await importFixtureMemory(page);
  await connectEndpoint(page, mock.url);
  // Foresight at daily-use size: the first page (200) of hundreds of plans, the chart far taller than the window.
  const total = async () => {
    await page.getByRole('button', { name: 'Memory', exact: true }).click();
    await page.getByRole('tab', { name: 'Foresight', exact: true }).click();
    const count = page.getByTestId('foresight-count');
    await expect(count).toHaveText(/^200 of [\d,]+ items$/, { timeout: 60_000 });
    const text = (await count.textContent()) ?? '';
    await backToChat(page);
    return Number(/([\d,]+) items/.exec(text)?.[1]?.replace(/,/g, '') ?? 0);
  };
  const before = await total();
  expect(before).toBeGreaterThan(200);
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await sendMessage(page, PLAN);
  await waitForMessages(page, 2);
  // The plan is remembered; in time order it is last, on a page not yet loaded.
  await expect.poll(total, { timeout: 60_000 }).toBe(before + 1);
  const items = page.getByTestId('foresight-item');

  await sendMessage(page, 'When do I fly to Lisbon?');
  await waitForMessages(page, 4);
  expect(citedPlan).toBeGreaterThan(0);
  await page
    .getByTestId('message')
    .last()
    .getByRole('button', { name: `Source ${citedPlan}`, exact: true })
    .click();

  await expect(page.getByRole('tab', { name: 'Foresight', exact: true })).toHaveAttribute('aria-selected', 'true');
  const chart = page.getByRole('img', { name: /^Timeline of \d+ foresight items/ });
  const chartBox = await chart.boundingBox();
  expect(chartBox!.height).toBeGreaterThan(page.viewportSize()!.height); // the top of the tab shows only chart
  const cited = items.filter({ hasText: 'flying to Lisbon' });
  await expect(cited).toBeInViewport({ ratio: 1 });
  await expect(cited).toBeFocused();
  await expect(cited).toHaveClass(/\bhighlight\b/);
  await expect(cited).toHaveAttribute('aria-current', 'true');
  // The highlight is visible: an outline and a tint other rows do not have.
  const look = await cited.evaluate((el) => ({
    outline: getComputedStyle(el).outlineStyle,
    background: getComputedStyle(el).backgroundColor,
  }));
  const other = await items.first().evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(look.outline).not.toBe('none');
  expect(look.background).not.toBe(other);
  await expect(items.first()).not.toBeInViewport();
});
