/**
 * Projects through the running app, checked by the requests the mock endpoint actually received:
 * - a project-only project's chats are never sent to an answer outside it, and answers inside it
 *   carry only its memory plus its instructions in the system prompt; a chat moved in with the row
 *   menu follows the project's scope at its next answer; the project has its own address;
 * - a shared project's chats are recalled in any chat, like chats in no project.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { startMockLlmServer, type MockLlmServer } from '../test/llm/mockLlmServer';
import { synthesisResponder } from '../test/support/synthesisResponder';
import { askInNewChat, connectEndpoint, createProject, sendMessage, waitForMessages } from './appSteps';

let mock: MockLlmServer;
test.beforeAll(async () => {
  mock = await startMockLlmServer({
    responder: (req) => (req.stream ? 'Noted, here is what I remember [1].' : synthesisResponder(req)),
  });
});
test.afterAll(async () => mock.close());

/** Real-length turns (≈1,100 characters) with a table and a code block. */
const longTurn = (lead: string) => `${lead}
${'I keep a running log of every change, who made it and why, because last time the details got lost between meetings and we had to redo a week of work. '.repeat(5)}
| step | owner | when |
|---|---|---|
| check | me | Friday |

\`\`\`text
status: in progress
\`\`\``;
const WALLED = longTurn(
  'Thesis notes: the quokka colony on plot seven needs its humidity logger recalibrated before the committee meeting.',
);
const OUTSIDE = longTurn('Home notes: my dog Biscuit is a beagle mix who only eats salmon kibble.');
const SHARED = longTurn('Moving notes: the removal van for the grand piano comes on the ninth of March.');

/** The app connected to the mock endpoint, with one chat in no project (remembered as usual). */
async function startWithChatOutside(page: Page): Promise<void> {
  await page.goto('/');
  await connectEndpoint(page, mock.url);
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await sendMessage(page, OUTSIDE);
  await waitForMessages(page, 2);
}

test("a project-only project's memory stays inside it; a moved chat follows; the project has an address", async ({ page }) => {
  test.setTimeout(180_000);
  await startWithChatOutside(page);

  const address = await createProject(page, 'Thesis', 'Project-only memory', 'Answer in British English and cite the lab notebook.');
  await page.getByRole('button', { name: 'New chat in Thesis' }).first().click();
  await sendMessage(page, WALLED);
  await waitForMessages(page, 2);
  const thesis = page.getByRole('region', { name: 'Project Thesis' });
  await expect(thesis.locator('button.conversation')).toHaveCount(1);

  // Outside the project: the walled turn is never sent, the chat's own memory is.
  const outside = await askInNewChat(
    page,
    mock,
    page.getByRole('button', { name: '+ New conversation' }),
    'What do you remember about the quokka colony humidity logger and my dog Biscuit?',
  );
  expect(outside).toContain('beagle mix');
  expect(outside).not.toMatch(/plot seven|recalibrated|committee meeting/);
  expect(outside).not.toContain('British English');

  // Inside the project: its memory and instructions, nothing from outside.
  const inside = await askInNewChat(
    page,
    mock,
    thesis.getByRole('button', { name: 'New chat in Thesis' }),
    'What do you remember about the quokka colony humidity logger and my dog Biscuit?',
  );
  expect(inside).toContain('plot seven needs its humidity logger recalibrated');
  expect(inside).toContain('Answer in British English and cite the lab notebook.');
  expect(inside).not.toContain('beagle mix');

  // Move the first outside chat into the project with its row menu: its memory goes behind the wall.
  // (Its title may be the endpoint's by now: it is the oldest chat in no project, the list's last row.)
  const first = page.getByRole('list', { name: 'Chats in no project' }).locator('li').last();
  await first.hover();
  await first.getByTitle('Move to a project').click();
  const move = page.getByTestId('move-dialog');
  await move.getByLabel('Project').selectOption({ label: 'Thesis (project-only memory)' });
  await expect(move.getByTestId('move-consequence')).toContainText('recalled only inside “Thesis”');
  await move.getByRole('button', { name: 'Move', exact: true }).click();
  await expect(thesis.locator('button.conversation')).toHaveCount(3);
  expect(
    await askInNewChat(
      page,
      mock,
      page.getByRole('button', { name: '+ New conversation' }),
      'Tell me about my dog Biscuit and what he eats.',
    ),
  ).not.toContain('beagle mix');

  // The project's address opens its page, also after a reload.
  await page.goto(`/${address}`);
  await expect(page.getByTestId('project-view').getByRole('heading', { name: 'Thesis' })).toBeVisible();
  await expect(page.getByTestId('project-memory')).toContainText('Project-only memory');
});

test("a shared project's chats are recalled everywhere, like chats in no project", async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/');
  await connectEndpoint(page, mock.url);
  await createProject(page, 'House move', 'Shared memory', 'Answer with a packing checklist.');
  await page.getByTestId('project-view').getByRole('button', { name: 'New chat in House move' }).click();
  await sendMessage(page, SHARED);
  await waitForMessages(page, 2);

  const outside = await askInNewChat(
    page,
    mock,
    page.getByRole('button', { name: '+ New conversation' }),
    'When does the removal van for the grand piano come?',
  );
  expect(outside).toContain('removal van for the grand piano comes on the ninth of March');
  expect(outside).not.toContain('packing checklist');
});

test("memory views filter by project (in the address), 'What was sent' names each item's scope, and the project dialog is accessible", async ({
  page,
}) => {
  test.setTimeout(180_000);
  await startWithChatOutside(page);

  // The project dialog: no axe violations, its first field focused on open, Esc closes it and gives focus back.
  const opener = page.getByRole('button', { name: '+ New project' });
  await opener.click();
  const dialog = page.getByTestId('project-dialog');
  await expect(dialog.getByLabel('Name')).toBeFocused();
  const axe = await new AxeBuilder({ page }).include('[data-testid="project-dialog"]').analyze();
  expect(axe.violations.map((v) => v.id)).toEqual([]);
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(opener).toBeFocused();

  const projectAddress = await createProject(page, 'Thesis', 'Project-only memory');
  await page.getByRole('button', { name: 'New chat in Thesis' }).first().click();
  await sendMessage(page, WALLED);
  await waitForMessages(page, 2);
  // Asked in a second chat of the project: the first chat's turn is recalled (not part of the history).
  await askInNewChat(
    page,
    mock,
    page.getByRole('region', { name: 'Project Thesis' }).getByRole('button', { name: 'New chat in Thesis' }),
    'What do you remember about the quokka colony humidity logger?',
  );
  await page.getByRole('button', { name: 'what was sent' }).last().click();
  const recalled = page.getByTestId('sent-recalled');
  await expect(recalled.locator('li[data-from="project"]').first()).toContainText('from this project');
  await expect(recalled.locator('li[data-from="shared"]')).toHaveCount(0);
  await page.keyboard.press('Escape');

  // From the project-only project's page, memory opens on the project, and the address says so.
  await page.goto(`/${projectAddress}`);
  await page.getByRole('button', { name: 'Memory of this project' }).click();
  await expect(page).toHaveURL(/#\/memory\/memcells\?project=/);
  await page.getByRole('tab', { name: 'Search' }).click();
  await expect(page).toHaveURL(/#\/memory\/search\?project=/);
  const search = page.getByRole('searchbox', { name: 'Search all memory' });
  await search.fill('quokka colony humidity');
  await expect(page.getByTestId('memory-hit').first()).toBeVisible();
  await page.getByTestId('explorer-project').selectOption('none');
  await expect(page).toHaveURL(/project=none/);
  await search.fill('quokka colony humidity logger');
  await expect(page.getByText('Nothing remembered matches.')).toBeVisible();
  await expect(page.getByTestId('memory-hit')).toHaveCount(0);

  // Forget follows the same picker: chats in no project hold no quokka; the Thesis project does.
  await page.getByRole('tab', { name: 'Forget' }).click();
  await expect(page.getByTestId('forget-project-note')).toContainText('chats in no project');
  const forgetBox = page.getByRole('textbox', { name: 'Forget everything about' });
  await forgetBox.fill('quokka');
  await page.getByRole('button', { name: 'Find', exact: true }).click();
  await expect(page.getByText('Nothing remembered mentions “quokka”.')).toBeVisible();
  await page.getByTestId('explorer-project').selectOption({ label: 'Thesis (project-only)' });
  await expect(page.getByTestId('forget-project-note')).toContainText('this project');
  await expect(page.getByTestId('forget-found')).toContainText('mention “quokka”');

  await page.getByTestId('explorer-project').selectOption('all');
  await expect(page).toHaveURL(/#\/memory\/forget$/);
  await expect(page.getByTestId('forget-project-note')).toHaveCount(0);

  // Tabs that span every chat say so under a filter; Saved memories lists the project's facts and
  // plans, and leaves what is known about you (kept for every chat) to All.
  await page.getByTestId('explorer-project').selectOption({ label: 'Thesis (project-only)' });
  await page.getByRole('tab', { name: 'Themes' }).click();
  await expect(page.getByTestId('whole-memory-note')).toContainText('Themes covers all your memory');
  await page.getByRole('tab', { name: 'Saved memories' }).click();
  await expect(page.getByTestId('whole-memory-note')).toHaveCount(0);
  await expect(page.getByTestId('saved-project-note')).toContainText('facts and plans');
  await expect(page.getByRole('heading', { name: /^Plans ahead/ })).toBeVisible();
  await expect(page.getByRole('heading', { name: /^About you/ })).toHaveCount(0);
});

test('the message search keeps to the chosen project', async ({ page }) => {
  await page.goto('/');
  await createProject(page, 'Greenhouse', 'Shared memory');
  await page.getByTestId('project-view').getByRole('button', { name: 'New chat in Greenhouse' }).click();
  await sendMessage(page, 'The probe under the bench reads humidity every night; the drift is four percent.');
  await page.getByRole('button', { name: '+ New conversation' }).click();
  await sendMessage(page, 'My sister asked about humidity in the attic before the winter.');

  const search = page.getByLabel('Search memory');
  await search.fill('humidity');
  const hits = page.getByTestId('search-hit');
  await expect(hits).toHaveCount(2);
  const project = page.getByRole('combobox', { name: 'Project' });
  await project.selectOption({ label: 'Greenhouse' });
  await expect(hits).toHaveCount(1);
  await expect(hits.first()).toContainText('probe under the bench');
  await project.selectOption({ label: 'No project' });
  await expect(hits).toHaveCount(1);
  await expect(hits.first()).toContainText('attic');
  await project.selectOption({ label: 'All chats' });
  await expect(hits).toHaveCount(2);

  // The sidebar's title search lists what it finds under each project's name, then "No project".
  const titles = page.getByRole('navigation', { name: 'Conversations' });
  await titles.getByRole('searchbox', { name: 'Search conversation titles' }).fill('e');
  const found = titles.getByRole('list', { name: 'Conversations found' });
  await expect(found.getByRole('heading')).toHaveText(['Greenhouse', 'No project']);
  await expect(found.getByRole('list', { name: 'Greenhouse' }).locator('button.conversation')).toHaveCount(1);
  await expect(found.getByRole('list', { name: 'No project' }).locator('button.conversation')).toHaveCount(1);
});
