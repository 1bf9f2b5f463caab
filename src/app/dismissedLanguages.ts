/**
 * Languages whose composer notice (LanguageNotice) the person dismissed. A property of this
 * browser, like the other notices' choices, so it is kept in localStorage, not in the memory.
 */
import { useState } from 'react';

const KEY = 'recollect.language-notice-dismissed';

export function readDismissedLanguages(): ReadonlySet<string> {
  try {
    const saved: unknown = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    return new Set(Array.isArray(saved) ? saved.filter((x): x is string => typeof x === 'string') : []);
  } catch {
    return new Set(); // storage disabled or a damaged value: every notice shows again
  }
}

export function saveDismissedLanguages(languages: ReadonlySet<string>): void {
  try {
    localStorage.setItem(KEY, JSON.stringify([...languages]));
  } catch {
    // Not kept across reloads; the notice stays dismissed on this page.
  }
}

/** The dismissed set and a way to add a language to it (kept at once). */
export function useDismissedLanguages(): [ReadonlySet<string>, (language: string) => void] {
  const [dismissed, setDismissed] = useState(readDismissedLanguages);
  const dismiss = (language: string) => {
    const next = new Set(dismissed).add(language);
    saveDismissedLanguages(next);
    setDismissed(next);
  };
  return [dismissed, dismiss];
}
