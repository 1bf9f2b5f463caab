/**
 * Removing a deleted turn's text from the copies other records keep of it: the stored requests of
 * answers ("what was sent") hold the turn verbatim as chat history and as a clipped, whitespace-
 * collapsed excerpt (recall/snippet.ts `focusClip`), and citation labels hold its first words.
 *
 * A clipped excerpt can be any window of the turn, so matching is by 16-character shingles of the
 * turn's collapsed text: every run of a string covered by shingles of the deleted text, at least
 * 32 characters long (or the whole text, when it is shorter), is replaced by REDACTED. 32 keeps a
 * common phrase that happens to occur in both ("what do you think") from being cut out of
 * unrelated text.
 */

export const REDACTED = '[deleted]';

const SHINGLE = 16;
const MIN_RUN = 2 * SHINGLE;

const collapse = (text: string): string => text.replace(/\s+/g, ' ').trim();

export interface DeletedText {
  readonly raw: string;
  readonly collapsed: string;
  /** Every SHINGLE-length substring of `collapsed` (empty when it is shorter than MIN_RUN). */
  readonly shingles: ReadonlySet<string>;
}

export function deletedText(raw: string): DeletedText {
  const collapsed = collapse(raw);
  const shingles = new Set<string>();
  if (collapsed.length >= MIN_RUN) for (let i = 0; i + SHINGLE <= collapsed.length; i++) shingles.add(collapsed.slice(i, i + SHINGLE));
  return { raw, collapsed, shingles };
}

/** `text` with every copy (whole or a window of at least 32 characters) of the deleted text replaced. */
export function redactString(text: string, d: DeletedText): string {
  if (!d.collapsed) return text;
  let out = d.raw.trim() ? text.split(d.raw.trim()).join(REDACTED) : text;
  if (d.collapsed.length < MIN_RUN) return out.split(d.collapsed).join(REDACTED);
  if (out.length < MIN_RUN) return out;
  const covered = new Uint8Array(out.length);
  for (let i = 0; i + SHINGLE <= out.length; i++) {
    if (d.shingles.has(out.slice(i, i + SHINGLE))) covered.fill(1, i, i + SHINGLE);
  }
  let result = '';
  let i = 0;
  while (i < out.length) {
    if (!covered[i]) {
      result += out[i];
      i++;
      continue;
    }
    let j = i;
    while (j < out.length && covered[j]) j++;
    result += j - i >= MIN_RUN ? REDACTED : out.slice(i, j);
    i = j;
  }
  out = result;
  return out;
}

/**
 * Which deleted texts redactString could change a string for, found in one pass over it — a
 * necessary condition for each way it matches: a whole text (raw, or collapsed when shorter than 32)
 * starts where one of its first 16 characters is found; a covered run of 32 or more is a chain of
 * its shingles, each overlapping or touching the last; texts shorter than 16 are looked for whole. Redacting
 * many deleted items (Delete all: 500 per transaction) is then one scan of each stored string, not
 * a scan per item: 500 facts over 300 stored answers took 94 s with a scan per item (and as long
 * with any shingle hit counting, since facts share their first words: "The user said …").
 */
function candidates(texts: readonly DeletedText[]): (s: string) => DeletedText[] {
  const wholes = new Map<string, { d: DeletedText; whole: string }[]>();
  const shingles = new Map<string, DeletedText[]>();
  const tiny: { d: DeletedText; needles: string[] }[] = [];
  for (const d of texts) {
    const needles: string[] = [];
    const whole = [d.raw.trim(), ...(d.collapsed.length < MIN_RUN ? [d.collapsed] : [])];
    for (const w of new Set(whole)) {
      if (!w) continue;
      if (w.length < SHINGLE) needles.push(w);
      else wholes.set(w.slice(0, SHINGLE), [...(wholes.get(w.slice(0, SHINGLE)) ?? []), { d, whole: w }]);
    }
    for (const sh of d.shingles) {
      const list = shingles.get(sh);
      if (list) list.push(d);
      else shingles.set(sh, [d]);
    }
    if (needles.length) tiny.push({ d, needles });
  }
  return (s) => {
    const found = new Set<DeletedText>();
    // Per text, the run its shingles cover so far: windows that overlap or touch extend it.
    const run = new Map<DeletedText, { start: number; last: number }>();
    for (let i = 0; i + SHINGLE <= s.length; i++) {
      const w = s.slice(i, i + SHINGLE);
      for (const { d, whole } of wholes.get(w) ?? []) if (!found.has(d) && s.startsWith(whole, i)) found.add(d);
      for (const d of shingles.get(w) ?? []) {
        if (found.has(d)) continue;
        const at = run.get(d);
        if (!at || i > at.last + SHINGLE) run.set(d, { start: i, last: i });
        else {
          at.last = i;
          if (i + SHINGLE - at.start >= MIN_RUN) found.add(d);
        }
      }
    }
    for (const { d, needles } of tiny) if (!found.has(d) && needles.some((n) => s.includes(n))) found.add(d);
    // In the order given, as redactString would be applied to all of them.
    return texts.filter((d) => found.has(d));
  };
}

/** A JSON-like value with every string redacted; `changed` says whether anything was replaced. */
export function redactValue(value: unknown, texts: readonly DeletedText[]): { value: unknown; changed: boolean } {
  return redactor(texts)(value);
}

/** redactValue for many values with the same deleted texts: the texts are indexed once. */
export function redactor(texts: readonly DeletedText[]): (value: unknown) => { value: unknown; changed: boolean } {
  const which = candidates(texts);
  return (value) => {
    let changed = false;
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') {
        let s = v;
        for (const d of which(v)) s = redactString(s, d);
        if (s !== v) changed = true;
        return s;
      }
      if (Array.isArray(v)) return v.map(walk);
      if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
      return v;
    };
    const out = walk(value);
    return { value: out, changed };
  };
}

/**
 * Substrings any stored copy of the text contains, for a cheap SQL prefilter before parsing rows:
 * the JSON-escaped start of the raw text and of the collapsed text, and collapsed blocks of 16
 * characters every 48 (an excerpt window of 64 characters or more contains one of them whole).
 */
export function probes(d: DeletedText): string[] {
  const esc = (s: string): string => JSON.stringify(s).slice(1, -1);
  const out = new Set<string>();
  const raw = d.raw.trim();
  if (raw) out.add(esc(raw.slice(0, MIN_RUN)));
  if (d.collapsed) out.add(esc(d.collapsed.slice(0, MIN_RUN)));
  for (let i = 0; i + SHINGLE <= d.collapsed.length; i += 3 * SHINGLE) out.add(esc(d.collapsed.slice(i, i + SHINGLE)));
  return [...out].filter((p) => p.length > 0);
}
