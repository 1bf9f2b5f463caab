/**
 * Settings → This device: the list of models to download fits the Settings dialog on a desktop
 * and on a phone. Every model's size, languages, licence, speed and Download button are inside the
 * dialog's visible width: nothing in the dialog scrolls sideways (it once did: the notes did not wrap
 * and the table was 2,975 px wide in a 638 px dialog, with Download off-screen and no cue).
 */
import { expect, test, type Page } from '@playwright/test';

/** Elements from the list of models up to the dialog (both included) that are wider inside than they show. */
async function sidewaysScrollers(page: Page): Promise<string[]> {
  return page.getByRole('list', { name: 'Models to download' }).evaluate((list) => {
    const out: string[] = [];
    for (let el: Element | null = list; el; el = el.parentElement) {
      // One pixel of rounding is not a scroller.
      if (el.scrollWidth > el.clientWidth + 1)
        out.push(`${el.tagName.toLowerCase()}.${el.className}: ${el.scrollWidth} > ${el.clientWidth}`);
      if (el.tagName === 'DIALOG') break;
    }
    return out;
  });
}

for (const [name, size] of [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }],
] as const) {
  test(`the list of models fits the Settings dialog on a ${name}, Download buttons in view`, async ({ page }) => {
    await page.setViewportSize(size);
    await page.goto('/');
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    const section = dialog.getByRole('region', { name: 'This device' });
    const downloads = section.getByRole('button', { name: /^Download / });
    await expect(downloads.first()).toBeAttached();
    expect(await downloads.count()).toBeGreaterThan(1);

    expect(await sidewaysScrollers(page)).toEqual([]);
    const box = await dialog.evaluate((d) => {
      const r = d.getBoundingClientRect();
      return { left: r.left + d.clientLeft, right: r.left + d.clientLeft + d.clientWidth };
    });
    for (const button of await downloads.all()) {
      // Scrolled into view vertically only: the dialog scrolls down, never sideways.
      await button.evaluate((b) => b.scrollIntoView({ block: 'center', inline: 'nearest' }));
      expect(await dialog.evaluate((d) => d.scrollLeft)).toBe(0);
      const r = (await button.boundingBox())!;
      expect(r.x, (await button.textContent()) ?? '').toBeGreaterThanOrEqual(box.left);
      expect(r.x + r.width, (await button.textContent()) ?? '').toBeLessThanOrEqual(box.right);
      await expect(button).toBeInViewport();
    }
    // Each model still says its size, languages, licence and speed, inside the dialog's width.
    const rows = section.getByTestId(/^device-model-/);
    expect(await rows.count()).toBe(await downloads.count());
    for (const row of await rows.all()) {
      await expect(row).toContainText(/\d+(\.\d+)? (MB|GB)/);
      await expect(row).toContainText('Apache-2.0');
      const r = await row.evaluate((el) => ({ right: el.getBoundingClientRect().right, wide: el.scrollWidth > el.clientWidth + 1 }));
      expect(r.wide).toBe(false);
      expect(r.right).toBeLessThanOrEqual(box.right);
    }
    await page.screenshot({ path: `test-results/device-models-${name}.png` });
  });
}
