/**
 * Plain-text and Markdown transcripts: one conversation per file, a turn per `Name: text` line
 * (also `**Name:** text`, `- Name: text`, and `[14:02] Name: text` with a time); lines without a
 * name continue the previous turn. A line that is only a date, or a heading holding one
 * (`## 5 March 2024`, `# 2024-03-05 14:00`), dates the turns after it; the first other heading is
 * the title. Dates are read as UTC by chrono-node. Undated turns take the import time.
 *
 * Speakers called Assistant, AI, ChatGPT, Claude and the like are stored as the assistant; every
 * other name as a user. Ids hash the file's size and first 64 KB, so re-importing the same file
 * adds nothing.
 */
import * as chrono from 'chrono-node';
import type { ImportedConversation, ImportedTurn } from '../core/base/historyImport';
import { stableHash, titleOf } from './parseHelpers';

const SPEAKER = /^(?:[-*>]\s+)?(?:\[([^\]]{1,40})\]\s*)?(?:\*\*)?([\p{L}\p{N}][\p{L}\p{N} ._'’-]{0,39}?)(?:\*\*)?\s*:(?:\*\*)?(?:\s+|$)(.*)$/u;
const ASSISTANT = /^(assistant|ai|bot|chatgpt|gpt(-\d.*)?|claude|gemini|copilot|llama|mistral|model|recollect)$/i;
const HEADING = /^#{1,6}\s+(.*)$/;
const ID_PREFIX_BYTES = 65_536;

/** The date a line names when the line is (almost) only that date; NaN otherwise. */
export function dateLine(line: string, reference: number): number {
  const stripped = line.replace(/^[#\s\-–—=*[(]+|[\s\-–—=*\])]+$/g, '');
  if (stripped.length < 6 || stripped.length > 60 || !/\d/.test(stripped)) return Number.NaN;
  const [hit] = chrono.parse(stripped, { instant: new Date(reference), timezone: 0 });
  if (!hit || hit.text.length < stripped.length * 0.7 || !hit.start.isCertain('day')) return Number.NaN;
  return hit.start.date().getTime();
}

export class TranscriptParser {
  readonly #name: string;
  readonly #size: number;
  readonly #now: number;
  #prefix = '';
  #carry = '';
  #title = '';
  #date = Number.NaN;
  #inSection = 0;
  #turns: { role: 'user' | 'assistant'; speaker: string; lines: string[]; occurredAt: number }[] = [];

  constructor(name: string, size: number, now: number) {
    this.#name = name;
    this.#size = size;
    this.#now = now;
  }

  push(text: string): void {
    if (this.#prefix.length < ID_PREFIX_BYTES) this.#prefix += text.slice(0, ID_PREFIX_BYTES - this.#prefix.length);
    const lines = (this.#carry + text).split(/\r?\n/);
    this.#carry = lines.pop() ?? '';
    for (const line of lines) this.#line(line);
  }

  end(): ImportedConversation {
    if (this.#carry) this.#line(this.#carry);
    this.#carry = '';
    const id = `text:${stableHash(`${this.#size}\n${this.#prefix}`)}`;
    const turns: ImportedTurn[] = this.#turns.map((t, i) => ({
      id: `${id}:${i + 1}`, role: t.role, speaker: t.speaker, content: t.lines.join('\n').trim(), occurredAt: t.occurredAt,
    }));
    const fileTitle = this.#name.replace(/\.(txt|md|markdown)$/i, '').trim();
    return { id, title: titleOf(this.#title || fileTitle, turns), createdAt: turns[0]?.occurredAt ?? this.#now, turns };
  }

  #line(raw: string): void {
    const line = raw.trimEnd();
    if (!line.trim()) {
      this.#turns.at(-1)?.lines.push('');
      return;
    }
    const heading = HEADING.exec(line);
    const m = SPEAKER.exec(line);
    if (heading || !m) {
      const date = dateLine(line, this.#reference());
      if (Number.isFinite(date)) {
        this.#date = date;
        this.#inSection = 0;
        return;
      }
    }
    if (heading) {
      if (!this.#title) this.#title = heading[1]!.trim();
      return;
    }
    if (m && m[2]!.trim().split(/\s+/).length <= 4 && !/^https?$/i.test(m[2]!)) {
      const speaker = m[2]!.trim();
      let occurredAt = this.#reference() + this.#inSection * 1000;
      if (m[1]) {
        const at = chrono.parse(m[1], { instant: new Date(this.#reference()), timezone: 0 })[0];
        if (at) occurredAt = at.start.date().getTime();
      }
      this.#inSection++;
      this.#turns.push({ role: ASSISTANT.test(speaker) ? 'assistant' : 'user', speaker, lines: [m[3] ?? ''], occurredAt });
      return;
    }
    this.#turns.at(-1)?.lines.push(line);
  }

  /** The current section's date (midnight UTC when only a day was given), or the import time. */
  #reference(): number {
    return Number.isFinite(this.#date) ? this.#date : this.#now - (this.#now % 1000);
  }
}
