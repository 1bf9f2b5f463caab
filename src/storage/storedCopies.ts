/**
 * The copies stored answers keep of what was deleted: an answer's metadata holds the exact
 * requests sent ("what was sent": chat history, and a context of profile items, plans, episodes,
 * facts and turn excerpts, each printed by recall/answerContext.ts) and its citations (kind, item
 * id and a short label). Deleting a turn or a derived item redacts its text there — the request
 * keeps its shape, with REDACTED where the text was (core/base/redaction.ts) — and blanks the
 * label of every citation of the item, found by its id.
 */
import type { Sql } from '../core/base/sql';
import { deletedText, probes, REDACTED, redactor, type DeletedText } from '../core/base/redaction';
import { profileLine, type CitationKind } from '../core/recall/answerContext';

/** A deleted item as answers may hold it: the citation that names it, and the texts its context line printed. */
export interface DeletedItem {
  readonly kind: Exclude<CitationKind, 'turn'>;
  readonly id: string;
  readonly texts: readonly string[];
}

/**
 * Redacts `contents` from the metadata of stored answers, and blanks the labels of citations of
 * `refs`. Only answers stored after `sincePk` (pk order is insertion order) are read (answersToRead
 * narrows that further), and each string in them is scanned once for all texts (redaction.ts).
 */
export async function redactStoredCopies(
  tx: Sql,
  contents: readonly string[],
  sincePk: number,
  refs: readonly { readonly kind: CitationKind; readonly id: string }[] = [],
): Promise<number> {
  const texts: DeletedText[] = contents.map(deletedText).filter((d) => d.collapsed.length > 0);
  if (texts.length === 0 && refs.length === 0) return 0;
  const cited = new Set(refs.map((r) => `${r.kind}\u0000${r.id}`));
  const probeList = [...new Set([...texts.flatMap(probes), ...refs.map((r) => `"ref":${JSON.stringify(r.id)}`)])];
  const redact = redactor(texts);
  let changed = 0;
  for await (const r of answersToRead(tx, sincePk, probeList)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(r.metadata);
    } catch {
      // metadata that is not JSON holds no quoted text to redact
      continue;
    }
    const out = redact(parsed);
    const labels = cited.size > 0 && blankCitations(out.value, cited);
    if (!out.changed && !labels) continue;
    await tx.exec('UPDATE messages SET metadata = ? WHERE pk = ?', [JSON.stringify(out.value), r.pk]);
    changed++;
  }
  return changed;
}

/** Above this many probes, SQLite's instr over every probe costs more than reading every answer. */
const MAX_SQL_PROBES = 64;
const PAGE = 200;

/**
 * The stored answers after `sincePk` that may hold a copy. Few probes: those whose metadata contains
 * one (a prefilter in SQL, so a memory of thousands of answers is not parsed for one deleted turn).
 * Many (a conversation or 500 saved memories deleted at once): every answer with metadata, a page
 * at a time, left to the one-pass redactor.
 */
async function* answersToRead(tx: Sql, sincePk: number, probeList: readonly string[]): AsyncGenerator<{ pk: number; metadata: string }> {
  if (probeList.length <= MAX_SQL_PROBES) {
    yield* await tx.query<{ pk: number; metadata: string }>(
      `SELECT pk, metadata FROM messages
        WHERE pk > ? AND role = 'assistant' AND metadata <> '{}'
          AND EXISTS (SELECT 1 FROM json_each(?) p WHERE instr(messages.metadata, p.value) > 0)`,
      [sincePk, JSON.stringify(probeList)],
    );
    return;
  }
  let after = sincePk;
  for (;;) {
    const page = await tx.query<{ pk: number; metadata: string }>(
      `SELECT pk, metadata FROM messages WHERE pk > ? AND role = 'assistant' AND metadata <> '{}' ORDER BY pk LIMIT ${PAGE}`,
      [after],
    );
    yield* page;
    if (page.length < PAGE) return;
    after = Number(page[page.length - 1]!.pk);
  }
}

/**
 * Sets the label of every citation of a `cited` item to REDACTED, in place, in both lists that
 * carry them (`citations`: what the answer cited; `recalled`: everything its context held); true
 * when one was.
 */
function blankCitations(metadata: unknown, cited: ReadonlySet<string>): boolean {
  const m = metadata as { citations?: unknown; recalled?: unknown } | null;
  const lists = [m?.citations, m?.recalled].filter((l): l is unknown[] => Array.isArray(l));
  let changed = false;
  for (const c of lists.flat()) {
    if (!c || typeof c !== 'object') continue;
    const entry = c as { kind?: unknown; ref?: unknown; label?: unknown };
    if (cited.has(`${String(entry.kind)}\u0000${String(entry.ref)}`) && entry.label !== REDACTED) {
      entry.label = REDACTED;
      changed = true;
    }
  }
  return changed;
}

/**
 * Redacts deleted derived items from every stored answer. A derived item carries no link to the
 * answers that were sent it, so all answers are read (the probes keep that to a scan of the
 * metadata column); one call per transaction, however many items it deleted.
 */
export async function redactDeletedItems(tx: Sql, items: readonly DeletedItem[]): Promise<number> {
  if (items.length === 0) return 0;
  return redactStoredCopies(
    tx,
    items.flatMap((i) => i.texts),
    0,
    items,
  );
}

/** The texts an item's context line printed (answerContext.composeContext), for DeletedItem.texts. */
export const itemTexts = {
  fact: (content: string): string[] => [content],
  foresight: (content: string): string[] => [content],
  /**
   * Its value now and every earlier value its history keeps, each as printed (profileLine) and as
   * answers sent before that printed it: "key: value".
   */
  profile: (key: string, values: readonly string[]): string[] => [...new Set(values.flatMap((v) => [`${key}: ${v}`, profileLine(key, v)]))],
  /** "<span> — <title>: <narrative>": the title with its dash and colon, so a short title is not cut from unrelated text. */
  episode: (title: string | null, narrative: string | null): string[] => [
    ...(title ? [`— ${title}:`] : []),
    ...(narrative ? [narrative] : []),
  ],
};
