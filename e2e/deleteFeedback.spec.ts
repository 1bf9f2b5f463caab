/**
 * A deletion the person waits for says so: after "Delete conversation" (or "Delete message") is
 * confirmed, the dialog stays with its button reading "Deleting…", both buttons disabled and Escape
 * refused, until the row is gone; a deletion that fails says why in the dialog and can be tried
 * again, losing nothing. The engine worker's OPFS calls are slowed (each flush holds the worker
 * 1.5 s) or made to fail from inside the worker, so the state in between is there to be seen
 * whatever the machine's speed; nothing here times anything.
 */
import { expect, test, type Page, type Worker } from '@playwright/test';
import { messageBox, sendMessage } from './appSteps';

const FIRST =
  'The boiler in the cellar was serviced on the fourth of March; the engineer said the pressure valve should be checked again before winter, and that the flue needs a sweep every second year. '.repeat(
    6,
  );
const SECOND = 'Remind me to water the ferns by the north window on Sunday morning, and to repot the basil.';

async function engineWorker(page: Page): Promise<Worker> {
  await expect.poll(() => page.workers().some((w) => w.url().includes('engine'))).toBe(true);
  return page.workers().find((w) => w.url().includes('engine'))!;
}

/** Makes every OPFS flush of the engine worker take `ms` (a busy wait: sync access handles are synchronous). */
async function slowFlushes(worker: Worker, ms: number): Promise<void> {
  await worker.evaluate((wait) => {
    const proto = (self as unknown as { FileSystemSyncAccessHandle: { prototype: Record<string, unknown> } }).FileSystemSyncAccessHandle
      .prototype;
    const g = self as unknown as { __flush?: unknown };
    g.__flush ??= proto.flush;
    const original = g.__flush as (...a: unknown[]) => unknown;
    proto.flush = function (this: unknown, ...args: unknown[]) {
      const end = Date.now() + wait;
      while (Date.now() < end) {
        /* hold the worker */
      }
      return original.apply(this, args);
    };
  }, ms);
}

/** Makes every OPFS write of the engine worker fail (as a disk that went away would), or work again. */
async function failingWrites(worker: Worker, fail: boolean): Promise<void> {
  await worker.evaluate((on) => {
    const proto = (self as unknown as { FileSystemSyncAccessHandle: { prototype: Record<string, unknown> } }).FileSystemSyncAccessHandle
      .prototype;
    const g = self as unknown as { __write?: unknown };
    g.__write ??= proto.write;
    const original = g.__write as (...a: unknown[]) => unknown;
    proto.write = on
      ? () => {
          throw new DOMException('The device is not ready.', 'InvalidStateError');
        }
      : original;
  }, fail);
}

async function twoConversations(page: Page) {
  await page.goto('/');
  await expect(page.getByTestId('status')).toBeVisible();
  for (const text of [FIRST, SECOND]) {
    await page.getByRole('button', { name: '+ New conversation' }).click();
    await expect(messageBox(page)).toBeVisible();
    await sendMessage(page, text);
  }
  await expect(page.locator('button.conversation')).toHaveCount(2);
}

test('a conversation being deleted says "Deleting…" with its buttons disabled until its row is gone', async ({ page }) => {
  await twoConversations(page);
  const rows = page.locator('button.conversation');
  const title = (await rows.first().locator('.title').textContent())!;
  await rows.first().click();
  await slowFlushes(await engineWorker(page), 1_500);
  await page.getByRole('button', { name: `Delete ${title}`, exact: true }).click();
  const dialog = page.getByRole('alertdialog', { name: 'Delete conversation' });
  await dialog.getByRole('button', { name: 'Delete conversation', exact: true }).click();
  // While it runs: said, and nothing can be clicked twice or cancelled half-way.
  await expect(dialog.getByRole('button', { name: 'Deleting…', exact: true })).toBeDisabled();
  await expect(dialog.getByRole('button', { name: 'Cancel', exact: true })).toBeDisabled();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Deleting…', exact: true })).toBeVisible();
  // Then it is done: the row and the dialog go.
  await expect(rows).toHaveCount(1, { timeout: 60_000 });
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('navigation', { name: 'Conversations' })).not.toContainText(title);
});

test('a message being deleted says "Deleting…"; a deletion that fails says so and can be tried again', async ({ page }) => {
  await twoConversations(page);
  await page.locator('button.conversation').filter({ hasText: 'Remind me' }).click();
  await messageBox(page).fill('And the gutters need clearing after the leaves fall.');
  await messageBox(page).press('Enter');
  const messages = page.getByTestId('message');
  await expect(messages).toHaveCount(2);
  const worker = await engineWorker(page);

  // A write that fails: the dialog says so, the message is still there, Try again works once the disk does.
  await failingWrites(worker, true);
  await messages.last().getByRole('button', { name: 'Delete message' }).click();
  const dialog = page.getByRole('alertdialog', { name: 'Delete message' });
  await dialog.getByRole('button', { name: 'Delete message', exact: true }).click();
  await expect(dialog.getByRole('alert')).toContainText(/could not|error/i);
  await expect(dialog.getByRole('button', { name: 'Try again', exact: true })).toBeEnabled();
  await expect(messages).toHaveCount(2);
  await failingWrites(worker, false);

  await slowFlushes(worker, 1_500);
  await dialog.getByRole('button', { name: 'Try again', exact: true }).click();
  await expect(dialog.getByRole('button', { name: 'Deleting…', exact: true })).toBeDisabled();
  await expect(dialog.getByRole('button', { name: 'Cancel', exact: true })).toBeDisabled();
  await expect(messages).toHaveCount(1, { timeout: 60_000 });
  await expect(dialog).toBeHidden();
  await expect(messages.first()).toContainText('Remind me to water the ferns');
});
