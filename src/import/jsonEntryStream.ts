/**
 * Reads one JSON object (a conversation) as it streams, piece by piece: each top-level member
 * whole, except the message collection (`mapping` in a ChatGPT export, `chat_messages` in a
 * Claude one), whose members are handed over one at a time. A 200 MB conversation is then never
 * a 200 MB string nor a parsed tree: only one message's text is held at a time.
 *
 * Like the array splitter, only structure is tracked (strings, escapes, nesting); each piece is
 * validated by JSON.parse where it is used.
 */
import { RecollectError } from '../core/base/errors';

import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './jsonChars';

/** Top-level members whose value is streamed member by member. */
export const MESSAGE_COLLECTIONS = ['mapping', 'chat_messages'] as const;
export type MessageCollection = (typeof MESSAGE_COLLECTIONS)[number];

const COLLECTION_KEY = /^\s*"(mapping|chat_messages)"\s*:\s*$/;

export interface EntryPieces {
  /** A top-level member other than the collection: its key and its value's JSON text. */
  field(key: string, source: string): void;
  /** The collection starts (before any of its members). */
  collection(name: MessageCollection): void;
  /** One member of the collection: its key (null in an array) and its value's JSON text. */
  member(key: string | null, source: string): void;
}

/** `"key": value` → [key, value text]; null when the text is not a member. */
export function splitMember(text: string): [string, string] | null {
  const start = text.indexOf('"');
  if (start < 0) return null;
  let i = start + 1;
  while (i < text.length && text.charCodeAt(i) !== QUOTE) i += text.charCodeAt(i) === BACKSLASH ? 2 : 1;
  const colon = text.indexOf(':', i + 1);
  if (i >= text.length || colon < 0) return null;
  try {
    return [JSON.parse(text.slice(start, i + 1)) as string, text.slice(colon + 1)];
  } catch {
    return null;
  }
}

export class JsonEntryStream {
  readonly #out: EntryPieces;
  #depth = 0;
  #inString = false;
  #escape = false;
  /** The nesting level whose pieces are cut out: 1 for the object's members, 2 inside the collection. */
  #level = 1;
  /** The collection's kind while inside it. */
  #array = false;
  /** The rest of the collection's member (after its closing bracket) is not a piece. */
  #discard = false;
  #parts: string[] = [];
  #done = false;

  constructor(out: EntryPieces) {
    this.#out = out;
  }

  get done(): boolean {
    return this.#done;
  }

  push(text: string): void {
    let start = 0;
    for (let i = 0; i < text.length && !this.#done; i++) {
      const c = text.charCodeAt(i);
      if (this.#inString) {
        if (this.#escape) this.#escape = false;
        else if (c === BACKSLASH) this.#escape = true;
        else if (c === QUOTE) this.#inString = false;
        continue;
      }
      if (c === QUOTE) {
        if (this.#depth === 0) throw new RecollectError('INVALID_INPUT', 'A conversation is not a JSON object.');
        this.#inString = true;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        this.#depth++;
        if (this.#depth === 1) {
          if (c !== OPEN_BRACE) throw new RecollectError('INVALID_INPUT', 'A conversation is not a JSON object.');
          start = i + 1;
        } else if (this.#depth === 2 && this.#level === 1) {
          const sofar = this.#parts.length ? this.#parts.join('') + text.slice(start, i) : text.slice(start, i);
          const match = COLLECTION_KEY.exec(sofar);
          if (match) {
            this.#level = 2;
            this.#array = c === OPEN_BRACKET;
            this.#parts = [];
            start = i + 1;
            this.#out.collection(match[1] as MessageCollection);
          }
        }
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        if (this.#depth === this.#level) {
          this.#piece(text, start, i);
          start = i + 1;
          if (this.#level === 2) {
            this.#level = 1;
            this.#discard = true;
          } else this.#done = true;
        }
        this.#depth--;
      } else if (c === COMMA && this.#depth === this.#level) {
        this.#piece(text, start, i);
        start = i + 1;
      }
    }
    if (this.#depth >= 1 && !this.#done && !this.#discard && start < text.length) this.#parts.push(text.slice(start));
  }

  #piece(text: string, start: number, end: number): void {
    const whole = this.#parts.length ? this.#parts.join('') + text.slice(start, end) : text.slice(start, end);
    this.#parts = [];
    if (this.#discard) {
      this.#discard = false;
      return;
    }
    if (whole.trim() === '') return;
    if (this.#level === 2 && this.#array) {
      this.#out.member(null, whole);
      return;
    }
    const member = splitMember(whole);
    if (!member) throw new RecollectError('INVALID_INPUT', 'A conversation holds a damaged member.');
    if (this.#level === 2) this.#out.member(member[0], member[1]);
    else this.#out.field(member[0], member[1]);
  }
}
