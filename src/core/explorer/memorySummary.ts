/**
 * "What Recollect knows about you": a few short paragraphs by topic, each sentence citing the
 * memory items it rests on (profile items, plans ahead, facts). This module holds the shapes, the
 * stored form (one JSON value under a meta key: a summary is derived, so it needs no table) and the
 * two rules every way of making one shares:
 *
 * - a sentence cites at least one item, and only items that were shown to whoever wrote it;
 * - deleted means gone: a sentence citing an item that no longer exists is dropped from the stored
 *   value at once (withoutMissing), because its words may be the deleted item's words.
 *
 * A summary is stale when the items it was made from changed (added, edited, deleted): its
 * `fingerprint` is compared with the current items' (itemsFingerprint), at no model cost.
 */

export type SummaryItemKind = 'profile' | 'plan' | 'fact';

/** One memory item a summary may be made from, as the summary source reads it. */
export interface SummaryItem {
  readonly id: string;
  readonly kind: SummaryItemKind;
  /** The profile item's key ("diet"), null for plans and facts. */
  readonly key: string | null;
  readonly text: string;
  /** When it happened or starts (plans), else when it was written. */
  readonly at: number | null;
  /** A plan's end, when it has one. */
  readonly until?: number | null;
  /** Written (or edited) by the person. */
  readonly byUser: boolean;
}

export interface SummaryRef {
  readonly id: string;
  readonly kind: SummaryItemKind;
}

export interface SummarySentence {
  readonly text: string;
  /** The items the sentence rests on: never empty. */
  readonly items: readonly SummaryRef[];
}

export interface SummaryParagraph {
  readonly topic: string;
  readonly sentences: readonly SummarySentence[];
}

/** Who wrote it: the endpoint, the model on this device, or no model at all (from the items). */
export type SummaryMaker = 'endpoint' | 'device' | 'items';

export interface MemorySummary {
  readonly paragraphs: readonly SummaryParagraph[];
  readonly madeBy: SummaryMaker;
  readonly madeAt: number;
  /** itemsFingerprint of the items it was made from (and of every edit made in it since). */
  readonly fingerprint: string;
  /** Why a model's summary was not used, when it was not ("the model's reply could not be read"). */
  readonly note?: string;
}

/** What the Summary page shows. */
export interface MemorySummaryView {
  /** Null until one is made. */
  readonly summary: MemorySummary | null;
  /** The items behind it changed since it was made (Refresh remakes it). */
  readonly stale: boolean;
  /** How many items a summary would be made from now (0: nothing to summarise yet). */
  readonly items: number;
  /** What Refresh would use now. */
  readonly maker: SummaryMaker;
}

/** Which sentence an edit replaces: its place, and the words it had (a summary remade meanwhile is not edited blind). */
export interface SummarySentenceRef {
  readonly paragraph: number;
  readonly sentence: number;
  readonly was: string;
}

export const SUMMARY_META_KEY = 'memory.summary';
/** Limits of a stored summary (an imported file's value passes the same ones). */
export const SUMMARY_LIMITS = { paragraphs: 8, sentences: 12, sentenceChars: 600, topicChars: 60, refs: 12, storedChars: 200_000 } as const;

const KINDS: readonly SummaryItemKind[] = ['profile', 'plan', 'fact'];

/** FNV-1a over the items' ids and words, order-free: any addition, edit or deletion changes it. */
export function itemsFingerprint(items: readonly SummaryItem[]): string {
  const lines = items.map((i) => `${i.kind}\u0001${i.id}\u0001${i.text}\u0001${i.at ?? ''}\u0001${i.until ?? ''}`).sort();
  let h = 0x811c9dc5;
  for (const line of lines) {
    for (let i = 0; i < line.length; i++) {
      h ^= line.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    h ^= 0x0a;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `${items.length}:${h.toString(16)}`;
}

/** Every item id a summary cites. */
export function citedIds(summary: MemorySummary): string[] {
  return [...new Set(summary.paragraphs.flatMap((p) => p.sentences.flatMap((s) => s.items.map((r) => r.id))))];
}

/**
 * The summary without the sentences citing an item not in `existing` (and without paragraphs left
 * empty); the same object when nothing goes.
 */
export function withoutMissing(summary: MemorySummary, existing: ReadonlySet<string>): MemorySummary {
  let dropped = false;
  const paragraphs = summary.paragraphs
    .map((p) => {
      const sentences = p.sentences.filter((s) => s.items.every((r) => existing.has(r.id)));
      if (sentences.length !== p.sentences.length) dropped = true;
      return { ...p, sentences };
    })
    .filter((p) => p.sentences.length > 0);
  return dropped ? { ...summary, paragraphs } : summary;
}

const oneLine = (text: string, max: number): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
};

/** A sentence's words as stored: one line, ending with a full stop unless it already ends a sentence. */
export function asSentence(text: string): string {
  const line = oneLine(text, SUMMARY_LIMITS.sentenceChars);
  if (!line) return '';
  const first = line[0]!.toLocaleUpperCase() + line.slice(1);
  return /[.!?…。！？]["'”’)]?$/u.test(first) ? first : `${first}.`;
}

/**
 * A stored summary read back, or null when the value is not one (an old or a foreign value, a file
 * from elsewhere): every field checked and cut to SUMMARY_LIMITS, sentences citing nothing dropped.
 */
export function readStoredSummary(raw: string | null): MemorySummary | null {
  if (raw === null || raw.length > SUMMARY_LIMITS.storedChars) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const madeBy = v.madeBy;
  if (madeBy !== 'endpoint' && madeBy !== 'device' && madeBy !== 'items') return null;
  if (typeof v.madeAt !== 'number' || !Number.isFinite(v.madeAt) || typeof v.fingerprint !== 'string' || v.fingerprint.length > 100)
    return null;
  if (!Array.isArray(v.paragraphs)) return null;
  const paragraphs: SummaryParagraph[] = [];
  for (const p of v.paragraphs.slice(0, SUMMARY_LIMITS.paragraphs)) {
    if (typeof p !== 'object' || p === null) continue;
    const { topic, sentences } = p as Record<string, unknown>;
    if (typeof topic !== 'string' || !Array.isArray(sentences)) continue;
    const kept: SummarySentence[] = [];
    for (const s of sentences.slice(0, SUMMARY_LIMITS.sentences)) {
      if (typeof s !== 'object' || s === null) continue;
      const { text, items } = s as Record<string, unknown>;
      // Every ref must be readable and few enough: a sentence is only as deletable as its refs are complete.
      if (typeof text !== 'string' || !text.trim() || !Array.isArray(items) || items.length > SUMMARY_LIMITS.refs) continue;
      const refs = items
        .filter(
          (r): r is SummaryRef =>
            typeof r === 'object' &&
            r !== null &&
            typeof (r as SummaryRef).id === 'string' &&
            (r as SummaryRef).id.length <= 200 &&
            KINDS.includes((r as SummaryRef).kind),
        )
        .map((r) => ({ id: r.id, kind: r.kind }));
      if (refs.length && refs.length === items.length) kept.push({ text: oneLine(text, SUMMARY_LIMITS.sentenceChars), items: refs });
    }
    if (kept.length) paragraphs.push({ topic: oneLine(topic, SUMMARY_LIMITS.topicChars) || 'About you', sentences: kept });
  }
  const note = typeof v.note === 'string' ? oneLine(v.note, 300) : undefined;
  return { paragraphs, madeBy, madeAt: v.madeAt, fingerprint: v.fingerprint, ...(note ? { note } : {}) };
}
