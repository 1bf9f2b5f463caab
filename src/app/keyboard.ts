/**
 * Keyboard ways around the app at scale: the message box is one key away (Alt+M, and the skip
 * link that is the page's first Tab stop) however many conversations sit before it, and search
 * keeps "/" and Ctrl/Cmd+K; Alt+C finds a conversation by its title. The message box is found by its label, so the chat views need no hook.
 * Escape stops a streaming answer unless something else owns that key press (escapeStopsAnswer).
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

/** Alt+C (Option+C on a Mac, by key position): the sidebar's search over conversation titles. */
export function isTitleSearchShortcut(e: KeyboardEvent): boolean {
  return e.altKey && !e.ctrlKey && !e.metaKey && e.code === 'KeyC';
}

/** "/" outside a text field, or Ctrl/Cmd+K anywhere. */
export function isSearchShortcut(e: KeyboardEvent): boolean {
  const typing =
    e.target instanceof HTMLElement && (e.target.tagName === 'INPUT' || e.target.tagName === 'TEXTAREA' || e.target.isContentEditable);
  return (e.key === '/' && !typing) || (e.key.toLowerCase() === 'k' && (e.ctrlKey || e.metaKey));
}

/** The parts of a keydown escapeStopsAnswer reads (a plain object in unit tests). */
export interface EscapeKeyEvent {
  readonly key: string;
  readonly defaultPrevented: boolean;
  readonly target: EventTarget | { closest?(selector: string): unknown } | null;
}

/**
 * Whether this key press should stop the streaming answer (a window-level listener hears it).
 * Not when a handler took it (preventDefault: Escape cancelling an edit), and not while a dialog is
 * open: a native modal `<dialog>` closes on Escape as the key's default action, after the keydown
 * has reached the window, and never marks it prevented — so the same press once closed the dialog
 * and stopped the answer behind it. Escape is the dialog's then; the next one, in the chat, stops.
 */
export function escapeStopsAnswer(e: EscapeKeyEvent, doc: Pick<Document, 'querySelector'> = document): boolean {
  if (e.key !== 'Escape' || e.defaultPrevented) return false;
  const target = e.target as { closest?(selector: string): unknown } | null;
  if (typeof target?.closest === 'function' && target.closest('dialog')) return false;
  return doc.querySelector('dialog[open]') === null;
}
