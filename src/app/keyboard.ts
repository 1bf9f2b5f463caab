/**
 * Keyboard ways around the app at scale: the message box is one key away (Alt+M, and the skip
 * link that is the page's first Tab stop) however many conversations sit before it, and search
 * keeps "/" and Ctrl/Cmd+K. The message box is found by its label, so the chat views need no hook.
 */

/** Focuses the open conversation's message box; false when no conversation is open. */
export function focusMessageBox(): boolean {
  const box = document.querySelector<HTMLTextAreaElement>('main textarea[aria-label="Message"]');
  if (!box) return false;
  box.focus();
  return true;
}

/** Alt+M (by key position, so Option+M on a Mac works too). */
export function isMessageBoxShortcut(e: KeyboardEvent): boolean {
  return e.altKey && !e.ctrlKey && !e.metaKey && e.code === 'KeyM';
}

/** "/" outside a text field, or Ctrl/Cmd+K anywhere. */
export function isSearchShortcut(e: KeyboardEvent): boolean {
  const typing = e.target instanceof HTMLElement && (e.target.tagName === 'INPUT' || e.target.tagName === 'TEXTAREA' || e.target.isContentEditable);
  return (e.key === '/' && !typing) || (e.key.toLowerCase() === 'k' && (e.ctrlKey || e.metaKey));
}
