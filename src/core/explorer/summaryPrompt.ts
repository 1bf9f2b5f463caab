/**
 * The summary written by a model (the endpoint, or the model on this device): the prompt, and the
 * reading of its reply. Items are shown under short labels (M1, M2, …) that the reply cites and
 * readSummaryReply maps back to ids; a label that was not shown, a sentence citing no shown item, a
 * paragraph left empty are dropped, so a model cannot cite what it was not given. The schema given
 * to completeJson accepts any object: broken JSON that cannot be repaired fails there (LLM_BAD_OUTPUT),
 * a well-formed reply of the wrong shape fails here with a reason — either way the caller falls back
 * to the summary made from the items.
 *
 * The mock responder of the e2e tests recognises this prompt by SUMMARY_PROMPT_START and "ITEMS:".
 */
import { z } from 'zod';
import type { LlmMessage } from '../base/ports';
import { formatDay } from '../synthesis/synthesisPrompts';
import { asSentence, SUMMARY_LIMITS, type SummaryItem, type SummaryParagraph, type SummarySentence } from './memorySummary';

export const SUMMARY_STAGE = 'summary';
export const SUMMARY_MAX_TOKENS = 1200;
/** Items shown to a model with no declared window (an endpoint); a small window shows fewer (MemorySummaries). */
export const SUMMARY_MAX_ITEMS = 150;
const ITEM_CHARS = 300;

export const SUMMARY_PROMPT_START = 'You write the short summary of what an assistant knows about a person';

const SYSTEM = `${SUMMARY_PROMPT_START}, from the memory ITEMS below.

Rules:
1. Use only the ITEMS. Invent nothing; leave out what is unclear.
2. Write 2 to 6 paragraphs, each with a short topic such as "About you", "Work", "People", "Preferences", "Plans".
3. Each sentence is short, speaks to the person ("You work as a nurse."), and lists in "items" the labels of every item it rests on (at least one).
4. At most 8 sentences a paragraph.

JSON shape:
{"paragraphs": [{"topic": "Work", "sentences": [{"text": "You work night shifts as a nurse in Leeds.", "items": ["M2", "M5"]}]}]}`;

const oneLine = (text: string, max: number): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
};

/** One item as the prompt shows it: `M3 [plan, 12 May 2026] Dentist check-up`. */
export function summaryItemLine(item: SummaryItem, label: string, zone: string): string {
  const kind = item.kind === 'profile' ? 'about you' : item.kind;
  const when = item.at !== null ? `, ${formatDay(item.at, zone)}` : '';
  const words = item.kind === 'profile' && !item.byUser && item.key ? `${item.key}: ${item.text}` : item.text;
  return `${label} [${kind}${when}] ${oneLine(words, ITEM_CHARS)}`;
}

export function buildSummaryPrompt(items: readonly SummaryItem[], zone: string): LlmMessage[] {
  const lines = items.map((item, i) => summaryItemLine(item, `M${i + 1}`, zone));
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: `ITEMS:\n${lines.length ? lines.join('\n') : 'none'}\n\nWrite the summary as JSON.` },
  ];
}

/** Any JSON object: the shape is checked by readSummaryReply, which can say what was wrong. */
export const summaryOutputSchema = z.record(z.string(), z.unknown());

export type SummaryReply = { readonly ok: true; readonly paragraphs: SummaryParagraph[] } | { readonly ok: false; readonly reason: string };

/** "M3", "m3", "[M3]", 3 → the item shown third; anything else → undefined. */
function labelled(label: unknown, shown: readonly SummaryItem[]): SummaryItem | undefined {
  const m =
    typeof label === 'number'
      ? [String(label), String(label)]
      : typeof label === 'string'
        ? /^\s*\[?\s*M?(\d+)\s*\]?\s*$/i.exec(label)
        : null;
  if (!m) return undefined;
  const n = Number(m[1]);
  return Number.isInteger(n) && n >= 1 ? shown[n - 1] : undefined;
}

/**
 * The model's reply as paragraphs citing the items shown (`shown`, in label order). Not ok when
 * the reply has no paragraphs list, or when no sentence cites a shown item.
 */
export function readSummaryReply(value: unknown, shown: readonly SummaryItem[]): SummaryReply {
  if (typeof value !== 'object' || value === null || !Array.isArray((value as { paragraphs?: unknown }).paragraphs))
    return { ok: false, reason: 'the reply had no list of paragraphs' };
  const paragraphs: SummaryParagraph[] = [];
  let dropped = 0;
  for (const p of (value as { paragraphs: unknown[] }).paragraphs) {
    if (paragraphs.length >= SUMMARY_LIMITS.paragraphs) break;
    if (typeof p !== 'object' || p === null) continue;
    const { topic, sentences } = p as Record<string, unknown>;
    if (!Array.isArray(sentences)) continue;
    const kept: SummarySentence[] = [];
    for (const s of sentences) {
      if (kept.length >= SUMMARY_LIMITS.sentences) break;
      if (typeof s !== 'object' || s === null) continue;
      const { text, items } = s as Record<string, unknown>;
      const words = typeof text === 'string' ? asSentence(text) : '';
      const cited = Array.isArray(items) ? [...new Set(items.map((l) => labelled(l, shown)).filter((i) => i !== undefined))] : [];
      // A sentence citing more than a sentence can hold is not kept: its words might be an item it does not list.
      if (!words || cited.length === 0 || cited.length > SUMMARY_LIMITS.refs) {
        dropped++;
        continue;
      }
      kept.push({ text: words, items: cited.map((i) => ({ id: i.id, kind: i.kind })) });
    }
    const title = typeof topic === 'string' ? oneLine(topic, SUMMARY_LIMITS.topicChars) : '';
    if (kept.length) paragraphs.push({ topic: title || 'About you', sentences: kept });
  }
  if (paragraphs.length === 0)
    return { ok: false, reason: dropped ? 'no sentence of the reply cited one of the memories it was given' : 'the reply was empty' };
  return { ok: true, paragraphs };
}
