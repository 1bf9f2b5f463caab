/**
 * The memory summary's life: made on request (Refresh), kept under a meta key so opening the page
 * costs nothing, stale when the items behind it changed, and edited in place.
 *
 * Made, in this order of preference: by the endpoint; by the model on this device when there is no
 * endpoint; from the items themselves with no model (itemSummary.ts). A model's reply that cannot be
 * read, cites nothing it was shown, or does not come (endpoint down) gives the summary made from the
 * items, with a note saying why — never a broken page. The prompt fits a small model's window
 * (callBudget, as synthesis does): the items that do not fit are not shown, so cannot be cited.
 *
 * Deleted means gone: every change to memory (`changed`, on the engine's memory events) drops the
 * sentences citing an item that no longer exists from the stored value at once — their words may be
 * the deleted item's. Reads, makes, edits and these prunes run one at a time, in order, so a prune
 * queued after a deletion always runs after a summary made from the items read before it.
 *
 * An edit of a sentence is a memory written by the person, saved like "Add a memory" (SavedMemories):
 * the sentence then cites that memory. Only the general memory is summarised: never the chats of a
 * project-only project (`scope`).
 */
import { RecollectError } from '../base/errors';
import type { Clock, Llm } from '../base/ports';
import { loadTokenCounter } from '../base/tokens';
import type { MetaStore } from '../base/store';
import type { MemoryScope } from '../recall/memoryScope';
import { callBudget, messageTokens } from '../synthesis/smallModel';
import type { ProfileItem } from '../synthesis/knowledge';
import { summariseItems } from '../explorer/itemSummary';
import {
  asSentence,
  citedIds,
  itemsFingerprint,
  readStoredSummary,
  SUMMARY_META_KEY,
  withoutMissing,
  type MemorySummary,
  type MemorySummaryView,
  type SummaryItem,
  type SummaryMaker,
  type SummaryParagraph,
  type SummarySentenceRef,
} from '../explorer/memorySummary';
import {
  buildSummaryPrompt,
  readSummaryReply,
  SUMMARY_MAX_ITEMS,
  SUMMARY_MAX_TOKENS,
  SUMMARY_STAGE,
  summaryItemLine,
  summaryOutputSchema,
} from '../explorer/summaryPrompt';

/** Newest facts a summary is made from (the profile and the plans ahead are read whole). */
export const SUMMARY_FACTS = 200;

/** Storage's side (src/storage/summarySource.ts). */
export interface SummarySource {
  /** The active profile, plans not over at `now`, the `factLimit` newest current facts; all inside `scope`. */
  items(now: number, factLimit: number, scope?: MemoryScope): Promise<SummaryItem[]>;
  /** Which of `ids` are still items inside `scope` (deleted, dismissed, walled-off ones are not). */
  existing(ids: readonly string[], scope?: MemoryScope): Promise<Set<string>>;
  /** Keeps the summary (under SUMMARY_META_KEY); `removed`: it lost a deleted item's words, so no old copy may stay on disk. */
  write(value: string, removed: boolean): Promise<void>;
}

export interface SummaryModel {
  readonly llm: Llm;
  readonly maker: Exclude<SummaryMaker, 'items'>;
}

export interface MemorySummariesDeps {
  readonly meta: MetaStore;
  readonly source: SummarySource | null;
  /** The general memory's scope (undefined: no project-only project exists). */
  readonly scope: () => Promise<MemoryScope | undefined>;
  /** The endpoint, else the model on this device, else null. */
  readonly model: () => SummaryModel | null;
  readonly save: (text: string) => Promise<ProfileItem>;
  readonly clock: Clock;
  readonly zone: () => string;
}

const MAKER_NAMES: Readonly<Record<Exclude<SummaryMaker, 'items'>, string>> = {
  endpoint: 'the endpoint',
  device: 'the model on this device',
};

export class MemorySummaries {
  readonly #d: MemorySummariesDeps;
  #queue: Promise<unknown> = Promise.resolve();
  #pruneQueued = false;

  constructor(deps: MemorySummariesDeps) {
    this.#d = deps;
  }

  #source(): SummarySource {
    if (!this.#d.source) throw new RecollectError('INTERNAL', 'This engine was built without the memory summary.');
    return this.#d.source;
  }

  /** Runs `work` after everything queued before it. */
  #run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(work, work);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #stored(): Promise<{ readonly raw: string | null; readonly summary: MemorySummary | null }> {
    const raw = await this.#d.meta.getMeta(SUMMARY_META_KEY);
    return { raw, summary: readStoredSummary(raw) };
  }

  async #store(summary: MemorySummary, removed = false): Promise<void> {
    await this.#source().write(JSON.stringify(summary), removed);
  }

  async #items(): Promise<SummaryItem[]> {
    return this.#source().items(this.#d.clock.now(), SUMMARY_FACTS, await this.#d.scope());
  }

  /** Memory changed: the stored summary loses, at once, every sentence citing an item that is gone. */
  changed(): void {
    if (!this.#d.source || this.#pruneQueued) return;
    this.#pruneQueued = true;
    void this.#run(async () => {
      this.#pruneQueued = false;
      await this.#prune();
    }).catch(() => undefined); // the next read prunes again
  }

  async #prune(): Promise<MemorySummary | null> {
    const { raw, summary } = await this.#stored();
    if (!summary) return null;
    const existing = await this.#source().existing(citedIds(summary), await this.#d.scope());
    const pruned = withoutMissing(summary, existing);
    // Rewritten whenever it differs from what is kept (a file's value holds only what was read back).
    if (JSON.stringify(pruned) !== raw) await this.#store(pruned, true);
    return pruned;
  }

  #view(summary: MemorySummary | null, items: readonly SummaryItem[]): MemorySummaryView {
    const stale = summary !== null && summary.fingerprint !== itemsFingerprint(items);
    return { summary, stale, items: items.length, maker: this.#d.model()?.maker ?? 'items' };
  }

  /** The stored summary (pruned first), whether it is stale, and what Refresh would use. */
  view(): Promise<MemorySummaryView> {
    return this.#run(async () => this.#view(await this.#prune(), await this.#items()));
  }

  /** Makes the summary again from the current items (Refresh) and keeps it. */
  make(): Promise<MemorySummaryView> {
    return this.#run(async () => {
      const items = await this.#items();
      if (items.length === 0)
        throw new RecollectError(
          'INVALID_INPUT',
          'There is nothing to summarise yet: tell Recollect about yourself in a chat, or add a memory in Saved memories.',
        );
      const model = this.#d.model();
      const written = model ? await this.#byModel(model, items) : null;
      const summary: MemorySummary = {
        paragraphs: written && 'paragraphs' in written ? written.paragraphs : summariseItems(items, this.#d.zone()),
        madeBy: written && 'paragraphs' in written ? model!.maker : 'items',
        madeAt: this.#d.clock.now(),
        fingerprint: itemsFingerprint(items),
        ...(written && 'note' in written ? { note: written.note } : {}),
      };
      // What it replaces may quote an item's words as they were before an edit: no old copy stays either.
      await this.#store(summary, true);
      return this.#view(summary, items);
    });
  }

  async #byModel(model: SummaryModel, items: readonly SummaryItem[]): Promise<{ paragraphs: SummaryParagraph[] } | { note: string }> {
    const zone = this.#d.zone();
    const shown = await this.#fit(model.llm, ordered(items), zone);
    const fallback = (why: string) => ({
      note: `The summary by ${MAKER_NAMES[model.maker]} could not be used (${why}), so this one was made from your memories directly.`,
    });
    try {
      const result = await model.llm.completeJson({
        stage: SUMMARY_STAGE,
        messages: buildSummaryPrompt(shown, zone),
        schema: summaryOutputSchema,
        maxTokens: callBudget(model.llm.contextTokens, SUMMARY_MAX_TOKENS)?.outputTokens ?? SUMMARY_MAX_TOKENS,
      });
      const reply = readSummaryReply(result.value, shown);
      return reply.ok ? { paragraphs: reply.paragraphs } : fallback(reply.reason);
    } catch (err) {
      const code = err instanceof RecollectError ? err.code : 'INTERNAL';
      return fallback(code === 'LLM_BAD_OUTPUT' ? 'its reply was not readable JSON' : `it failed: ${(err as Error).message}`);
    }
  }

  /** The items shown to the model: all that fit a small window (or SUMMARY_MAX_ITEMS for an endpoint). */
  async #fit(llm: Llm, items: readonly SummaryItem[], zone: string): Promise<SummaryItem[]> {
    const budget = callBudget(llm.contextTokens, SUMMARY_MAX_TOKENS);
    const capped = items.slice(0, SUMMARY_MAX_ITEMS);
    if (!budget) return capped;
    const count = await loadTokenCounter();
    let room = budget.promptTokens - messageTokens(buildSummaryPrompt([], zone), count);
    const shown: SummaryItem[] = [];
    for (const item of capped) {
      room -= count(summaryItemLine(item, `M${shown.length + 1}`, zone)) + 1;
      if (room < 0) break;
      shown.push(item);
    }
    return shown;
  }

  /**
   * Replaces one sentence by the person's words: they are saved as a memory written by them (as
   * "Add a memory"), and the sentence cites it. A summary that was current stays current.
   */
  editSentence(ref: SummarySentenceRef, text: string): Promise<MemorySummaryView> {
    return this.#run(async () => {
      const stored = await this.#prune();
      const old = stored?.paragraphs[ref.paragraph]?.sentences[ref.sentence];
      if (!stored || !old || old.text !== ref.was)
        throw new RecollectError('NOT_FOUND', 'That sentence is no longer in the summary (it changed meanwhile). Nothing was saved.');
      const current = stored.fingerprint === itemsFingerprint(await this.#items());
      const item = await this.#d.save(text);
      const paragraphs = stored.paragraphs.map((p, i) =>
        i !== ref.paragraph
          ? p
          : {
              ...p,
              sentences: p.sentences.map((s, j) =>
                j === ref.sentence ? { text: asSentence(item.value), items: [{ id: item.id, kind: 'profile' as const }] } : s,
              ),
            },
      );
      const items = await this.#items();
      const summary: MemorySummary = { ...stored, paragraphs, fingerprint: current ? itemsFingerprint(items) : stored.fingerprint };
      await this.#store(summary);
      return this.#view(summary, items);
    });
  }
}

/** What a model sees first (and keeps when the window is small): the person's own words, then the profile, plans, newest facts. */
function ordered(items: readonly SummaryItem[]): SummaryItem[] {
  const rank = (i: SummaryItem) => (i.byUser ? 0 : 1) * 10 + ['profile', 'plan', 'fact'].indexOf(i.kind);
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => rank(a.item) - rank(b.item) || a.i - b.i)
    .map((x) => x.item);
}
