/**
 * Memory carried in from another assistant: what a person pastes (or picks as a file) after asking
 * ChatGPT, Claude, Gemini… what they remember, read into a list of memories to preview. Pure: no
 * storage, no clock, no DOM; the engine stores what the person keeps (engine/memoryCarry.ts).
 *
 * Shapes read, each from its public description (samples in test/core/carriedMemory.test.ts):
 * - dated lines, `[YYYY-MM-DD] - memory`: the one code block Claude's memory import asks the other
 *   assistant for ("date saved, if available", so a line may have no date);
 * - ChatGPT's model-set context, `1. [2025-03-14]. memory`, and its saved-memory list copied as
 *   plain lines ("Prefers short answers."), whose lines start with a verb and no subject;
 * - Portable AI Memory v1.0 JSON (`"schema": "portable-ai-memory"`, typed `memories` with
 *   `temporal.created_at` and `provenance.platform`);
 * - Markdown with "About you" / "Plans" / "Facts" sections (what Export memory… writes) and plain
 *   one-per-line text, bullets or numbers stripped.
 *
 * Invariant: a bad input (empty, a chat transcript, more than 5 MB, broken JSON, a JSON shape that
 * is not memories) is a typed error with a sentence a person can act on, and yields no items, so
 * nothing is imported from it.
 */
import * as chrono from 'chrono-node';
import { MAX_MEMORY_CHARS } from './limits';
import { offsetMinutes } from './timeZone';

export type CarriedKind = 'about' | 'plan' | 'fact';
export type CarriedFormat = 'dated-lines' | 'chatgpt-context' | 'chatgpt-list' | 'pam' | 'markdown' | 'lines';
export type CarryErrorCode = 'EMPTY' | 'TOO_LARGE' | 'CHAT' | 'BROKEN_JSON' | 'UNKNOWN_JSON' | 'NO_MEMORIES';

export const MAX_CARRY_BYTES = 5 * 1024 * 1024;

export const KIND_LABELS: Readonly<Record<CarriedKind, string>> = { about: 'about you', plan: 'plan', fact: 'fact' };
export const FORMAT_LABELS: Readonly<Record<CarriedFormat, string>> = {
  'dated-lines': 'dated lines ([date] - memory)',
  'chatgpt-context': 'ChatGPT memory lines (1. [date]. memory)',
  'chatgpt-list': 'ChatGPT saved memories (one per line)',
  pam: 'Portable AI Memory (JSON)',
  markdown: 'Markdown sections',
  lines: 'one memory per line',
};

export interface CarriedMemory {
  readonly text: string;
  readonly kind: CarriedKind;
  /** When it was saved (ms), when the input says. */
  readonly at: number | null;
  /** Why it cannot be imported as it is (too long), or null. */
  readonly problem: string | null;
}

/** One memory to import, as the person kept it in the preview. */
export interface ImportedMemory {
  readonly text: string;
  readonly kind: CarriedKind;
  /** When the other assistant saved it (ms), if known. */
  readonly at: number | null;
}

export interface MemoryImportRequest {
  /** Where it comes from, as the person named it: "ChatGPT", "Claude", "another assistant". */
  readonly source: string;
  readonly items: readonly ImportedMemory[];
}

export interface MemoryImportResult {
  readonly added: number;
  readonly alreadyKnown: number;
}

/** The history reason of an imported memory; importedFrom reads it back. */
export function importReason(source: string, kind: CarriedKind): string {
  return `imported from ${source}${kind === 'about' ? '' : ` (${KIND_LABELS[kind]})`}`;
}

const IMPORTED = /^imported from (.+?)(?: \((plan|fact)\))?$/;

/** Where an imported memory came from and the kind it was imported as, or null for any other reason. */
export function importedFrom(reason: string | null): { readonly source: string; readonly kind: CarriedKind } | null {
  const m = reason ? IMPORTED.exec(reason) : null;
  return m ? { source: m[1]!, kind: (m[2] as CarriedKind | undefined) ?? 'about' } : null;
}

export interface CarriedSkip {
  readonly count: number;
  readonly reason: string;
}

export type CarryParse =
  | {
      readonly ok: true;
      readonly format: CarriedFormat;
      readonly source: string | null;
      readonly items: readonly CarriedMemory[];
      readonly skipped: readonly CarriedSkip[];
    }
  | { readonly ok: false; readonly code: CarryErrorCode; readonly message: string };

export interface CarryOptions {
  /** The memory's time zone: a date without a time is noon of that day there. */
  readonly zone: string;
  readonly now: number;
}

/** The comparison form of a memory (and Portable AI Memory's hash input): NFC, lower case, single spaces. */
export function normaliseMemoryText(text: string): string {
  return text.trim().toLowerCase().normalize('NFC').replace(/\s+/g, ' ');
}

/** normaliseMemoryText without a final full stop: "I am vegetarian." and "I am vegetarian" are one memory. */
export function memoryIdentity(text: string): string {
  return normaliseMemoryText(text)
    .replace(/[.!;。]+$/u, '')
    .trim();
}

const PREFERENCE =
  /\b(?:prefers?|preferred|preference|likes?|loves?|dislikes?|hates?|enjoys?|allergic|vegetarian|vegan|pronouns|birthday|born)\b/i;
const FUTURE =
  /\b(?:plans?|planning|planned|intends?|intending|going to|will|wants? to|hopes? to|aims? to|goals?|upcoming|deadline|scheduled|is moving|preparing for|next (?:week|month|year|spring|summer|autumn|fall|winter))\b/i;
const SUBJECT = /^(?:the\s+)?user(?:'s)?\b|^(?:i|i'm|i've|i'd|my|me|name)\b/i;
/** The verbs ChatGPT's saved memories start with (it drops the subject: "Lives in Porto."). */
const THIRD_PERSON =
  /^(?:is|has|had|was|prefers|likes|loves|enjoys|dislikes|hates|lives|lived|works|worked|speaks|uses|owns|wants|needs|studies|studied|grew|identifies|values|avoids|follows|writes|reads|plays|runs|cooks|drives|plans|intends|hopes|teaches|manages|is\s+learning)\b/i;

/** About you, a plan or a fact, from the words alone (the preview shows it; nothing depends on it being right). */
export function memoryKind(text: string): CarriedKind {
  if (PREFERENCE.test(text)) return 'about';
  if (FUTURE.test(text)) return 'plan';
  if (SUBJECT.test(text) || THIRD_PERSON.test(text)) return 'about';
  return 'fact';
}

/** Noon of the calendar day in `zone`: far from both midnights, so the day survives any export. */
export function noonOf(zone: string, year: number, month: number, day: number): number {
  const guess = Date.UTC(year, month - 1, day, 12);
  return guess - offsetMinutes(zone, guess) * 60_000;
}

/** `YYYY-MM-DD` of instant `t` in `zone`. */
export function dayString(zone: string, t: number): string {
  return new Date(t + offsetMinutes(zone, t) * 60_000).toISOString().slice(0, 10);
}

const NO_DATE = /^(?:|unknown|n\/?a|none|no date|undated|date unknown|not available|-+|\?+)$/i;

/** A saved date as written in a line ("2025-03-14", "2025-03", "March 14, 2025"), or null. */
export function parseSavedDate(raw: string, options: CarryOptions): number | null {
  const s = raw.trim().replace(/^saved:?\s*/i, '');
  if (NO_DATE.test(s)) return null;
  if (/^\d{4}-\d{2}-\d{2}T/.test(s)) {
    const t = Date.parse(s);
    return Number.isFinite(t) ? t : null;
  }
  const ymd = /^(\d{4})[-/.](\d{1,2})(?:[-/.](\d{1,2}))?$/.exec(s);
  if (ymd) {
    const [y, m, d] = [Number(ymd[1]), Number(ymd[2]), Number(ymd[3] ?? 1)];
    return m >= 1 && m <= 12 && d >= 1 && d <= 31 ? noonOf(options.zone, y, m, d) : null;
  }
  const found = chrono.strict.parse(s, new Date(options.now))[0];
  if (!found) return null;
  const year = found.start.get('year');
  const month = found.start.get('month');
  return year && month ? noonOf(options.zone, year, month, found.start.get('day') ?? 1) : null;
}

function utf8Bytes(s: string, stopAbove: number): number {
  let n = 0;
  for (let i = 0; i < s.length && n <= stopAbove; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

const fail = (code: CarryErrorCode, message: string): CarryParse => ({ ok: false, code, message });
const CHAT_ADVICE =
  'To bring conversations in, use Import chats…; to bring memories, ask the other assistant with the prompt shown here and paste its answer.';
export const TOO_LARGE_MESSAGE = `This is more than 5 MB; a list of memories is far smaller. If it is a chat export, use Import chats…. Nothing was imported.`;

/** Reads pasted text or a file's text into memories to preview, or says why it cannot. */
export function parseCarriedMemory(input: string, options: CarryOptions): CarryParse {
  if (utf8Bytes(input, MAX_CARRY_BYTES) > MAX_CARRY_BYTES) return fail('TOO_LARGE', TOO_LARGE_MESSAGE);
  let text = input.replace(/^\uFEFF/, '').trim();
  if (!text) return fail('EMPTY', 'Nothing to import yet: paste what the other assistant wrote, or choose a file.');
  if (!looksLikeJson(text) && looksLikeChat(text.split(/\r?\n/)))
    return fail('CHAT', `This looks like a chat, not a list of memories. ${CHAT_ADVICE}`);
  // The memories in a code block (the form Claude's prompt asks for), with the assistant's own
  // sentences around it: the longest block's inside.
  const blocks = [...text.matchAll(/^```[\w-]*[ \t]*\n([\s\S]*?)^```[ \t]*$/gm)].map((m) => m[1]!.trim());
  if (blocks.length) text = blocks.reduce((a, b) => (b.length > a.length ? b : a));
  if (!text) return fail('EMPTY', 'The code block is empty: nothing to import.');
  if (looksLikeJson(text)) return parseJson(text);
  return parseLines(text, options);
}

// ---- JSON ----------------------------------------------------------------------------------

/** An object, or an array of objects, strings or arrays — not a line starting "[2025-03-14]". */
function looksLikeJson(text: string): boolean {
  return /^\{/.test(text) || /^\[\s*(?:[[{"\]]|$)/.test(text);
}

const PAM_ABOUT = new Set(['preference', 'identity', 'skill', 'instruction', 'relationship', 'environment']);
const PAM_PLAN = new Set(['goal', 'project']);
const PLATFORM_NAMES: Readonly<Record<string, string>> = {
  chatgpt: 'ChatGPT',
  openai: 'ChatGPT',
  claude: 'Claude',
  anthropic: 'Claude',
  gemini: 'Gemini',
  copilot: 'Copilot',
  grok: 'Grok',
  recollect: 'Recollect',
};

export function platformName(platform: string): string {
  return PLATFORM_NAMES[platform.toLowerCase()] ?? platform;
}

function parseJson(text: string): CarryParse {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return fail(
      'BROKEN_JSON',
      `This looks like JSON but it is broken (${why}). Nothing was imported: copy the whole file again, or paste the memories as lines.`,
    );
  }
  const record = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const looksLikeChats = (v: unknown): boolean =>
    Array.isArray(v) && v.some((c) => record(c) && ('mapping' in c || 'chat_messages' in c || 'messages' in c));
  if (looksLikeChats(data) || (record(data) && looksLikeChats(data.conversations))) {
    return fail('CHAT', `This is a chat export, not a list of memories. ${CHAT_ADVICE}`);
  }
  if (!record(data) || data.schema !== 'portable-ai-memory') {
    return fail(
      'UNKNOWN_JSON',
      'This JSON is not a memory format Recollect reads: it reads Portable AI Memory files ("schema": "portable-ai-memory") and memories as lines of text. Nothing was imported.',
    );
  }
  const version = typeof data.schema_version === 'string' ? data.schema_version : '';
  if (!/^1(?:\.|$)/.test(version)) {
    return fail(
      'UNKNOWN_JSON',
      `This Portable AI Memory file is version ${version || 'unknown'}; Recollect reads version 1. Nothing was imported.`,
    );
  }
  if (!Array.isArray(data.memories)) {
    return fail('UNKNOWN_JSON', 'This Portable AI Memory file has no "memories" list. Nothing was imported.');
  }
  const items: CarriedMemory[] = [];
  const platforms = new Map<string, number>();
  let inactive = 0;
  let empty = 0;
  for (const m of data.memories) {
    if (!record(m) || typeof m.content !== 'string' || !m.content.trim()) {
      empty++;
      continue;
    }
    if (typeof m.status === 'string' && m.status !== 'active') {
      inactive++;
      continue;
    }
    const temporal = record(m.temporal) ? m.temporal : {};
    const created = typeof temporal.created_at === 'string' ? Date.parse(temporal.created_at) : NaN;
    const provenance = record(m.provenance) ? m.provenance : {};
    if (typeof provenance.platform === 'string') platforms.set(provenance.platform, (platforms.get(provenance.platform) ?? 0) + 1);
    const metadata = record(m.metadata) ? m.metadata : {};
    const hinted = metadata.recollect_kind;
    const type = typeof m.type === 'string' ? m.type : '';
    const kind: CarriedKind =
      hinted === 'about' || hinted === 'plan' || hinted === 'fact'
        ? hinted
        : PAM_ABOUT.has(type)
          ? 'about'
          : PAM_PLAN.has(type)
            ? 'plan'
            : memoryKind(m.content);
    // Recollect's own export marks a memory that had no date (created_at is required there).
    const dated = Number.isFinite(created) && metadata.recollect_undated !== true;
    items.push(item(m.content, kind, dated ? created : null));
  }
  const skipped: CarriedSkip[] = [];
  if (inactive) skipped.push({ count: inactive, reason: 'no longer active (superseded, retracted or archived)' });
  if (empty) skipped.push({ count: empty, reason: 'without text' });
  const platform = [...platforms].sort((a, b) => b[1] - a[1])[0]?.[0];
  return finish('pam', platform ? platformName(platform) : null, items, skipped);
}

// ---- lines ---------------------------------------------------------------------------------

const DATED = /^(?:[-*•+]\s*)?\[([^\]\n]{0,40})\](?!\()\s*(?:[-–—:]\s*)?(.+)$/;
const CONTEXT = /^\d{1,4}[.)]\s*\[([^\]\n]{1,40})\]\.?\s*(.+)$/;
const BULLET = /^(?:[-*•+]|\d{1,4}[.)])\s+/;
const HEADING = /^#{1,6}\s+(.*)$/;
const HUMAN = new Set(['user', 'you', 'me', 'human']);
const ROLE =
  /^(?:\*\*)?(user|you|me|human|assistant|ai|chatgpt|claude|gemini|copilot|bot|model)(?:\s+said)?\s*(?:\*\*)?\s*:(?:\*\*)?(?:\s|$)/i;

function sectionKind(heading: string): CarriedKind | null {
  if (/\b(?:about you|about me|profile|personal|preferences?|identity|who you are)\b/i.test(heading)) return 'about';
  if (/\b(?:plans?|goals?|upcoming|foresight|projects?)\b/i.test(heading)) return 'plan';
  if (/\bfacts?\b/i.test(heading)) return 'fact';
  return null;
}

function item(raw: string, kind: CarriedKind, at: number | null): CarriedMemory {
  const text = raw.replace(/\s+/g, ' ').trim();
  const problem =
    text.length > MAX_MEMORY_CHARS
      ? `longer than ${MAX_MEMORY_CHARS} characters (${text.length}): shorten or split it, then paste again`
      : null;
  return { text, kind, at, problem };
}

/** A transcript pasted by mistake: lines starting with a person's role and with an assistant's. */
function looksLikeChat(lines: readonly string[]): boolean {
  const roles = new Set<string>();
  let roleLines = 0;
  for (const line of lines) {
    const m = ROLE.exec(line.trim().replace(HEADING, '$1'));
    if (m) {
      roles.add(m[1]!.toLowerCase());
      roleLines++;
    }
  }
  return roleLines >= 2 && [...roles].some((r) => HUMAN.has(r)) && [...roles].some((r) => !HUMAN.has(r));
}

function parseLines(text: string, options: CarryOptions): CarryParse {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !/^```/.test(l));
  const context = lines.filter((l) => CONTEXT.test(l)).length;
  const dated = lines.filter((l) => DATED.test(l)).length;
  const headings = lines.filter((l) => HEADING.test(l) && sectionKind(l) !== null).length;
  const content = lines.filter((l) => !HEADING.test(l) && !/:$/.test(l));
  const format: CarriedFormat =
    context * 2 >= content.length && context > 0
      ? 'chatgpt-context'
      : headings > 0
        ? 'markdown'
        : dated * 2 >= content.length && dated > 0
          ? 'dated-lines'
          : content.filter((l) => THIRD_PERSON.test(l.replace(BULLET, ''))).length * 5 >= content.length * 3
            ? 'chatgpt-list'
            : 'lines';

  const items: CarriedMemory[] = [];
  let labels = 0;
  let section: CarriedKind | null = null;
  for (const line of lines) {
    const heading = HEADING.exec(line);
    const m = CONTEXT.exec(line) ?? DATED.exec(line);
    // A section title ("## Plans") or a label ending in a colon ("Personal details:") is not a memory.
    if (heading || (!m && /:$/.test(line) && line.length <= 80)) {
      section = sectionKind(heading ? heading[1]! : line);
      labels++;
      continue;
    }
    const at = m ? parseSavedDate(m[1]!, options) : null;
    const body = m ? m[2]! : line.replace(BULLET, '');
    if (!body.trim()) continue;
    items.push(item(body, section ?? memoryKind(body), at));
  }
  const skipped = labels ? [{ count: labels, reason: 'headings or labels' }] : [];
  return finish(format, format === 'chatgpt-context' || format === 'chatgpt-list' ? 'ChatGPT' : null, items, skipped);
}

/** The same memory twice in one paste is previewed once (the first, with its date). */
function finish(format: CarriedFormat, source: string | null, all: readonly CarriedMemory[], skipped: CarriedSkip[]): CarryParse {
  const seen = new Set<string>();
  const items: CarriedMemory[] = [];
  let repeated = 0;
  for (const m of all) {
    const id = memoryIdentity(m.text);
    if (!id) continue;
    if (seen.has(id)) {
      repeated++;
      continue;
    }
    seen.add(id);
    items.push(m);
  }
  if (!items.length) {
    return fail(
      'NO_MEMORIES',
      format === 'pam'
        ? 'This Portable AI Memory file holds no active memories. Nothing was imported.'
        : 'No memories found in this text: paste one memory per line. Nothing was imported.',
    );
  }
  return {
    ok: true,
    format,
    source,
    items,
    skipped: repeated ? [...skipped, { count: repeated, reason: 'repeated in the text' }] : skipped,
  };
}
