/**
 * The top bar keeps what is used daily; Models, Export, Import… and the other imports are items of
 * its "More" menu (src/app/components/MoreMenu.tsx). Specs reach them through here.
 */
import { expect, type Page } from '@playwright/test';

/** The top bar's More button. */
export const moreButton = (page: Page) => page.getByRole('button', { name: 'More', exact: true });

/** Opens the More menu and chooses the item called `name` (exactly). */
export async function chooseFromMore(page: Page, name: string): Promise<void> {
  await moreButton(page).click();
  const menu = page.getByRole('menu', { name: 'More' });
  await expect(menu).toBeVisible();
  await menu.getByRole('menuitem', { name, exact: true }).click();
}
