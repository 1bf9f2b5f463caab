/**
 * Plain-text and Markdown transcripts: one conversation per file. Exporters write the speaker in
 * one of three layouts, and the file says which by the *consistency* of its labels:
 *
 * - a heading per speaker (`## 👤 User`, `## 🤖 Claude`, `### Assistant`), the turn below it;
 * - a label per turn at the start of a line: `Name: text`, `**Name:** text`, `**Human**: text`,
 *   `[14:02] Name: text` (with a time);
 * - the same labels as list items (`- Name: text`), a layout of its own.
 *
 * Every candidate label in the file is counted per layout. Speakers are the labels that recur (or
 * name a role: User, Human, Assistant, ChatGPT, Claude…); the layout whose speakers cover the most
 * lines wins, and only its speaker lines start a turn. Everything else — the answer's own
 * `- **Headers**: …` bullets, `Note:` lines, headings, code (never read inside ``` fences) — is
 * part of the turn it is in. When the choice is not clear (a label seen once admitted as a
 * speaker, a close second layout, no role recognised, no speaker at all) the layout is marked
 * ambiguous, and the app shows the first turns with their roles and asks before storing.
 *
 * A line that is only a date, or a heading holding one (`## 5 March 2024`), dates the turns
 * after it; the first other heading before any turn is the title. Dates are read as UTC by
 * chrono-node. Undated turns take the import time. Ids hash the file's size and first 64 KB, so
 * re-importing the same file adds nothing.
 */
import * as chrono from 'chrono-node';
import type { ImportedConversation, ImportedTurn, TranscriptLayout } from '../core/base/historyImport';
import { stableHash, titleOf } from './parseHelpers';

const ASSISTANT =
  /^(assistant|ai|bot|chatgpt|gpt(-?[\d.o]+.*)?|claude|gemini|copilot|llama|mistral|model|recollect|deepseek|grok|perplexity|bard|o\d.*)$/i;
const USER = /^(user|human|you|me|prompt|question|q)$/i;
const ID_PREFIX_BYTES = 65_536;
const PREVIEW_TURNS = 6;

const HEADING = /^#{1,6}\s+(.*?)\s*#*\s*$/;
const BOLD = /^(?:([-*+]|\d+[.)])\s+)?(?:\[([^\]]{1,40})\]\s*)?\*\*([^*\n]{1,40}?)(?::\*\*|\*\*\s*:|\*\*(?=\s*$))\s*(.*)$/u;
const PLAIN = /^(?:([-*+>]|\d+[.)])\s+)?(?:\[([^\]]{1,40})\]\s*)?([\p{L}\p{N}][\p{L}\p{N} ._'’-]{0,39}?)\s*:(?:\s+|$)(.*)$/u;
const FENCE = /^\s*(```|~~~)/;
/** Labels that open a part of an answer or a metadata line, not a speaker (seen once they never start a turn). */
const NOT_SPEAKERS =
  /^(note|notes|example|examples|tip|tips|warning|important|step|steps|answer|summary|result|results|output|input|error|source|sources|date|time|session id|session|title|model|url|link|file|path|pros|cons|why|how|what|usage|total|name|description|reason|conclusion|update|edit|ps|p\.s)$/i;

type Kind = 'heading' | 'label' | 'list';
interface Candidate {
  readonly kind: Kind;
  readonly name: string;
  readonly time?: string;
  readonly rest: string;
  readonly hint?: 'user' | 'assistant';
}

/** The date a line names when the line is (almost) only that date; NaN otherwise. */
export function dateLine(line: string, reference: number): number {
  const stripped = line.replace(/^[#\s\-–—=*[(]+|[\s\-–—=*\])]+$/g, '');
  if (stripped.length < 6 || stripped.length > 60 || !/\d/.test(stripped)) return Number.NaN;
  const [hit] = chrono.parse(stripped, { instant: new Date(reference), timezone: 0 });
  if (!hit || hit.text.length < stripped.length * 0.7 || !hit.start.isCertain('day')) return Number.NaN;
  return hit.start.date().getTime();
}

function cleanName(raw: string): string {
  return raw
    .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N})]+$/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
}

const wordCount = (s: string) => s.split(/\s+/).length;

/** What a line could be if it opened a turn, in each layout it fits. */
function candidates(line: string): Candidate[] {
  const out: Candidate[] = [];
  const heading = HEADING.exec(line);
  if (heading) {
    const raw = heading[1]!;
    const name = cleanName(raw.replace(/\s*[:：]\s*$/, ''));
    const hint = /🤖|🧠|✨/u.test(raw) ? 'assistant' : /👤|🧑|🙋|👩|👨/u.test(raw) ? 'user' : undefined;
    if (name && name.length <= 30 && wordCount(name) <= 3) out.push({ kind: 'heading', name, rest: '', ...(hint ? { hint } : {}) });
    return out;
  }
  const bold = BOLD.exec(line);
  if (bold) {
    const name = cleanName(bold[3]!);
    if (name && wordCount(name) <= 4)
      out.push({ kind: bold[1] ? 'list' : 'label', name, rest: bold[4] ?? '', ...(bold[2] ? { time: bold[2] } : {}) });
    return out;
  }
  const plain = PLAIN.exec(line);
  if (plain && wordCount(plain[3]!.trim()) <= 4 && !/^https?$/i.test(plain[3]!)) {
    out.push({ kind: plain[1] ? 'list' : 'label', name: plain[3]!.trim(), rest: plain[4] ?? '', ...(plain[2] ? { time: plain[2] } : {}) });
  }
  return out;
}

const keyOf = (name: string) => name.toLowerCase();
const isRole = (name: string) => ASSISTANT.test(name) || USER.test(name);

interface Choice {
  readonly kind: Kind | null;
  readonly speakers: ReadonlySet<string>;
  readonly ambiguous: boolean;
  readonly reasons: readonly string[];
}

/** Picks the layout and its speakers from the label counts (see the module header). */
function chooseLayout(counts: Map<Kind, Map<string, number>>, display: ReadonlyMap<string, string>): Choice {
  const scored = (['heading', 'label', 'list'] as const)
    .map((kind) => {
      const labels = counts.get(kind) ?? new Map<string, number>();
      const recurring = [...labels].filter(([name, n]) => isRole(name) || (n >= 2 && !NOT_SPEAKERS.test(name)));
      const speakers = new Set(recurring.map(([name]) => name));
      const once: string[] = [];
      // A small transcript may name a participant only once; accepted with a question, never silently.
      if (kind !== 'list' && labels.size <= 6) {
        for (const [name, n] of labels) {
          if (
            !speakers.has(name) &&
            n === 1 &&
            wordCount(name) <= 2 &&
            /^\p{Lu}/u.test(display.get(name) ?? '') &&
            !NOT_SPEAKERS.test(name) &&
            speakers.size >= 1
          ) {
            speakers.add(name);
            once.push(name);
          }
        }
      }
      let score = 0;
      for (const name of speakers) score += labels.get(name) ?? 0;
      return { kind, speakers, once, score };
    })
    .sort((a, b) => b.score - a.score);
  const [best, second] = scored;
  if (!best || best.score === 0) return { kind: null, speakers: new Set(), ambiguous: true, reasons: ['no speaker labels were found'] };
  const reasons: string[] = [];
  if (best.once.length > 0)
    reasons.push(`${best.once.map((n) => display.get(n) ?? n).join(', ')} ${best.once.length === 1 ? 'speaks' : 'speak'} only once`);
  if (second && second.score > 0 && second.score >= best.score * 0.5) reasons.push('the file mixes two ways of naming speakers');
  if (![...best.speakers].some((s) => ASSISTANT.test(s))) reasons.push('no speaker is recognised as the assistant');
  return { kind: best.kind, speakers: best.speakers, ambiguous: reasons.length > 0, reasons };
}

export class TranscriptParser {
  readonly #name: string;
  readonly #size: number;
  readonly #now: number;
  #prefix = '';
  #carry = '';
  readonly #lines: string[] = [];
  readonly #counts = new Map<Kind, Map<string, number>>();
  readonly #hints = new Map<string, 'user' | 'assistant'>();
  /** A label as first written, by its lower-case key. */
  readonly #display = new Map<string, string>();
  #inFence = false;
  #layout: TranscriptLayout | null = null;

  constructor(name: string, size: number, now: number) {
    this.#name = name;
    this.#size = size;
    this.#now = now;
  }

  push(text: string): void {
    if (this.#prefix.length < ID_PREFIX_BYTES) this.#prefix += text.slice(0, ID_PREFIX_BYTES - this.#prefix.length);
    const lines = (this.#carry + text).split(/\r?\n/);
    this.#carry = lines.pop() ?? '';
    for (const line of lines) this.#count(line);
  }

  /** The layout read from the file (after `end`). */
  layout(): TranscriptLayout | null {
    return this.#layout;
  }

  end(): ImportedConversation {
    if (this.#carry) this.#count(this.#carry);
    this.#carry = '';
    const choice = chooseLayout(this.#counts, this.#display);
    const id = `text:${stableHash(`${this.#size}\n${this.#prefix}`)}`;
    const parsed = this.#turns(choice);
    const turns: ImportedTurn[] = parsed.turns
      .map((t, i) => ({
        id: `${id}:${i + 1}`,
        role: t.role,
        speaker: t.speaker,
        content: t.lines.join('\n').trim(),
        occurredAt: t.occurredAt,
      }))
      .filter((t) => t.content.length > 0);
    this.#layout = {
      layout: choice.kind ?? 'none',
      ambiguous: choice.ambiguous,
      reasons: choice.reasons,
      speakers: [...choice.speakers].map((s) => ({ name: this.#display.get(s) ?? s, role: this.#role(s) })),
      preview: turns
        .slice(0, PREVIEW_TURNS)
        .map((t) => ({ speaker: t.speaker ?? '', role: t.role, excerpt: t.content.replace(/\s+/g, ' ').slice(0, 160) })),
    };
    const fileTitle = this.#name.replace(/\.(txt|md|markdown)$/i, '').trim();
    return { id, title: titleOf(parsed.title || fileTitle, turns), createdAt: turns[0]?.occurredAt ?? this.#now, turns };
  }

  /** First pass: keeps the line and counts the labels it could be (outside code fences). */
  #count(raw: string): void {
    const line = raw.trimEnd();
    this.#lines.push(line);
    if (FENCE.test(line)) {
      this.#inFence = !this.#inFence;
      return;
    }
    if (this.#inFence) return;
    for (const c of candidates(line)) {
      const byName = this.#counts.get(c.kind) ?? new Map<string, number>();
      byName.set(keyOf(c.name), (byName.get(keyOf(c.name)) ?? 0) + 1);
      this.#counts.set(c.kind, byName);
      if (c.hint) this.#hints.set(keyOf(c.name), c.hint);
      if (!this.#display.has(keyOf(c.name))) this.#display.set(keyOf(c.name), c.name);
    }
  }

  #role(speakerKey: string): 'user' | 'assistant' {
    return this.#hints.get(speakerKey) ?? (ASSISTANT.test(speakerKey) ? 'assistant' : 'user');
  }

  /** Second pass: splits the kept lines into turns at the chosen layout's speaker lines only. */
  #turns(choice: Choice) {
    const turns: { role: 'user' | 'assistant'; speaker: string; lines: string[]; occurredAt: number }[] = [];
    let title = '';
    let date = Number.NaN;
    let inSection = 0;
    let inFence = false;
    const reference = () => (Number.isFinite(date) ? date : this.#now - (this.#now % 1000));
    for (const line of this.#lines) {
      if (FENCE.test(line)) inFence = !inFence;
      else if (!inFence) {
        const speaker = candidates(line).find((c) => c.kind === choice.kind && choice.speakers.has(keyOf(c.name)));
        if (speaker) {
          let occurredAt = reference() + inSection * 1000;
          if (speaker.time) {
            const at = chrono.parse(speaker.time, { instant: new Date(reference()), timezone: 0 })[0];
            if (at) occurredAt = at.start.date().getTime();
          }
          inSection++;
          turns.push({ role: this.#role(keyOf(speaker.name)), speaker: speaker.name, lines: [speaker.rest], occurredAt });
          continue;
        }
        const heading = HEADING.exec(line);
        if (line.trim() && (heading || turns.length === 0 || !/^[-*+>|]|^\d+[.)]\s/.test(line.trim()))) {
          const at = dateLine(line, reference());
          if (Number.isFinite(at) && (heading || line.trim().length <= 40)) {
            date = at;
            inSection = 0;
            continue;
          }
        }
        if (heading && turns.length === 0) {
          if (!title) title = heading[1]!.trim();
          continue;
        }
      }
      if (turns.length === 0) continue; // before the first turn: front matter (session ids, dates, rules)
      turns.at(-1)!.lines.push(line);
    }
    return { turns, title };
  }
}
