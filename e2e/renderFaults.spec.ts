/**
 * A piece of the app that cannot be drawn never blanks the page. Every part outside the views —
 * the conversation list, the status line, notices, first run, the memory's state screens, Data's
 * dialogs — has its own error boundary, and one wraps the whole app (main.tsx). Here the engine
 * worker's replies are made the wrong shape (a name or a count that is an object, as a worker of
 * another version could send), which makes React throw while drawing that piece: the piece shows
 * "… could not be shown" with Try again, the rest of the app keeps working (a message is sent and
 * stored), and once the replies are right again Try again fetches the data anew and draws it. (badRows.spec.ts: a damaged
 * row inside a view.)
 */
import { expect, test, type Page } from '@playwright/test';
import { createProject, messageBox as box, printPageOnFailure, sendMessage } from './appSteps';

printPageOnFailure();

type Fault = 'project names' | 'message count';

/**
 * From now on the engine worker's replies carry `fault`: the list of projects with each name an
 * object (only the conversation list draws it), or the memory's stats with the message count an object. Comlink replies with
 * { type: 'RAW', value: Result } through the worker's own postMessage; `healReplies` undoes it.
 */
async function breakReplies(page: Page, fault: Fault): Promise<void> {
  const worker = page.workers().find((w) => w.url().includes('engine.worker'));
  if (!worker) throw new Error('no engine worker');
  await worker.evaluate((which) => {
    type Reply = { type?: string; value?: { ok?: boolean; value?: unknown } } | null;
    const scope = self as unknown as { postMessage(data: unknown, transfer?: Transferable[]): void; healReplies?: () => void };
    const post = scope.postMessage.bind(scope);
    const broken = (value: unknown): unknown => {
      if (
        which === 'project names' &&
        Array.isArray(value) &&
        value.length > 0 &&
        value.every((p) => typeof (p as { name?: unknown })?.name === 'string' && 'archived' in (p as object))
      ) {
        return value.map((p: object) => ({ ...p, name: { broken: true } }));
      }
      if (which === 'message count' && value && typeof value === 'object' && 'databaseBytes' in value && 'messageCount' in value) {
        return { ...value, messageCount: { broken: true } };
      }
      return value;
    };
    scope.postMessage = (data, transfer) => {
      const reply = data as Reply;
      if (reply?.type === 'RAW' && reply.value?.ok === true)
        data = { ...reply, value: { ...reply.value, value: broken(reply.value.value) } };
      post(data, transfer);
    };
    scope.healReplies = () => {
      scope.postMessage = post;
    };
  }, fault);
}

async function healReplies(page: Page): Promise<void> {
  const worker = page.workers().find((w) => w.url().includes('engine.worker'))!;
  await worker.evaluate(() => (self as unknown as { healReplies(): void }).healReplies());
}

test('the conversation list cannot be drawn: it says so in its place, the chat still works, Try again draws it', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/');
  await createProject(page, 'House', 'Shared memory');
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await sendMessage(page, 'The spare key is under the blue flower pot by the back door.');

  await breakReplies(page, 'project names');
  // The next message changes the list, which fetches its projects again: their names cannot be drawn.
  await sendMessage(page, 'The neighbour at number 12 has the other spare key.');
  const notice = page.getByTestId('view-error').filter({ hasText: 'The conversation list could not be shown.' });
  await expect(notice).toBeVisible();
  await expect(notice).toContainText('Your memory is unchanged');
  // Not a blank page: the rest of the app is there and works.
  await expect(page.getByTestId('view-error')).toHaveCount(1);
  await expect(page.getByRole('heading', { name: 'Recollect', level: 1 })).toBeVisible();
  await sendMessage(page, 'The alarm code is written inside the fuse box.');
  await expect(page.getByTestId('message')).toHaveCount(3);
  await expect(page.getByTestId('message-count')).toHaveText('3');

  // Replies right again: Try again fetches the list's data anew (not the bad copy kept in the
  // cache) and draws it.
  await healReplies(page);
  await notice.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByTestId('view-error')).toHaveCount(0);
  await expect(page.getByRole('navigation', { name: 'Conversations' }).locator('button.conversation')).toHaveCount(1);
  await expect(page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'House', exact: true })).toBeVisible();
  expect(errors).toEqual([]);
});

test('the status line cannot be drawn: it says so in its place, the chat still works, Try again draws it', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await sendMessage(page, 'The boiler service is booked for the first Monday of March.');
  await expect(page.getByTestId('message-count')).toHaveText('1');

  await breakReplies(page, 'message count');
  await sendMessage(page, 'The engineer asked for the side gate to be left open.');
  const notice = page.getByTestId('view-error').filter({ hasText: 'The status line could not be shown.' });
  await expect(notice).toBeVisible();
  await expect(page.getByTestId('view-error')).toHaveCount(1);
  await expect(page.getByRole('navigation', { name: 'Conversations' }).locator('button.conversation')).toHaveCount(1);
  await box(page).fill('Still typing while the status line is broken.');
  await expect(box(page)).toHaveValue('Still typing while the status line is broken.');

  // Replies right again; the next message fetches the stats again, and Try again draws them.
  await healReplies(page);
  await box(page).press('Enter');
  await expect(page.getByTestId('message')).toHaveCount(3);
  await notice.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByTestId('view-error')).toHaveCount(0);
  await expect(page.getByTestId('message-count')).toHaveText('3');
});
