/**
 * Accessibility of every view: axe-core over the app holding a fixture memory (e2e/fixtureMemory.ts:
 * conversations of 10 long turns, ≈ 2 episodes each, facts, plans, saved memories and a cost
 * ledger) and a chat answer with a long code block, a wide table and a nested list under a long
 * pasted question, in light and dark, on a desktop (1280×800) and a phone (390×844). Every dialog is opened
 * — Import memory, the restore prompt, Import chat history, Import memory… at its preview, Export
 * memory…, What was sent, Settings, Models with a download in progress (the local model hub holds the model file until the audits are done), each
 * delete confirmation and Delete all — and an episode's detail, and the explorer's long lists are
 * scrolled to their end. No violation of any impact is allowed (critical, serious, moderate or
 * minor).
 *
 * Two sizes of memory, the same views and checks:
 * - in `npm test`, 120 conversations (1,200 turns, ≈ 250 episodes, ≈ 500 facts): enough for every
 *   list to page (the episode list past its first 200, a second page of facts);
 * - `npm run test:a11y-full` (A11Y_FULL=1), the memory at the size of daily use: 470 conversations,
 *   4,700 turns, ≈ 940 episodes. Most of an audit's time is the colour-contrast rule over large
 *   lists, so this run takes several times as long.
 *
 * Every view is audited in both themes and at both sizes, but not in all four combinations: at
 * one size a view is audited in one theme and at the other size in the other theme, the theme
 * chosen per view from its name (themeAt). So each view's light and dark colours are both checked,
 * its desktop and phone layouts are both checked, and each size sees both themes over its views
 * (about half each), which covers what a size shows in every view (the desktop's sidebar and status
 * line, the phone's top bar) in both themes. The dark theme only swaps the colour custom
 * properties (styles.css), and names, roles, regions and focus order do not depend on the theme.
 * The conversation list, which each size shows on its own background (the desktop's sidebar on
 * the page colour, the phone's drawer on the panel colour), is audited in both themes at each size:
 * in the desktop's chat view and in the phone's drawer.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { buildTestHub, startModelHub, type ModelHub } from '../test/support/modelHub';
import { connectEndpoint, messageBox as box, scanTinyChatGptExport } from './appSteps';
import { sizedFixture, writeUnsynthesisedMemory } from './fixtureMemory';
import { chooseFromMore, moreButton } from './moreMenu';

const MINILM = 'Xenova/all-MiniLM-L6-v2';

/**
 * The answer in the chat holds what answers hold and a phone cannot show in its width: a long code
 * block and a wide table (both scroll sideways inside the message, so both must be focusable), and
 * a nested list; the question is a long paste of real length.
 */
const WIDE_ROW = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
const ANSWER = [
  'You planned to start with the **raised beds** [1]. Your watering script, tidied so each bed gets its share:',
  '',
  '```python',
  'def water(beds: list[str], litres_per_bed: float = 12.0, days: tuple[str, ...] = ("monday", "wednesday", "friday", "sunday"), start_hour: int = 6) -> dict[str, float]:',
  '    # Spread the week of water over the beds on the given days, starting early before the sun is on the south fence.',
  '    per_day = {day: {bed: litres_per_bed / len(days) for bed in beds} for day in days}  # the same share every watering day, whatever the forecast says',
  '    return {bed: sum(per_day[day][bed] for day in days) for bed in beds}',
  '```',
  '',
  WIDE_ROW(['Bed', 'Crop', 'Sown', 'Transplanted', 'First harvest', 'Water (l/week)', 'Compost', 'Companion', 'Pests seen', 'Notes']),
  WIDE_ROW(Array.from({ length: 10 }, () => '---')),
  WIDE_ROW([
    'South fence',
    'Tomatoes (San Marzano)',
    '12 March',
    '20 April',
    'mid July',
    '12',
    'two buckets',
    'basil',
    'aphids once',
    'stake them before the first truss',
  ]),
  WIDE_ROW([
    'By the shed',
    'Runner beans',
    '1 May',
    'sown in place',
    'early August',
    '10',
    'one bucket',
    'sweetcorn',
    'none yet',
    'canes up before sowing',
  ]),
  WIDE_ROW([
    'Raised bed 3',
    'Lettuce and rocket',
    'every two weeks',
    'sown in place',
    'June onward',
    '8',
    'half a bucket',
    'radish',
    'slugs',
    'shade cloth in August',
  ]),
  '',
  '1. Move the compost behind the raised beds before April.',
  '2. Sow the tomatoes indoors in March:',
  '   - keep the seedlings on the south window sill;',
  '   - harden them off for a week before planting out.',
  '3. Put the canes up by the shed before the beans go in.',
].join('\n');

/** A question pasted from a notes file, ≈1,100 characters, as people ask. */
const LONG_QUESTION = `What did I decide about the raised beds? Here are my notes from the weekend:\n\n${'The south fence gets sun from ten until four, so the tomatoes go there again this year, with basil between them. The shed side is shadier in the morning, which suited the beans last summer, and the compost heap can move behind the raised beds once the ground is dry enough to wheel the barrow across. '.repeat(
  3,
)}`;

/** The memory audited: small in `npm test`, the daily-use size with A11Y_FULL=1 (`npm run test:a11y-full`). */
const MEMORY = sizedFixture(process.env.A11Y_FULL ? 470 : 120);

let mock: MockLlmServer;
let hub: ModelHub;
test.beforeAll(async () => {
  test.setTimeout(300_000); // building the fixture memory takes a minute or more on a busy machine
  await MEMORY.ensure();
  await buildTestHub();
  hub = await startModelHub();
  mock = await startMockLlmServer({ responder: (req) => (req.stream ? ANSWER : synthesisResponder(req)) });
});
test.afterAll(async () => {
  await mock?.close();
  await hub?.close();
});

/**
 * axe over the page. The conversation list (470 rows at full size) is most of the DOM and the same
 * in every view: it is audited in the views that are about it (first run, chat, the phone's drawer) and left out of
 * the others, which keeps the sweep to minutes rather than most of an hour.
 */
async function audit(page: Page, view: string, withList: boolean): Promise<string[]> {
  const builder = new AxeBuilder({ page });
  const result = await (withList ? builder : builder.exclude('#conversation-list')).analyze();
  return result.violations.map(
    (v) =>
      `${view}: ${v.id} (${v.impact ?? 'no impact'}) ${v.nodes
        .slice(0, 3)
        .map((n) => n.target.join(' '))
        .join(' | ')}`,
  );
}

const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

const THEMES = ['light', 'dark'] as const;

/**
 * The theme a view is audited in at the size at `sizeIndex`: a fixed pick from the view's name
 * for the first size and the other theme for the second, so each view gets both.
 */
function themeAt(view: string, sizeIndex: number): (typeof THEMES)[number] {
  let h = 0;
  for (const c of view) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return THEMES[(h + sizeIndex) % 2]!;
}

for (const [sizeIndex, size] of SIZES.entries()) {
  test(`every view and dialog over ${MEMORY.conversations} conversations has no axe violations, light and dark, ${size.name}`, async ({
    page,
    context,
  }, info) => {
    // ≈ 30 axe runs: over a 470-conversation DOM, 10+ minutes on a busy 2-core machine.
    test.setTimeout(MEMORY.conversations > 200 ? 1_800_000 : 600_000);
    await page.setViewportSize({ width: size.width, height: size.height });
    await context.addInitScript((url) => localStorage.setItem('recollect.model-hub', url), hub.url);
    const problems: string[] = [];
    const audited = new Set<string>();
    /**
     * The view as it stands, in this size's theme for it (themeAt; the other size audits the
     * other), or in both (`bothThemes`).
     */
    const check = async (view: string, withList = false, bothThemes = false) => {
      expect(audited.has(view), `"${view}" is audited once per size`).toBe(false);
      audited.add(view);
      for (const colorScheme of bothThemes ? THEMES : [themeAt(view, sizeIndex)]) {
        await page.emulateMedia({ colorScheme });
        const found = await audit(page, `${view} (${size.name} ${colorScheme})`, withList);
        if (found.length) console.log(found.join('\n')); // seen even if a later step fails
        problems.push(...found);
      }
    };
    const phone = size.name === 'phone';
    const openChats = async () => {
      if (phone && (await page.getByRole('button', { name: 'Chats' }).getAttribute('aria-expanded')) !== 'true')
        await page.getByRole('button', { name: 'Chats' }).click();
    };
    const escape = async (dialog: ReturnType<Page['getByRole']>) => {
      await page.keyboard.press('Escape');
      await expect(dialog).toBeHidden();
    };

    await page.goto('/');
    await check('first run', true);

    // The restore prompt: a file whose turns are not synthesised.
    const unsynthesised = info.outputPath('unsynthesised.sqlite');
    await writeUnsynthesisedMemory(unsynthesised);
    await page.getByLabel('Import database file').setInputFiles(unsynthesised);
    await page.getByRole('button', { name: 'Replace memory' }).click();
    const restore = page.getByRole('dialog', { name: 'Synthesise the restored memory?' });
    await expect(restore.getByTestId('restore-estimate-eager')).toBeVisible({ timeout: 60_000 });
    await check('restore prompt');
    await escape(restore);

    // Import memory: the confirmation before the fixture replaces it.
    await page.getByLabel('Import database file').setInputFiles(MEMORY.file);
    const importDialog = page.getByRole('dialog', { name: 'Import memory' });
    await expect(importDialog).toBeVisible();
    await check('import memory');
    await importDialog.getByRole('button', { name: 'Replace memory' }).click();
    await expect(
      page.getByText(`Imported ${MEMORY.turns.toLocaleString('en-US')} messages in ${MEMORY.conversations} conversations`),
    ).toBeVisible({ timeout: 120_000 });

    // The chat: the newest conversation, a question answered from memory.
    await connectEndpoint(page, mock.url);
    await openChats();
    const rows = page.locator('button.conversation');
    await expect(rows).toHaveCount(MEMORY.conversations);
    if (phone) {
      await page.locator('#conversation-list').evaluate((el) => el.closest('.sidebar')?.scrollTo(0, 1e9));
      await check('conversation drawer, scrolled to its end', true, true);
    }
    await rows.first().click();
    await expect(page.getByTestId('message')).toHaveCount(10);
    await box(page).fill(LONG_QUESTION);
    await box(page).press('Enter');
    await expect(page.getByTestId('message')).toHaveCount(12, { timeout: 60_000 });
    await expect(page.getByTestId('streaming-answer')).toBeHidden({ timeout: 60_000 });
    // The desktop's sidebar list sits on the page's colour, the phone's drawer on the panel's: each
    // size's list is audited in both themes (here on the desktop, in the drawer above on the phone).
    // The answer's code block and table are there, each a focusable region that scrolls sideways.
    const answer = page.getByTestId('message').last();
    await expect(answer.getByRole('group', { name: 'Code block' })).toHaveAttribute('tabindex', '0');
    await expect(answer.getByRole('group', { name: 'Table' })).toBeVisible();
    await check('chat', true, !phone);

    await page.getByTestId('message').last().getByRole('button', { name: 'what was sent' }).click();
    const sent = page.getByRole('dialog', { name: 'What was sent' });
    await expect(sent.getByTestId('sent-content').first()).toBeVisible();
    await check('what was sent');
    await escape(sent);

    await page.getByTestId('message').first().getByRole('button', { name: 'Delete message' }).click();
    const deleteMessage = page.getByRole('alertdialog', { name: 'Delete message' });
    await expect(deleteMessage).toBeVisible();
    await check('delete message');
    await escape(deleteMessage);

    await openChats();
    await rows.first().focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter'); // the row's Delete
    const deleteConversation = page.getByRole('alertdialog', { name: 'Delete conversation' });
    await expect(deleteConversation).toBeVisible();
    await check('delete conversation');
    await escape(deleteConversation);
    // Archive the first row from its actions: the Archived view is audited, then it is unarchived.
    const archivedTitle = (await rows.first().locator('.title').textContent())!;
    await page.getByRole('button', { name: `Archive ${archivedTitle}`, exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Archived (1)' }).click();
    const archivedView = page.getByRole('dialog', { name: 'Archived conversations' });
    await expect(archivedView.getByRole('listitem')).toHaveCount(1);
    await check('archived conversations');
    await archivedView.getByRole('button', { name: `Unarchive ${archivedTitle}`, exact: true }).click();
    await expect(archivedView).toContainText('Nothing is archived.');
    await escape(archivedView);
    await expect(rows).toHaveCount(MEMORY.conversations);
    if (phone) await page.getByRole('button', { name: 'Chats' }).click();

    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const settings = page.getByRole('dialog', { name: 'Settings' });
    await expect(settings.getByRole('region', { name: 'New conversations' })).toBeVisible();
    await check('settings');
    await escape(settings);

    // The top bar's More menu, open (both themes: its panel is drawn over the page).
    await moreButton(page).click();
    const moreMenu = page.getByRole('menu', { name: 'More' });
    await expect(moreMenu.getByRole('menuitem').first()).toBeFocused();
    await check('More menu', false, true);
    await page.keyboard.press('Escape');
    await expect(moreMenu).toBeHidden();

    // Models, with a download held half-way by the model hub.
    const release = hub.holdOnnx();
    await chooseFromMore(page, 'Models');
    const models = page.getByRole('dialog', { name: 'Models' });
    const row = models.getByTestId(`model-embedder-${MINILM}`);
    await row.getByRole('button', { name: /Download/ }).click();
    await expect(row.getByRole('progressbar', { name: /Downloading/ })).toBeVisible({ timeout: 60_000 });
    await check('models, a download in progress');
    release();
    await expect(row.getByRole('button', { name: 'Use' })).toBeVisible({ timeout: 60_000 });
    await escape(models);

    // Import chat history, at its scan of a small ChatGPT export.
    await scanTinyChatGptExport(page);
    await check('import chat history');
    await escape(page.getByRole('dialog', { name: 'Import chat history' }));

    await page.getByLabel('Search memory').fill('raised beds');
    await expect(page.getByTestId('search-hit').first()).toBeVisible();
    await check('search results');
    await page.getByLabel('Search memory').fill('');

    await openChats();
    await page.getByRole('button', { name: 'Temporary chat' }).click();
    await check('temporary chat');
    await page.getByRole('button', { name: 'Leave', exact: true }).click();

    // The memory explorer.
    await page.getByRole('button', { name: 'Memory', exact: true }).click();
    const tab = (name: string) => page.getByRole('tab', { name, exact: true }).click();
    await tab('Overview');
    await expect(page.getByRole('region', { name: 'LLM spend by stage' })).toBeVisible();
    await check('explorer Overview');

    await tab('Episodes');
    const count = page.getByTestId('episode-count');
    await expect(count).toHaveText(/loaded$/);
    const list = page.getByRole('list', { name: 'Episodes' });
    while (/loaded/.test((await count.textContent()) ?? '')) {
      const before = await count.textContent();
      await list.evaluate((el) => el.scrollTo(0, el.scrollHeight));
      await expect(count).not.toHaveText(before!);
    }
    await list.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await check('explorer Episodes, scrolled to the oldest');
    await list.evaluate((el) => el.scrollTo(0, 0));
    // Not the newest: the question above may have opened a new episode without facts.
    await page.getByTestId('memcell-row').nth(5).click();
    await expect(page.getByTestId('fact').first()).toBeVisible();
    await check('episode detail');
    await page.getByTestId('fact').first().getByRole('button', { name: 'Delete fact' }).click();
    const deleteFact = page.getByRole('alertdialog', { name: 'Delete fact' });
    await expect(deleteFact).toBeVisible();
    await check('delete fact');
    await escape(deleteFact);
    await page.getByRole('button', { name: 'Delete episode' }).click();
    const deleteEpisode = page.getByRole('alertdialog', { name: 'Delete episode' });
    await expect(deleteEpisode).toBeVisible();
    await check('delete episode');
    await escape(deleteEpisode);

    // The Summary: made (by the endpoint, or from the items if its reply is not a summary), then swept.
    await tab('Summary');
    await page.getByRole('button', { name: /^(Make summary|Refresh)$/ }).click();
    await expect(page.getByTestId('summary-sentence').first()).toBeVisible({ timeout: 60_000 });
    await check('explorer Summary');

    await tab('Saved memories');
    const saved = page.getByTestId('saved-item');
    await expect(saved.first()).toBeVisible();
    await page.getByRole('button', { name: /^Show [\d,]+ more facts/ }).click();
    // Pages of 250: the second page, or the end of a smaller memory's facts.
    await expect(page.getByTestId('fact-count')).toHaveText(/^\(500 of |^\((\d[\d,]*) of \1\)$/);
    await saved.last().scrollIntoViewIfNeeded();
    await check('explorer Saved memories, two pages of facts');
    await saved
      .first()
      .getByRole('button', { name: /^Delete “/ })
      .click();
    const deleteSaved = page.getByRole('alertdialog', { name: 'Delete saved memory' });
    await expect(deleteSaved).toBeVisible();
    await check('delete saved memory');
    await escape(deleteSaved);
    await page.getByRole('button', { name: 'Delete all…' }).click();
    const deleteAll = page.getByRole('alertdialog', { name: 'Delete all saved memories' });
    await expect(deleteAll.getByTestId('delete-all-summary')).toBeVisible();
    await check('delete all saved memories');
    await escape(deleteAll);

    // Import memory…, at its preview of a pasted list; Export memory….
    await page.getByTestId('saved-memories').getByRole('button', { name: 'Import memory…' }).click();
    const carryIn = page.getByRole('dialog', { name: 'Import memories from another assistant' });
    await carryIn
      .getByLabel('Memories to import')
      .fill(
        '[2025-01-14] - Prefers metric units.\n[unknown] - Plans to repaint the shed next spring.\n[2025-02-02] - The allotment is plot 14.',
      );
    await carryIn.getByRole('button', { name: 'Preview' }).click();
    await expect(carryIn.getByTestId('carry-item')).toHaveCount(3);
    await check('import memories preview');
    await escape(carryIn);
    await page.getByTestId('saved-memories').getByRole('button', { name: 'Export memory…' }).click();
    const carryOut = page.getByRole('dialog', { name: 'Export memories' });
    await expect(carryOut).toBeVisible();
    await check('export memories');
    await escape(carryOut);

    await tab('Profile');
    const profile = page.getByTestId('profile-item');
    await expect(profile.first()).toBeVisible();
    await check('explorer Profile');
    const key = (await profile.first().locator('strong').first().textContent())!;
    await profile
      .first()
      .getByRole('button', { name: `Delete ${key}`, exact: true })
      .click();
    const deleteProfile = page.getByRole('alertdialog', { name: 'Delete profile item' });
    await expect(deleteProfile).toBeVisible();
    await check('delete profile item');
    await escape(deleteProfile);

    await tab('Timeline');
    await expect(page.getByTestId('timeline-range')).toContainText('episode');
    await check('explorer Timeline');
    await page.getByRole('button', { name: 'All of it' }).click();
    await check('explorer Timeline, all of it');

    await tab('Themes');
    await expect(page.getByTestId('scene-row').first()).toBeVisible();
    await page.getByTestId('scene-row').first().click();
    await expect(page.getByTestId('scene-detail')).toBeVisible();
    await check('explorer Themes, one opened');

    await tab('Foresight');
    await expect(page.getByTestId('foresight-item').first()).toBeVisible();
    await check('explorer Foresight');

    await tab('Search');
    await page.getByLabel('Search all memory').fill('raised beds');
    await expect(page.getByTestId('memory-hit').first()).toBeVisible();
    await check('explorer Search');

    await tab('Forget');
    await page.getByLabel('Forget everything about').fill('raised beds');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await expect(page.locator('.forget-list li').first()).toBeVisible();
    await check('explorer Forget, what it found');

    expect(problems, problems.join('\n')).toEqual([]);
  });
}
