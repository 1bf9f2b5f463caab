/**
 * The read path (docs/architecture.md, Read path), no LLM: analyse the question → lexical candidates from the turn
 * index (BM25 over turn + speaker + caption + neighbour context) and, with an embedder, vector
 * candidates → pseudo-relevance feedback (a second lexical query from the top hits' words) →
 * weighted RRF → boosts (speaker, dates, time expressions, session aggregation) → optional
 * rerank (rerankOrder.ts: what the reranker singles out is fused in at the model's trust) →
 * ranked turns, each with the signals that retrieved it.
 *
 * Data access goes through RetrievalSource (implemented over SQL in src/storage), so the same
 * code runs in the browser worker, in Node tests and in the benchmark.
 */
import type { Embedder, Reranker } from '../base/ports';
import type { Message } from '../base/types';
import {
  analyzeQuery,
  FRAMING_WORDS,
  STANDING_INSTRUCTION,
  STATES_INSTRUCTION,
  STATES_PREFERENCE,
  TIME_EXPRESSION,
  type QueryAnalysis,
} from './queryAnalysis';
import { STOP_WORDS, letterWords as words, terms as lowerTerms } from '../base/text';
import {
  applyBoosts,
  diversify,
  reciprocalRankFusion,
  type BoostFacts,
  type BoostSignal,
  type RankedList,
  type RetrievalConfig,
  RETRIEVAL_CONFIG,
} from './fusion';
import { rerankOrder } from './rerankOrder';
import { rerankPoolExtras } from './rerankPool';
import { fieldedScores, fullQueryScores, type ContextWindows, type TermStats } from './fullQueryScore';

/** Restricts a search. Omitted fields do not restrict. */
export interface RetrievalScope {
  readonly conversationIds?: readonly string[];
  /** Never turns of these conversations (the ones whose "Remember this conversation" is off). */
  readonly excludeConversationIds?: readonly string[];
  /** Only turns that happened at or before this time (ms). */
  readonly until?: number;
}

/** A question already embedded, with the model whose vectors it is compared to. */
export interface QueryVector {
  readonly modelId: string;
  readonly dim: number;
  readonly vector: Float32Array;
}

export interface LexicalOptions {
  readonly limit: number;
  readonly fields: RetrievalConfig['fields'];
  readonly scope?: RetrievalScope;
}

export interface OwnWordsOptions {
  readonly limit: number;
  /** bm25() column weights of the turn's own words and its speaker. */
  readonly content: number;
  readonly speaker: number;
  /** Rows the query may score: the rarest terms are kept while their postings sum to at most this. */
  readonly postings: number;
  readonly scope?: RetrievalScope;
}

/** A turn with a score, higher is better. */
export interface ScoredTurn {
  readonly id: string;
  readonly score: number;
}

/**
 * `from`'s words are in `to`'s neighbour context, on `to`'s `side` (the turn index's window): `from`
 * comes `distance` turns before `to` (side 'before') or after it (side 'after').
 */
export interface ContextLink {
  readonly from: string;
  readonly to: string;
  readonly side: 'before' | 'after';
  readonly distance: number;
}

/**
 * What ranking needs of a candidate turn: no metadata, and its text only when asked for (the
 * boosts read it only for a question about time or advice).
 */
export interface TurnFacts {
  readonly id: string;
  readonly conversationId: string;
  readonly occurredAt: number;
  readonly speaker: string;
  readonly role: Message['role'];
  readonly content?: string;
}

/** What retrieval reads. Ranked lists are message ids, best first. */
export interface RetrievalSource {
  /** How many turns the memory holds (approximately: the highest turn key). */
  size(): Promise<number>;
  /** False while some stored turns are not yet in the turn index (a large memory's appends leave them queued). */
  turnIndexCurrent(): Promise<boolean>;
  /**
   * BM25 over the turns' own words (no neighbour text), OR over `terms`; when their postings are
   * many, only the rarest terms are queried (the source's budget), so the cost stays bounded.
   */
  ownWords(terms: readonly string[], options: OwnWordsOptions): Promise<ScoredTurn[]>;
  /** Index-wide statistics of the turns' own words for `terms` (full-query BM25 of candidates, fullQueryScore.ts). */
  termStats(terms: readonly string[]): Promise<TermStats>;
  /** Each turn with the turns of its neighbour context (the turn index's window), and their texts. */
  contextWindows(ids: readonly string[]): Promise<ContextWindows>;
  /** The turns (in scope) whose neighbour context holds each of `ids` (the turn index's window). */
  contextLinks(ids: readonly string[], scope?: RetrievalScope): Promise<ContextLink[]>;
  /** BM25 over the turn index with OR semantics over `terms` (plain words; the source quotes them). */
  lexical(terms: readonly string[], options: LexicalOptions): Promise<string[]>;
  /** Nearest turns to `vector` by cosine, for `modelId`'s vectors; [] when there are none. */
  vector(vector: Float32Array, modelId: string, options: { readonly limit: number; readonly scope?: RetrievalScope }): Promise<string[]>;
  /** The turns with these ids that still exist (any order). */
  turns(ids: readonly string[]): Promise<Message[]>;
  /** What ranking needs of the turns with these ids that still exist (any order); `content` adds their text ('user': of the user's turns only). */
  facts(ids: readonly string[], options: { readonly content: boolean | 'user' }): Promise<TurnFacts[]>;
  /** Up to `before` turns before and `after` turns after `id` in its conversation, in order. */
  neighbours(id: string, before: number, after: number): Promise<Message[]>;
  /**
   * The user's turns (in scope) that may state a standing instruction (they hold "always", "never",
   * "whenever", "from now on", "going forward" or "when I ask"), newest first, at most `limit`, with their text.
   */
  ruleCandidates?(options: {
    readonly limit: number;
    readonly scope?: RetrievalScope;
  }): Promise<{ readonly id: string; readonly content: string }[]>;
  /** Cosine of `vector` with each of `ids`' stored vectors of `modelId` (ids without one are left out). */
  similarities?(ids: readonly string[], vector: Float32Array, modelId: string): Promise<Map<string, number>>;
}

export type RetrievalSignal = 'lexical' | 'own' | 'fielded' | 'rules' | 'prf' | 'vector' | 'rerank' | BoostSignal;

export interface RetrievedTurn {
  readonly message: Message;
  readonly score: number;
  /** Signals that fired for this turn, strongest first, e.g. ["lexical", "speaker", "session"]. */
  readonly reasons: readonly RetrievalSignal[];
  /** 1-based rank in each candidate list that held it. */
  readonly ranks: Readonly<Record<string, number>>;
  readonly boosts: Readonly<Partial<Record<BoostSignal, number>>>;
  readonly rerankScore?: number;
}

export interface RetrieveOptions {
  readonly limit?: number;
  /** Speaker names the question may mention. */
  readonly speakers?: readonly string[];
  /** When the question is asked; relative dates resolve against it. */
  readonly now?: number;
  /** The asker's IANA time zone: "yesterday" is a day of it (default UTC). */
  readonly timeZone?: string;
  readonly scope?: RetrievalScope;
  /** Skip the reranker for this call even when one is configured. */
  readonly rerank?: boolean;
  /**
   * The question's vector when the caller embedded it already or is embedding it (null: no vector
   * list). Omitted, the Retriever embeds the question with its own embedder, if it has one.
   */
  readonly queryVector?: QueryVector | null | Promise<QueryVector | null>;
}

export interface RetrievalResult {
  readonly analysis: QueryAnalysis;
  readonly turns: readonly RetrievedTurn[];
}

export interface RetrieverDeps {
  readonly source: RetrievalSource;
  readonly embedder?: Embedder;
  /** A promise when the reranker is still being looked up: the keyword query does not wait for it. */
  readonly reranker?: Reranker | Promise<Reranker | null>;
  readonly config?: RetrievalConfig;
}

export class Retriever {
  readonly #source: RetrievalSource;
  readonly #embedder: Embedder | undefined;
  readonly #reranker: Reranker | Promise<Reranker | null> | undefined;
  readonly config: RetrievalConfig;

  constructor(deps: RetrieverDeps) {
    this.#source = deps.source;
    this.#embedder = deps.embedder;
    this.#reranker = deps.reranker;
    this.config = deps.config ?? RETRIEVAL_CONFIG;
  }

  async retrieve(question: string, options: RetrieveOptions = {}): Promise<RetrievalResult> {
    const cfg = this.config;
    const limit = Math.max(1, options.limit ?? 10);
    const analysis = analyzeQuery(question, {
      ...(options.speakers ? { speakers: options.speakers } : {}),
      ...(options.now !== undefined ? { now: options.now } : {}),
      ...(options.timeZone ? { timeZone: options.timeZone } : {}),
    });
    const scope = options.scope;
    // Words of a relative date ("four weeks ago", "the past weekend") only: absolute ones ("June",
    // "2023") also match the session dates the turn index holds (its timeline column).
    const dateWords = new Set(
      cfg.dropDateWords ? analysis.temporal.ranges.filter((r) => RELATIVE_DATE.test(r.text)).flatMap((r) => lowerTerms(r.text)) : [],
    );
    const content = analysis.terms.filter((t) => !(cfg.dropFramingWords && FRAMING_WORDS.has(t)) && !dateWords.has(t));
    const terms = cfg.speakerNamesAsTerms ? [...content, ...analysis.speakers.map((s) => s.toLowerCase())] : [...content];
    if (terms.length === 0) terms.push(...analysis.terms);
    if (terms.length === 0) terms.push(...analysis.speakers.map((s) => s.toLowerCase()));

    // A request for advice (or, with boosts.requests, for any help now) is fitted to the user's own words.
    const advice = analysis.asksForAdvice || (cfg.boosts.requests && analysis.asksForHelp);
    const aboutUser = analysis.about === 'user' || (advice && cfg.boosts.adviceAboutUser);
    const fields = aboutUser ? { ...cfg.fields, ...cfg.userFields } : cfg.fields;
    // A large memory is searched by the turns' own words, neighbour context added by score
    // (#propagated); a small one by the turn index, which holds the neighbour text itself.
    // A turn not yet in the turn index is still found by its own words: the own-words path then.
    const size = cfg.large.above >= 0 ? await this.#source.size() : 0; // read only when the large path is on, as before
    const large = cfg.large.above >= 0 && (size > cfg.large.above || !(await this.#source.turnIndexCurrent()));
    // Turns read on the way (a large memory's rescored pool), kept for the fused read below.
    const loaded = new Map<string, Message>();
    // A reranker of trust 0 (the bundled stand-in) is not asked at all: it could change nothing.
    // Absent trust = 1 (test fakes, the bench's oracle and random).
    const rerankerP = Promise.resolve(this.#reranker ?? null);
    const reranks = (r: Reranker | null): r is Reranker =>
      r !== null && (r.trust ?? 1) > 0 && options.rerank !== false && cfg.rerank.candidates > 1;
    // The rerank pool may read the vector list deeper (rerankPool.ts); fusion keeps depth.vector.
    // The question embedded once, for the vector list and the standing instructions' list.
    // The vector list is wanted when its weight for this memory's size is above 0, or when a large
    // memory's rescored pool takes vector candidates.
    const vectorWeight = large ? cfg.large.vector : cfg.weights.vector;
    const wantsVector = vectorWeight > 0 || (large && cfg.large.rescoreVector > 0);
    const queryVectorP =
      wantsVector || cfg.rules.weight > 0
        ? Promise.resolve(options.queryVector === undefined ? this.#embed(question) : options.queryVector)
        : Promise.resolve(null);
    const deepVectorP = rerankerP.then((r) =>
      wantsVector ? this.#vectorCandidates(queryVectorP, scope, reranks(r) ? cfg.rerank.vectorDepth : 0) : Promise.resolve<string[]>([]),
    );
    const rulesP = this.#rules(queryVectorP, scope);
    const vectorP = deepVectorP.then((ids) => ids.slice(0, cfg.depth.vector));
    const lexicalP = !terms.length
      ? Promise.resolve<string[]>([])
      : large
        ? this.#propagated(terms, fields, scope, vectorP, loaded, size)
        : cfg.fielded.pool > 0 && !(cfg.fielded.weight > 0)
          ? this.#fielded(terms, fields, scope)
          : this.#source.lexical(terms, { limit: cfg.depth.lexical, fields, ...(scope ? { scope } : {}) });
    // A small memory's turn index also gets the large path's list (own words, neighbour context by score).
    const ownP =
      !large && terms.length && cfg.weights.own > 0
        ? this.#propagated(terms, fields, scope, vectorP, loaded, size)
        : Promise.resolve<string[]>([]);
    // With fielded.weight, the BM25F order is a list of its own beside the turn index's.
    // Its pool is the turn index's list when that is as deep (one keyword query, not two).
    const fieldedP =
      !large && terms.length && cfg.fielded.pool > 0 && cfg.fielded.weight > 0
        ? this.#fielded(
            terms,
            fields,
            scope,
            cfg.fielded.pool <= cfg.depth.lexical ? lexicalP.then((ids) => ids.slice(0, cfg.fielded.pool)) : undefined,
          )
        : Promise.resolve<string[]>([]);
    const [lexical, vector, reranker, own, fieldedList, rules] = await Promise.all([lexicalP, vectorP, rerankerP, ownP, fieldedP, rulesP]);
    const trust = reranker?.trust ?? 1;
    const reranking = reranks(reranker);

    const lists: RankedList[] = [
      { name: 'lexical', weight: large ? cfg.large.lexical : cfg.weights.lexical, ids: lexical },
      { name: 'vector', weight: vectorWeight, ids: vector },
      { name: 'own', weight: cfg.weights.own, ids: own },
      { name: 'fielded', weight: cfg.fielded.weight, ids: fieldedList },
      { name: 'rules', weight: cfg.rules.weight, ids: rules },
    ];
    if (cfg.prf.enabled && cfg.weights.prf > 0 && lexical.length > 0 && (!large || cfg.large.prf)) {
      const expansion = await this.#feedbackTerms(lexical.slice(0, cfg.prf.docs), new Set([...terms, ...analysis.speakers.flatMap(words)]));
      if (expansion.length > 0) {
        const prf = large
          ? await this.#propagated([...terms, ...expansion], fields, scope, vectorP, loaded, size)
          : cfg.fielded.pool > 0 && cfg.fielded.prf
            ? await this.#fielded([...terms, ...expansion], fields, scope)
            : await this.#source.lexical([...terms, ...expansion], { limit: cfg.depth.prf, fields, ...(scope ? { scope } : {}) });
        lists.push({ name: 'prf', weight: cfg.weights.prf, ids: prf });
      }
    }

    // Boosts multiply a fused score by a bounded factor, so what they can lift sits near the top:
    // only the best `depth.fused` candidates are read and rescored (a cost that does not grow
    // with the memory).
    const all = reciprocalRankFusion(lists, cfg.rrfK);
    const fused = all.slice(0, cfg.depth.fused);
    // With a reranker the pool goes deeper than what is boosted: the next fused candidates, in
    // fused order below the boosted ones, so a reranker can lift evidence the fusion placed low.
    const deeper = reranking ? all.slice(cfg.depth.fused, cfg.rerank.candidates) : [];
    // Plus turns the fused order holds low or not at all where evidence is likely (rerankPool.ts).
    const extras = reranking
      ? await rerankPoolExtras(
          all.slice(0, cfg.rerank.candidates).map((f) => f.id),
          lists,
          await deepVectorP,
          this.#source,
          { ...cfg.rerank, gapMs: cfg.boosts.sessionGapMs, ...(scope?.until !== undefined ? { until: scope.until } : {}) },
        )
      : [];
    const wanted = [...fused, ...deeper].map((f) => f.id).concat(extras);
    const messages = new Map(wanted.flatMap((id) => (loaded.has(id) ? [[id, loaded.get(id)!] as const] : [])));
    const preference = advice && cfg.boosts.preference > 0;
    const instruction = cfg.boosts.instruction > 0;
    const known: TurnFacts[] = [...messages.values()];
    const missing = wanted.filter((id) => !loaded.has(id));
    if (reranking) {
      // The reranker reads every pooled turn's text: read them whole at once.
      for (const m of await this.#source.turns(missing)) {
        messages.set(m.id, m);
        known.push(m);
      }
    } else {
      // Only the `limit` best are returned: the candidates are read without metadata (and without
      // their text unless a boost needs it), and the returned turns whole once ranked.
      known.push(
        ...(await this.#source.facts(missing, { content: analysis.temporal.asksForTime || preference || (instruction && 'user') })),
      );
    }
    const facts = new Map<string, BoostFacts>();
    for (const m of known) {
      facts.set(m.id, {
        conversationId: m.conversationId,
        occurredAt: m.occurredAt,
        speaker: m.speaker,
        role: m.role === 'assistant' ? 'assistant' : 'user',
        hasTimeExpression: analysis.temporal.asksForTime && TIME_EXPRESSION.test(m.content ?? ''),
        statesInstruction: instruction && m.role !== 'assistant' && STANDING_INSTRUCTION.test(m.content ?? ''),
        statesPreference:
          preference &&
          m.role !== 'assistant' &&
          (STATES_PREFERENCE.test(m.content ?? '') || (cfg.boosts.instructions && STATES_INSTRUCTION.test(m.content ?? ''))),
      });
    }
    const boosted = diversify(
      applyBoosts(
        fused,
        facts,
        {
          speakers: analysis.speakers,
          asksForTime: analysis.temporal.asksForTime,
          ranges: analysis.temporal.ranges,
          about: analysis.about,
          asksForAdvice: advice,
          asksForCurrent: analysis.asksForCurrent,
        },
        cfg.boosts,
      ),
      facts,
      cfg,
      analysis.asksAcrossTime,
    );

    let ranked: { item: (typeof boosted)[number]; score: number; rerankScore?: number }[] = boosted.map((item) => ({
      item,
      score: item.score,
    }));
    const floor = ranked.length ? ranked[ranked.length - 1]!.score : Infinity;
    for (const item of deeper)
      if (messages.has(item.id)) ranked.push({ item: { ...item, boosts: {} }, score: Math.min(item.score, floor) });
    const byId = new Map(extras.length ? all.map((f) => [f.id, f]) : []);
    for (const id of extras)
      if (messages.has(id))
        ranked.push({
          item: { ...(byId.get(id) ?? { id, score: 0, ranks: {} }), boosts: {} },
          score: Math.min(byId.get(id)?.score ?? 0, floor),
        });
    if (reranking && ranked.length > 1) {
      // Bounded depth: only the top `candidates` are scored (a known cost per question); they are
      // reordered among themselves, everything below keeps its fused order.
      const head = ranked.slice(0, cfg.rerank.candidates + extras.length);
      const docs = head.map(({ item }) => turnText(messages.get(item.id)!));
      const scores = await reranker.rerank(question, docs).catch(() => null); // an optional stage: fall back to the fused order
      if (scores && scores.length === head.length) {
        const order = rerankOrder(scores, { trust, outlierZ: cfg.rerank.outlierZ, k: cfg.rrfK });
        // The p-th turn of the new order takes the p-th best fused score: scores stay sorted, and
        // everything below the head stays below it.
        const reranked = order.map((i, p) => ({ item: head[i]!.item, score: head[p]!.score, rerankScore: scores[i]! }));
        ranked = [...reranked, ...ranked.slice(head.length)];
      }
    }

    const top = ranked.slice(0, limit);
    const unread = top.filter(({ item }) => !messages.has(item.id)).map(({ item }) => item.id);
    if (unread.length) for (const m of await this.#source.turns(unread)) messages.set(m.id, m);
    // A turn deleted since its facts were read is left out.
    const turns = top
      .filter(({ item }) => messages.has(item.id))
      .map(({ item, score, rerankScore }): RetrievedTurn => {
        const reasons: RetrievalSignal[] = (Object.keys(item.ranks) as RetrievalSignal[]).sort((a, b) => item.ranks[a]! - item.ranks[b]!);
        for (const b of Object.keys(item.boosts) as BoostSignal[]) reasons.push(b);
        if (rerankScore !== undefined) reasons.push('rerank');
        return {
          message: messages.get(item.id)!,
          score,
          reasons,
          ranks: item.ranks,
          boosts: item.boosts,
          ...(rerankScore !== undefined ? { rerankScore } : {}),
        };
      });
    return { analysis, turns };
  }

  /**
   * Lexical candidates of a large memory: BM25 over the turns' own words (one query, the rarest
   * terms within the source's budget), then each turn also scores its neighbours' hits as the
   * turn index would through its neighbour-context columns — a reply ("Yes, last Friday!") found by
   * the question it answers — weighted by `fields.before` / `fields.after` × `large.context`.
   */
  async #propagated(
    terms: readonly string[],
    fields: RetrievalConfig['fields'],
    scope: RetrievalScope | undefined,
    vectorP: Promise<string[]>,
    loaded: Map<string, Message>,
    size: number,
  ): Promise<string[]> {
    const cfg = this.config;
    let hits = await this.#source.ownWords(terms, {
      limit: cfg.depth.lexical,
      content: fields.content,
      speaker: fields.speaker,
      postings: cfg.large.postings,
      ...(scope ? { scope } : {}),
    });
    const rescore = cfg.large.rescore > 0 && size > cfg.large.rescoreAbove && hits.length > 0;
    if (rescore) hits = await this.#rescored(terms, hits, vectorP, loaded);
    const score = new Map(hits.map((h) => [h.id, h.score]));
    const own = new Map(score);
    // A rescored hit's score sums every word of the question, not only the rarest: it lends a smaller share.
    const context = cfg.large.context * (rescore ? cfg.large.rescoreContext : 1);
    const weight = { before: fields.before * context, after: fields.after * context };
    if (weight.before > 0 || weight.after > 0) {
      const links = await this.#source.contextLinks(
        hits.slice(0, cfg.large.contextHits).map((h) => h.id),
        scope,
      );
      for (const l of links) {
        const gain = weight[l.side] * own.get(l.from)!;
        if (gain > 0) score.set(l.to, (score.get(l.to) ?? 0) + gain);
      }
    }
    return [...score]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, cfg.depth.lexical)
      .map(([id]) => id);
  }

  /**
   * Lexical candidates of a small memory in BM25F order (fullQueryScore.fieldedScores): the turn
   * index's best `fielded.pool` and the best `fielded.ownPool` by the turns' own words, each scored
   * with its own words and its neighbour context normalised field by field.
   */
  async #fielded(
    terms: readonly string[],
    fields: RetrievalConfig['fields'],
    scope: RetrievalScope | undefined,
    indexList?: Promise<string[]>,
  ): Promise<string[]> {
    const cfg = this.config;
    const [index, own, stats] = await Promise.all([
      indexList ?? this.#source.lexical(terms, { limit: cfg.fielded.pool, fields, ...(scope ? { scope } : {}) }),
      cfg.fielded.ownPool > 0
        ? this.#source.ownWords(terms, {
            limit: cfg.fielded.ownPool,
            content: fields.content,
            speaker: fields.speaker,
            postings: cfg.large.postings,
            ...(scope ? { scope } : {}),
          })
        : Promise.resolve([]),
      this.#source.termStats(terms),
    ]);
    const pool = [...new Set([...index, ...own.map((h) => h.id)])];
    const scores = fieldedScores(terms, await this.#source.contextWindows(pool), stats, {
      weights: { own: fields.content, before: fields.before, after: fields.after, timeline: fields.timeline },
      b: cfg.fielded.b,
      bContext: cfg.fielded.bContext,
      delta: cfg.fielded.delta,
      mode: cfg.fielded.mode,
    });
    const order = new Map(pool.map((id, i) => [id, i]));
    return pool
      .filter((id) => (scores.get(id) ?? 0) > 0)
      .sort((a, b) => scores.get(b)! - scores.get(a)! || order.get(a)! - order.get(b)!)
      .slice(0, cfg.depth.lexical);
  }

  /**
   * The rarest-terms hits (and the best vector candidates) scored again by BM25 of every query
   * term (fullQueryScore.ts): the lexical order full BM25 would give this pool, best first.
   */
  async #rescored(
    terms: readonly string[],
    hits: readonly ScoredTurn[],
    vectorP: Promise<string[]>,
    loaded: Map<string, Message>,
  ): Promise<ScoredTurn[]> {
    const { rescore, rescoreVector } = this.config.large;
    const pool = new Set(hits.slice(0, rescore).map((h) => h.id));
    if (rescoreVector > 0) for (const id of (await vectorP).slice(0, rescoreVector)) pool.add(id);
    const [stats, turns] = await Promise.all([this.#source.termStats(terms), this.#source.turns([...pool])]);
    for (const m of turns) loaded.set(m.id, m);
    const scores = fullQueryScores(terms, new Map(turns.map((m) => [m.id, turnText(m)])), stats);
    return [...scores]
      .filter(([, v]) => v > 0)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([id, score]) => ({ id, score }));
  }

  async #vectorCandidates(queryVectorP: Promise<QueryVector | null>, scope: RetrievalScope | undefined, deeper = 0): Promise<string[]> {
    const q = await queryVectorP;
    if (!q || !q.vector.some((x) => x !== 0)) return [];
    return this.#source.vector(q.vector, q.modelId, { limit: Math.max(this.config.depth.vector, deeper), ...(scope ? { scope } : {}) });
  }

  /**
   * The user's standing instructions nearest the question in meaning, best first: a rule ("always
   * give timelines when I ask about patents") governs a request that shares few of its words.
   */
  async #rules(queryVectorP: Promise<QueryVector | null>, scope: RetrievalScope | undefined): Promise<string[]> {
    const { weight, scan, top } = this.config.rules;
    if (!(weight > 0) || !this.#source.ruleCandidates || !this.#source.similarities) return [];
    const rules = (await this.#source.ruleCandidates({ limit: scan, ...(scope ? { scope } : {}) })).filter((c) =>
      STANDING_INSTRUCTION.test(c.content),
    );
    const q = rules.length ? await queryVectorP : null;
    if (!q) return [];
    const similarity = await this.#source.similarities(
      rules.map((r) => r.id),
      q.vector,
      q.modelId,
    );
    return [...similarity]
      .filter(([, v]) => v > 0)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, top)
      .map(([id]) => id);
  }

  async #embed(question: string): Promise<QueryVector | null> {
    if (!this.#embedder) return null;
    const [vector] = await this.#embedder.embed([question], 'query');
    return vector ? { modelId: this.#embedder.id, dim: this.#embedder.dim, vector } : null;
  }

  /**
   * Pseudo-relevance feedback: the most frequent content words of the top lexical hits that the
   * query does not already hold (ties: first seen). Common words add little: BM25's IDF keeps
   * their weight low in the second query.
   */
  async #feedbackTerms(topIds: readonly string[], exclude: ReadonlySet<string>): Promise<string[]> {
    const { minTermLength, terms: max } = this.config.prf;
    const docs = await this.#source.turns(topIds);
    const counts = new Map<string, number>();
    for (const m of docs) {
      for (const w of new Set(words(turnText(m)))) {
        if (w.length < minTermLength || STOP_WORDS.has(w) || exclude.has(w)) continue;
        counts.set(w, (counts.get(w) ?? 0) + 1);
      }
    }
    return [...counts]
      .sort((a, b) => b[1] - a[1])
      .slice(0, max)
      .map(([w]) => w);
  }
}

const RELATIVE_DATE = /\b(ago|last|past|previous|this|next|yesterday|today|tonight|tomorrow|recent|recently)\b/i;

/** The text a turn is judged by: its content plus the caption of a shared image. */
export function turnText(m: Message): string {
  const caption = typeof m.metadata.caption === 'string' ? m.metadata.caption : '';
  return caption ? `${m.content} [image: ${caption}]` : m.content;
}
