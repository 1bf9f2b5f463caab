/**
 * The Storage section speaks for every browser: Firefox asks the person (a permission prompt) and
 * has no install on the desktop, so neither the explanation nor the refusal may say installing is
 * the way to persistence in general.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { createElement } from 'react';
import { PERSISTENCE_HELP, PERSISTENCE_REFUSED, StorageInfo } from '../../src/app/components/StorageInfo';

const realNavigator = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
afterEach(() => {
  if (realNavigator) Object.defineProperty(globalThis, 'navigator', realNavigator);
  else delete (globalThis as { navigator?: unknown }).navigator;
});

describe('Storage section wording', () => {
  it('says Firefox asks and Chromium decides, and never that installing is how persistence works everywhere', () => {
    for (const text of [PERSISTENCE_HELP, PERSISTENCE_REFUSED]) {
      expect(text).toMatch(/Firefox/);
      expect(text).toMatch(/Chrome and Edge/);
      expect(text).not.toMatch(/Installing Recollect as an app usually makes it persistent/);
      expect(text).not.toMatch(/may agree after you install Recollect/);
    }
    expect(PERSISTENCE_HELP).toContain('Firefox asks you whether to allow it');
    expect(PERSISTENCE_REFUSED).toContain("site's permissions");
  });

  it('the rendered section shows that explanation', () => {
    Object.defineProperty(globalThis, 'navigator', { value: { storage: { persist: async () => false } }, configurable: true });
    const html = renderToStaticMarkup(createElement(StorageInfo));
    expect(html).toContain('Firefox asks you whether to allow it');
    expect(html).not.toContain('usually makes it persistent');
  });
});
