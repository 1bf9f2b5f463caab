/**
 * Escape and a streaming answer: the window-level listener of useAnswerStream stops the answer only
 * when the press is the chat's. A native modal <dialog> closes on Escape without preventing the
 * keydown, so "not prevented" alone once let the same press close the dialog and stop the answer.
 * Plain objects stand in for the event and the document (the real dialog is covered by
 * e2e/escapeDialog.spec.ts).
 */
import { describe, expect, it } from 'vitest';
import { escapeStopsAnswer, type EscapeKeyEvent } from '../../src/app/keyboard';

/** A document with or without an open dialog somewhere. */
const page = (dialogOpen: boolean) =>
  ({ querySelector: (selector: string) => (selector === 'dialog[open]' && dialogOpen ? {} : null) }) as unknown as Pick<
    Document,
    'querySelector'
  >;
/** An element inside (or outside) a dialog. */
const element = (inDialog: boolean) => ({ closest: (selector: string) => (selector === 'dialog' && inDialog ? {} : null) });
const press = (over: Partial<EscapeKeyEvent> = {}): EscapeKeyEvent => ({
  key: 'Escape',
  defaultPrevented: false,
  target: element(false),
  ...over,
});

describe('escapeStopsAnswer', () => {
  it('stops the answer on an Escape in the chat', () => {
    expect(escapeStopsAnswer(press(), page(false))).toBe(true);
    expect(escapeStopsAnswer(press({ target: null }), page(false))).toBe(true);
  });

  it('leaves the answer alone when the Escape closes a dialog (pressed inside it, as a modal dialog has focus)', () => {
    expect(escapeStopsAnswer(press({ target: element(true) }), page(true))).toBe(false);
  });

  it('leaves the answer alone while any dialog is open, wherever focus is', () => {
    expect(escapeStopsAnswer(press({ target: element(false) }), page(true))).toBe(false);
    expect(escapeStopsAnswer(press({ target: null }), page(true))).toBe(false);
  });

  it('leaves it alone when a handler took the key (Escape cancelling an edit), and for other keys', () => {
    expect(escapeStopsAnswer(press({ defaultPrevented: true }), page(false))).toBe(false);
    expect(escapeStopsAnswer(press({ key: 'Enter' }), page(false))).toBe(false);
  });
});
