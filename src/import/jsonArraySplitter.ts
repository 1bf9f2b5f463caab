/**
 * Splits a streamed JSON array into the source text of its elements, without parsing the whole
 * document: an export's conversations.json can be hundreds of MB, while one conversation is small
 * enough to JSON.parse on its own. A top-level object is taken as a one-element array (LongMemEval
 * ships single questions that way).
 *
 * Only structure is tracked (strings, escapes, nesting); each element's text is validated later by
 * JSON.parse, so a malformed element costs that element, not the file. `end()` tells whether the
 * input stopped inside an element (a truncated download).
 *
 * An element that grows past `largeChars` (one conversation of 120,000 turns) is not held: its
 * text goes to the sink `onLarge` returns, piece by piece, and `push` reports it by index once it
 * ends. `route` picks, per element, to skip one (read over, nothing kept) or stream it from its
 * first character: how a huge entry is found again on a second read of the file.
 */
import { RecollectError } from '../core/base/errors';

import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './jsonChars';

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9 || c === 0xfeff;
}

/** Where the text of a streamed element goes. */
export interface ElementSink {
  write(text: string): void;
}

/** An element whose text went to a sink; `index` counts the array's elements from 0. */
export interface StreamedElement {
  readonly streamed: number;
}

export interface SplitterOptions {
  readonly largeChars?: number;
  readonly onLarge?: (index: number) => ElementSink;
  readonly route?: (index: number) => 'keep' | 'skip' | ElementSink;
}

export class JsonArraySplitter {
  readonly #options: SplitterOptions;
  /** Elements begun so far (the current one is `#index - 1`). */
  #index = 0;
  #held = 0;
  #mode: 'keep' | 'skip' | ElementSink = 'keep';
  #state: 'start' | 'between' | 'element' | 'done' = 'start';
  /** The document is a single object, not an array. */
  #single = false;
  #depth = 0;
  #inString = false;
  #escape = false;
  #parts: string[] = [];

  constructor(options: SplitterOptions = {}) {
    this.#options = options;
  }

  /** Feeds the next piece of text; returns the elements completed in it (kept ones as text). */
  push(text: string): (string | StreamedElement)[] {
    const out: (string | StreamedElement)[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.#state === 'element') {
        if (this.#inString) {
          if (this.#escape) this.#escape = false;
          else if (c === BACKSLASH) this.#escape = true;
          else if (c === QUOTE) this.#inString = false;
          continue;
        }
        if (c === QUOTE) this.#inString = true;
        else if (c === OPEN_BRACE || c === OPEN_BRACKET) this.#depth++;
        else if (c === CLOSE_BRACE || (c === CLOSE_BRACKET && this.#depth > 0)) {
          this.#depth--;
          if (this.#single && this.#depth === 0) {
            this.#finish(out, text, start, i + 1);
            this.#state = 'done';
          }
        } else if (this.#depth === 0 && (c === COMMA || c === CLOSE_BRACKET)) {
          this.#finish(out, text, start, i);
          this.#state = c === COMMA ? 'between' : 'done';
        }
        continue;
      }
      if (isSpace(c) || this.#state === 'done') continue;
      if (this.#state === 'start') {
        if (c === OPEN_BRACKET) this.#state = 'between';
        else if (c === OPEN_BRACE) {
          this.#single = true;
          this.#begin();
          start = i;
          i--;
        } else throw new RecollectError('INVALID_INPUT', 'This file is not a JSON array of conversations.');
        continue;
      }
      // between elements
      if (c === CLOSE_BRACKET) this.#state = 'done';
      else if (c !== COMMA) {
        this.#begin();
        start = i;
        i--;
      }
    }
    if (this.#state === 'element') this.#hold(text.slice(start));
    return out;
  }

  #hold(text: string): void {
    if (this.#mode === 'skip') return;
    if (this.#mode !== 'keep') {
      this.#mode.write(text);
      return;
    }
    this.#parts.push(text);
    this.#held += text.length;
    const large = this.#options.largeChars;
    if (large !== undefined && this.#held > large && this.#options.onLarge) {
      this.#mode = this.#options.onLarge(this.#index - 1);
      const sofar = this.#parts.join('');
      this.#parts = [];
      this.#mode.write(sofar);
    }
  }

  #finish(out: (string | StreamedElement)[], text: string, start: number, end: number): void {
    const mode = this.#mode;
    if (mode === 'keep') {
      const whole = this.#take(text, start, end);
      const large = this.#options.largeChars;
      // A huge element that arrived within one chunk goes to the sink all the same.
      if (large !== undefined && whole.length > large && this.#options.onLarge) {
        this.#options.onLarge(this.#index - 1).write(whole);
        out.push({ streamed: this.#index - 1 });
      } else out.push(whole);
    } else if (mode !== 'skip') {
      mode.write(text.slice(start, end));
      out.push({ streamed: this.#index - 1 });
    }
    this.#mode = 'keep';
  }

  /** Whether the input ended cleanly; `cutOff` is true when it stopped inside an element. */
  end(): { readonly complete: boolean; readonly cutOff: boolean } {
    const cutOff = this.#state === 'element' && (this.#mode !== 'keep' || this.#parts.join('').trim().length > 0);
    return { complete: this.#state === 'done', cutOff };
  }

  #begin(): void {
    this.#state = 'element';
    this.#depth = 0;
    this.#inString = false;
    this.#escape = false;
    this.#parts = [];
    this.#held = 0;
    this.#mode = this.#options.route?.(this.#index) ?? 'keep';
    this.#index++;
  }

  #take(text: string, start: number, endIndex: number): string {
    const tail = text.slice(start, endIndex);
    const whole = this.#parts.length ? this.#parts.join('') + tail : tail;
    this.#parts = [];
    return whole;
  }
}
