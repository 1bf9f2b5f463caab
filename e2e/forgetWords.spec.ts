/**
 * Forget, in the running app, finds the word and only the word: forgetting "Ana" lists the message
 * that names her and the conversation's title, not "Nirvana", "management" or "analysis" (words
 * that hold the letters); nothing starts ticked, the count of what was found and of what is ticked
 * is shown; afterwards the sidebar title no longer holds the word. A word of a script without
 * spaces is found inside its sentence. No endpoint: the messages are stored as they are.
 */
import { expect, test } from '@playwright/test';
import { conversationRow, openSavedMemories, sendMessage } from './appSteps';

test('forgetting "Ana" lists whole-word mentions and the title, nothing ticked, and renames the sidebar title', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/');
  await page.getByRole('button', { name: '+ New conversation' }).click();
  for (const text of [
    'My sister Ana is allergic to peanuts.',
    'We listened to Nirvana all evening.',
    'The Anas ducks were back at the pond.',
    'Time management is hard this month.',
    'The analysis of the panade recipe is done.',
    'Nirvana tribute concert next Friday.',
    '我对花生过敏，妹妹也是。',
  ])
    await sendMessage(page, text);
  await expect(conversationRow(page, 'My sister Ana is allergic to peanuts.')).toBeVisible();

  // A memory added by hand (a profile item): the letters "ana" are in it, the word is not.
  const saved = await openSavedMemories(page);
  await saved.getByLabel('Add a memory').fill('My favourite band is Nirvana, and I read about time management.');
  await saved.getByRole('button', { name: 'Save memory' }).click();
  await expect(saved.getByTestId('saved-item').filter({ hasText: 'favourite band is Nirvana' })).toHaveCount(1);
  await page.getByRole('tab', { name: 'Forget', exact: true }).click();
  await page.getByLabel('Forget everything about').fill('Ana');
  await page.getByRole('button', { name: 'Find', exact: true }).click();
  const listed = page.locator('.forget-list li');
  await expect(listed.filter({ hasText: 'My sister Ana is allergic' }).first()).toBeVisible();
  // Only whole words: the saved memory and the other messages hold the letters, not the word.
  await expect(listed.filter({ hasText: /Nirvana|management|analysis|panade|Anas/ })).toHaveCount(0);
  await expect(listed.filter({ has: page.locator('.kind.turn') })).toHaveText([/My sister Ana is allergic/]);
  await expect(listed.filter({ has: page.locator('.kind.title') })).toHaveText([
    /“My sister Ana is allergic to peanuts\.” becomes “My sister … is allergic to peanuts\.”/,
  ]);
  await expect(listed).toHaveCount(2);
  await expect(page.getByTestId('forget-found')).toContainText('Found 2 items');
  await expect(page.getByTestId('forget-found')).toContainText('1 message, 1 conversation title');

  // Nothing is ticked until the person ticks it.
  await expect(listed.getByRole('checkbox', { checked: true })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Forget 0 items' })).toBeDisabled();
  await page.screenshot({ path: 'test-results/forget-words.png' });
  await page.getByRole('button', { name: 'Tick all 2' }).click();
  await expect(page.getByTestId('forget-chosen')).toHaveText('2 of 2 ticked, to be deleted for good: 1 message, 1 conversation title.');
  await page.getByRole('button', { name: 'Forget 2 items' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Forgotten:' })).toHaveText(/^Forgotten: 1 message, 1 conversation title\./);

  // The sidebar keeps the title without the word; the word-internal mentions stay.
  await expect(conversationRow(page, 'My sister … is allergic to peanuts.')).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Conversations' })).not.toContainText(/\bAna\b/);
  await page.getByLabel('Forget everything about').fill('Ana');
  await page.getByRole('button', { name: 'Find', exact: true }).click();
  await expect(page.getByText('Nothing remembered mentions “Ana”.')).toBeVisible();

  // A Chinese word inside its sentence, with no spaces around it.
  await page.getByLabel('Forget everything about').fill('花生');
  await page.getByRole('button', { name: 'Find', exact: true }).click();
  await expect(listed.filter({ has: page.locator('.kind.turn') })).toHaveText([/我对花生过敏/]);

  // The memory that only held the letters is still saved.
  await expect((await openSavedMemories(page)).getByTestId('saved-item').filter({ hasText: 'favourite band is Nirvana' })).toHaveCount(1);
});
