/**
 * The screens that stand for the memory's state are modal like every dialog of the app:
 * - "Recollect is open in another tab", "Recollect could not open its memory" and "This window
 *   cannot keep a memory" are the platform's modal <dialog> (alertdialog, named by its heading):
 *   Tab stays inside, the app behind is inert (no focus, out of the accessibility tree), and
 *   Escape does not dismiss them — there is nothing behind them to go back to;
 * - "Opening your memory…" leaves one thing usable on purpose, the message box and its Send
 *   button, because a message typed and sent in the first seconds must go through
 *   (e2e/askOnOpen.spec.ts): everything else behind it is inert, and Tab moves only between the
 *   composer's controls (and the browser's own UI).
 * axe finds no violation on any of them.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { messageBox as box, printPageOnFailure, refuseOpfs, sendMessage } from './appSteps';
import { expectModal } from './modal';

// The service worker would serve SQLite's WebAssembly from its cache, past the routes below.
test.use({ serviceWorkers: 'block' });

printPageOnFailure();

const SQLITE_WASM = /\/assets\/wa-sqlite[^/]*\.wasm$/;

async function expectNoAxeViolations(page: Page): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(
    violations.map(
      (v) =>
        `${v.id}: ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join(' | ')}`,
    ),
  ).toEqual([]);
}

/**
 * Whether assistive technology is shown a control named `name`: Chromium's own accessibility tree
 * (Playwright's role locators do not leave out inert content).
 */
async function exposed(page: Page, name: string): Promise<boolean> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    return nodes.some((n) => !n.ignored && n.name?.value === name);
  } finally {
    await cdp.detach();
  }
}

/** The dialog stays after Escape (twice: Chromium forces a close on a second Escape without a click in between). */
async function expectEscapeRefused(page: Page, dialog: ReturnType<Page['getByRole']>): Promise<void> {
  await dialog.getByRole('button').first().focus();
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeVisible();
  await expect.poll(() => dialog.evaluate((d) => d.matches(':modal'))).toBe(true);
}

test('"open in another tab" is modal: Tab stays inside, the app behind is inert, Escape does not dismiss it', async ({ page, context }) => {
  await page.goto('/');
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await sendMessage(page, 'Written from the first tab.');

  const second = await context.newPage();
  await second.goto('/');
  const dialog = second.getByRole('alertdialog', { name: 'Recollect is open in another tab' });
  await expectModal(second, dialog);
  expect(await exposed(second, '+ New conversation')).toBe(false);
  await expectEscapeRefused(second, dialog);
  await expectNoAxeViolations(second);

  // Its button still works: this tab takes over and the dialog goes.
  await dialog.getByRole('button', { name: 'Use Recollect here' }).click();
  await expect(dialog).toBeHidden();
  await expect(second.getByTestId('message-count')).toHaveText('1');
  await expectModal(page, page.getByRole('alertdialog', { name: 'Recollect is open in another tab' }));
});

test('"could not open" is modal: Tab stays inside, the app behind is inert, Escape does not dismiss it', async ({ page, context }) => {
  // SQLite's WebAssembly cannot be fetched: the open fails.
  await context.route(SQLITE_WASM, (route) => route.fulfill({ status: 404, body: 'gone' }));
  await page.goto('/');
  const dialog = page.getByRole('alertdialog', { name: 'Recollect could not open its memory' });
  await expect(dialog).toBeVisible({ timeout: 30_000 });
  await expectModal(page, dialog);
  expect(await exposed(page, 'Settings')).toBe(false);
  await expectEscapeRefused(page, dialog);
  await expectNoAxeViolations(page);
  await expect(dialog.getByRole('button', { name: 'Reload' })).toBeVisible();
});

test('"this window cannot keep a memory" is modal, and its temporary session works', async ({ page, context }) => {
  await refuseOpfs(context);
  await page.goto('/');
  const dialog = page.getByRole('alertdialog', { name: 'This window cannot keep a memory' });
  await expectModal(page, dialog);
  await expectEscapeRefused(page, dialog);
  await expectNoAxeViolations(page);
  await dialog.getByRole('button', { name: 'Use a temporary session' }).click();
  await expect(dialog).toBeHidden();
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await sendMessage(page, 'Kept for this window only.');
});

/** Where focus is: the composer ('composer'), a notice, the browser's own UI ('body'), or elsewhere in the app. */
const focusPlace = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return 'body';
    if (el.closest('form.composer')) return 'composer';
    if (el.closest('.notices')) return 'notice';
    return `app: ${el.tagName.toLowerCase()} ${el.getAttribute('aria-label') ?? el.textContent?.slice(0, 40) ?? ''}`;
  });

test('"Opening your memory…" leaves only the message box usable: Tab stays in the composer, the rest is inert', async ({
  page,
  context,
}) => {
  await page.goto('/');
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await sendMessage(page, 'My bike is the blue one.');

  // Held SQLite WebAssembly: the reload stays on "Opening your memory…" until released.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await context.route(SQLITE_WASM, async (route) => {
    await held;
    await route.continue().catch(() => undefined);
  });
  await page.reload();
  const opening = page.getByRole('status', { name: 'Opening your memory' });
  await expect(opening).toBeVisible();
  await expect(opening).toContainText('Opening your memory…');
  await expect(box(page)).toBeFocused();

  const places: string[] = [];
  for (let i = 0; i < 10; i++) {
    await page.keyboard.press('Tab');
    places.push(await focusPlace(page));
  }
  for (let i = 0; i < 4; i++) {
    await page.keyboard.press('Shift+Tab');
    places.push(await focusPlace(page));
  }
  expect(places.filter((p) => p.startsWith('app:'))).toEqual([]);
  // The header's controls, the conversation list and the messages cannot take focus and are out of the accessibility tree.
  expect(
    await page.evaluate(() =>
      ['header.topbar .search', '.data-actions', '#conversation-list', 'ol.messages'].map((s) => {
        const el = document.querySelector<HTMLElement>(s);
        return el ? el.closest('[inert]') !== null : `${s} missing`;
      }),
    ),
  ).toEqual([true, true, true, true]);
  expect(await exposed(page, '+ New conversation')).toBe(false);
  expect(await exposed(page, 'Settings')).toBe(false);
  expect(await exposed(page, 'Message')).toBe(true);
  await expectNoAxeViolations(page);

  // The message box takes typing, a click and Enter.
  await box(page).click();
  await box(page).fill('What colour is my bike?');
  await box(page).press('Enter');
  release();
  await expect(opening).toBeHidden({ timeout: 30_000 });
  await expect(page.getByTestId('message').filter({ hasText: 'What colour is my bike?' })).toHaveCount(1);
  // Open: nothing is inert any more.
  expect(await page.evaluate(() => document.querySelector('[inert]') === null)).toBe(true);
  await expect(page.getByRole('button', { name: '+ New conversation' })).toBeVisible();
});
