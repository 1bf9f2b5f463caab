/**
 * Whether the window is phone-narrow (the layout's own breakpoint in styles.css, 700 px): for text
 * that must be shorter there, such as the message box's placeholder, which wrapped to three lines
 * at 390 px. Follows the window as it is resized or turned.
 */
import { useSyncExternalStore } from 'react';

export const NARROW_QUERY = '(max-width: 700px)';

function subscribe(onChange: () => void): () => void {
  const list = window.matchMedia(NARROW_QUERY);
  list.addEventListener('change', onChange);
  return () => list.removeEventListener('change', onChange);
}

export function useNarrowScreen(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(NARROW_QUERY).matches,
    () => false,
  );
}
