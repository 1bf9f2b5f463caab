/**
 * Rank fusion and boosts for retrieval, pure functions over candidate lists. Every knob the read
 * path has lives in RETRIEVAL_CONFIG below, one line each on the measured effect of its value;
 * how each value was chosen, with every measurement and the runs behind it, is in
 * docs/retrieval-tuning.md (one section per knob). Tuned on the dev splits only.
 *
 * Fusion is weighted reciprocal rank fusion: score(d) = Σ_lists w_list / (k + rank_list(d)),
 * ranks 1-based (Cormack et al., 2009). Boosts then multiply the fused score; session
 * aggregation adds a share of the scores of nearby candidates of the same conversation.
 */

export interface RetrievalConfig {
  /** Candidates taken from each list before fusion. */
  readonly depth: { readonly lexical: number; readonly vector: number; readonly prf: number; readonly fused: number };
  /**
   * A memory of more than `above` turns (−1: never) is searched by the turns' own words with
   * neighbour context added by score (Retriever #propagated), and without the feedback query:
   * `context` scales the neighbour weights, the neighbours of the best `contextHits` hits count.
   */
  readonly large: {
    readonly above: number;
    readonly context: number;
    readonly contextHits: number;
    readonly postings: number;
    readonly prf: boolean;
    /** The best `rescore` rarest-terms hits, with the best `rescoreVector` vector candidates, are ranked again by BM25 of the whole question (0: off). */
    readonly rescore: number;
    /**
     * The lexical and vector lists' weights in a large memory, where the relative-BM25 list does not
     * run (the small memory's weights were chosen beside it).
     */
    readonly lexical: number;
    readonly vector: number;
    readonly rescoreVector: number;
    /** Rescoring runs only in a memory of more than this many turns. */
    readonly rescoreAbove: number;
    /** Neighbour context's weight is multiplied by this when the hits were rescored. */
    readonly rescoreContext: number;
  };
  /**
   * A small memory's lexical list in BM25F order (Retriever #fielded): the turn index's best `pool`
   * (0: off, FTS5's order) and the turns' own words' best `ownPool`, each field length-normalised
   * on its own (`b`; the neighbour fields `bContext`), BM25+ floor `delta`; `prf`: the feedback query too. With `weight` > 0 it is
   * a list of its own at that RRF weight, beside the turn index's, instead of replacing it. `mode`
   * 'relative' scores each field by the query words' share of it (fullQueryScore.relativeFieldScore).
   */
  readonly fielded: {
    readonly pool: number;
    readonly ownPool: number;
    readonly b: number;
    readonly bContext: number;
    readonly delta: number;
    readonly prf: boolean;
    readonly weight: number;
    readonly mode: 'bm25f' | 'relative';
  };
  /** bm25() column weights of the turn index (schema v2 turns_fts). */
  readonly fields: {
    readonly speaker: number;
    readonly content: number;
    readonly caption: number;
    readonly before: number;
    readonly after: number;
    readonly timeline: number;
  };
  /**
   * Neighbour-context weights (bm25 column weights, set per query) when the question is about the
   * user's own words ("my", "I", a request for advice): an assistant's long replies around a user
   * turn otherwise outweigh what the user said in it.
   */
  readonly userFields: { readonly before: number; readonly after: number };
  /** Keep the mentioned speakers' names as lexical terms (they also drive the speaker boost). */
  readonly speakerNamesAsTerms: boolean;
  /** Leave conversation-framing words ("previous conversation", "remind me") out of the lexical query (queryAnalysis.FRAMING_WORDS). */
  readonly dropFramingWords: boolean;
  /** Leave the words of a date the question names ("four weeks ago", "in April") out of the lexical query: the date-range boost uses them. */
  readonly dropDateWords: boolean;
  /** Pseudo-relevance feedback: content words of the top `docs` lexical hits form a second lexical query. */
  readonly prf: { readonly enabled: boolean; readonly docs: number; readonly terms: number; readonly minTermLength: number };
  readonly rrfK: number;
  /** RRF weight of each candidate list (`own`: a small memory also ranked as a large one is, Retriever #propagated; 0 = off). */
  readonly weights: { readonly lexical: number; readonly prf: number; readonly vector: number; readonly own: number };
  readonly boosts: {
    /** × (1 + value) when the turn speaker is a speaker the question names. */
    readonly speaker: number;
    /** × (1 + value) when the turn time falls in a date range the question names (± slack). */
    readonly dateRange: number;
    readonly dateRangeSlackMs: number;
    /** × (1 + value) for turns holding a time expression when the question asks "when". */
    readonly timeExpression: number;
    /** + value × (sum of the best `sessionTop` other fused scores within `sessionGapMs` in the same conversation). */
    readonly session: number;
    readonly sessionTop: number;
    readonly sessionGapMs: number;
    /** × (1 + value) for the user's own turns when the question speaks of itself in the first person ("I", "my"). */
    readonly roleUser: number;
    /** × (1 + value) for assistant turns when the question asks what "you" (the assistant) said, listed, recommended. */
    readonly roleAssistant: number;
    /** A request for advice ("can you suggest…") counts as a question about the user's own words (role boost 'user'). */
    readonly adviceAboutUser: boolean;
    /** × (1 + value) for the user's turns stating a preference ("I prefer…", "I'm vegetarian") when the question asks for advice. */
    readonly preference: number;
    /** Any request for help now (queryAnalysis.asksForHelp) counts as a request for advice (user's words, preference boost). */
    readonly requests: boolean;
    /** A user's standing instruction ("always … when I ask …", queryAnalysis.STATES_INSTRUCTION) counts as a stated preference. */
    readonly instructions: boolean;
    /** × (1 + value) for a user's standing instruction (queryAnalysis.STATES_INSTRUCTION) whatever the question: it governs every later request it covers. */
    readonly instruction: number;
    /** Only the best `instructionTop` standing instructions among the candidates get `instruction` (0: all). */
    readonly instructionTop: number;
    /** A standing instruction ranks at best second: the best other match of the question keeps the first. */
    readonly instructionSecond: boolean;
    /** × (1 + value · age rank) when the question asks for the current state: 0 for the oldest candidate, 1 for the newest. */
    readonly recency: number;
  };
  /**
   * The user's standing instructions (queryAnalysis.STANDING_INSTRUCTION) as a list of their own:
   * the newest `scan` turns that may hold one, the `top` nearest the question by vector, fused at `weight` (0: off).
   */
  readonly rules: { readonly weight: number; readonly scan: number; readonly top: number };
  /**
   * Session diversity: walking the ranking best first, a turn whose session already placed
   * `perSession` turns above it is scored × (1 − penalty) per extra turn (once with `flat`; greedy,
   * over the top `depth`). Sessions are whole conversations with `byConversation`, else runs of a
   * conversation's candidates no more than `boosts.sessionGapMs` apart. With `acrossOnly`, only for
   * questions about many occasions over time (queryAnalysis.asksAcrossTime).
   */
  readonly diversity: {
    readonly perSession: number;
    readonly penalty: number;
    readonly depth: number;
    readonly byConversation: boolean;
    readonly acrossOnly: boolean;
    readonly flat: boolean;
  };
  /**
   * The answer context (answerContext.ts): up to `turns` ranked turns are offered to the composer,
   * which keeps what fits the memory budget; a turn longer than `turnChars` is cut to that many
   * characters, around the question's words when `focus` is set (from the head otherwise).
   */
  readonly context: { readonly turns: number; readonly turnChars: number; readonly focus: boolean };
  /**
   * Rerank stage (only with a Reranker whose trust is above 0; rerankOrder.ts): the top
   * `candidates` are scored, the ones whose score is a robust outlier (modified z ≥ `outlierZ`)
   * are fused into the order with the reranker's trust as their list's weight. The pool also
   * holds what `neighbours` × `window`, `listTop` and `vectorDepth` add (rerankPool.ts).
   */
  readonly rerank: {
    readonly candidates: number;
    readonly outlierZ: number;
    readonly neighbours: number;
    readonly window: number;
    readonly listTop: number;
    readonly vectorDepth: number;
  };
}

/* Measured effects below: recall.turn@10 in points; "a / b / c" = BEAM-100K / LoCoMo / LongMemEval dev. See docs/retrieval-tuning.md. */
export const RETRIEVAL_CONFIG: RetrievalConfig = {
  // fused 600 → 100: scale @10 at 10k 71.5 → 71.2, a third of the read time; see docs/retrieval-tuning.md#candidate-depth
  depth: { lexical: 200, vector: 200, prf: 200, fused: 100 },
  // own words + context of 10 hits: scale @10 71.5 / 59.3 at 10k / 30k; rescore at 100k 44.7 → 52.0; see docs/retrieval-tuning.md#large-memories
  large: {
    above: 5_000,
    context: 1,
    contextHits: 10,
    postings: 4_000,
    prf: false,
    rescore: 200,
    rescoreVector: 50,
    rescoreAbove: 50_000,
    rescoreContext: 0.3,
    lexical: 1,
    vector: 0.2,
  },
  // weight 1 → 0.9 (Porter): 60.9 → 61.1 / 78.5 → 78.9 / 90.4 → 91.5, @5 −0.4 / −0.3 / −1.7; see docs/retrieval-tuning.md#relative-bm25-list
  fielded: { pool: 200, ownPool: 0, b: 0.75, bContext: 0.75, delta: 0.5, prf: false, weight: 0.9, mode: 'relative' },
  // neighbour context 0 → −8.0 (LoCoMo dev), caption 0 → −0.6; see docs/retrieval-tuning.md#turn-index-column-weights
  fields: { speaker: 0.2, content: 1, caption: 0.6, before: 0.5, after: 0.5, timeline: 0.1 },
  // 0.5 → 0.3: LongMemEval dev 89.2 → 91.1, LoCoMo unchanged; see docs/retrieval-tuning.md#neighbour-weights-for-the-users-own-words
  userFields: { before: 0.3, after: 0.3 },
  // true → +0.3 (noise) for a longer query; see docs/retrieval-tuning.md#speaker-names-as-terms
  speakerNamesAsTerms: false,
  // true → LoCoMo −0.4, LongMemEval 0.0; see docs/retrieval-tuning.md#framing-words
  dropFramingWords: false,
  // LongMemEval 87.9 → 89.2, LoCoMo −0.2 (noise); see docs/retrieval-tuning.md#date-words
  dropDateWords: true,
  // off → −0.3 (LoCoMo; @1 −1.9); see docs/retrieval-tuning.md#pseudo-relevance-feedback
  prf: { enabled: true, docs: 5, terms: 10, minTermLength: 3 },
  // 30 → −1.1 (LoCoMo); see docs/retrieval-tuning.md#rrf-k
  rrfK: 60,
  // chosen with the relative list (vector 0.4 / 0.6 → 56.4 / 78.2 / 90.5, 56.4 / 78.3 / 89.8); see docs/retrieval-tuning.md#list-weights
  weights: { lexical: 0.5, prf: 0.5, vector: 0.5, own: 0 },
  boosts: {
    // 0 → −2.8 (LoCoMo; @1 −5.9); see docs/retrieval-tuning.md#speaker
    speaker: 0.3,
    // 0 → −1.1, 0.3 → −0.3 (LoCoMo); see docs/retrieval-tuning.md#date-range
    dateRange: 0.5,
    dateRangeSlackMs: 7 * 86_400_000,
    // 0 → −0.2 (LoCoMo; @1 −1.1); see docs/retrieval-tuning.md#time-expression
    timeExpression: 0.1,
    // 0 → +0.3 (noise) but MRR −0.005, @5 −0.4 (LoCoMo); see docs/retrieval-tuning.md#session-share
    session: 0.05,
    sessionTop: 3,
    sessionGapMs: 2 * 3_600_000,
    // 0 → 0.3: LongMemEval (33 q) @10 69.5 → 84.6, LoCoMo unchanged; see docs/retrieval-tuning.md#role
    roleUser: 0.3,
    roleAssistant: 0.3,
    // true → LongMemEval 87.2 → 87.9, LoCoMo unchanged; see docs/retrieval-tuning.md#advice-about-the-user
    adviceAboutUser: true,
    // 0.3 → LongMemEval @1 +0.4, MRR +0.007; 0.6 / 1 cost LongMemEval @5; see docs/retrieval-tuning.md#preference
    preference: 0.3,
    // with instructions: BEAM 44.1 → 44.8, LoCoMo and LongMemEval unchanged; see docs/retrieval-tuning.md#requests-and-instructions
    requests: true,
    instructions: true,
    // 1, top 2, second: BEAM 56.2 → 59.6 (@1 19.8 → 19.9), LoCoMo / LongMemEval unchanged; see docs/retrieval-tuning.md#standing-instruction
    instruction: 1,
    instructionTop: 2,
    instructionSecond: true,
    // 0.2 / 0.5 → LongMemEval −0.3: not kept; see docs/retrieval-tuning.md#recency
    recency: 0,
  },
  // weight 0 (off): at 1, BEAM @10 60.3 (59.6 without) but @1 / @5 −1.8 / −2.4 and the 30k scale run @5 / @10 −6.2 / −2.0 (many people's rules in one memory); see docs/retrieval-tuning.md#standing-instruction-list
  rules: { weight: 0, scan: 300, top: 2 },
  // questions about many occasions only, 1 × 0.3 flat: BEAM session@10 97.6, others unchanged; see docs/retrieval-tuning.md#session-diversity
  diversity: { perSession: 1, penalty: 0.3, depth: 200, byConversation: true, acrossOnly: true, flat: true },
  // 40 turns: context recall 87.5 / 93.2 (LoCoMo / LongMemEval) against 80.5 / 89.6 at 12; see docs/retrieval-tuning.md#answer-context
  context: { turns: 40, turnChars: 1200, focus: true },
  // oracle reranker over this pool: @10 100.0 / 99.8 (LongMemEval / LoCoMo 26 + 30) at ≈ 400 pairs; see docs/retrieval-tuning.md#rerank-pool
  rerank: { candidates: 200, outlierZ: 3.5, neighbours: 0, window: 0, listTop: 0, vectorDepth: 400 },
};

/** Deep-merges a partial config over the defaults (one level of nesting, as the config has). */
export function withConfig(overrides: DeepPartial<RetrievalConfig> = {}): RetrievalConfig {
  const out: Record<string, unknown> = { ...RETRIEVAL_CONFIG };
  for (const [key, value] of Object.entries(overrides)) {
    const base = (RETRIEVAL_CONFIG as unknown as Record<string, unknown>)[key];
    out[key] = value !== null && typeof value === 'object' && base !== null && typeof base === 'object' ? { ...base, ...value } : value;
  }
  return out as unknown as RetrievalConfig;
}

export type DeepPartial<T> = { readonly [K in keyof T]?: T[K] extends object ? Partial<T[K]> : T[K] };

export interface RankedList {
  readonly name: string;
  readonly weight: number;
  /** Item ids, best first. */
  readonly ids: readonly string[];
}

export interface FusedItem {
  readonly id: string;
  score: number;
  /** 1-based rank in each list that holds the item. */
  readonly ranks: Record<string, number>;
}

/**
 * Weighted RRF — the one fusion function of the read path (turn recall, the answer context's facts
 * and episodes, the explorer's search). An id repeated later in the same list counts once, at its
 * first place, and takes no rank (a MemCell reached through three of its facts is one hit: max, not
 * sum). Ties are broken by the best single rank, then by id, so the order is deterministic.
 */
export function reciprocalRankFusion(lists: readonly RankedList[], k: number = RETRIEVAL_CONFIG.rrfK): FusedItem[] {
  const items = new Map<string, FusedItem>();
  for (const list of lists) {
    if (!(list.weight > 0)) continue;
    let rank = 0;
    for (const id of list.ids) {
      let item = items.get(id);
      if (!item) {
        item = { id, score: 0, ranks: {} };
        items.set(id, item);
      }
      if (item.ranks[list.name] !== undefined) continue;
      rank++;
      item.ranks[list.name] = rank;
      item.score += list.weight / (k + rank);
    }
  }
  return sortFused([...items.values()]);
}

export function sortFused<T extends FusedItem>(items: T[]): T[] {
  // Each item's best rank is found once, not per comparison: the comparator runs n·log n times
  // on a recall's few hundred candidates, and spreading the ranks there allocated an array each time.
  const best = new Map<T, number>();
  for (const x of items) {
    let b = Number.POSITIVE_INFINITY;
    for (const name in x.ranks) b = Math.min(b, x.ranks[name]!);
    best.set(x, b);
  }
  return items.sort((a, b) => b.score - a.score || best.get(a)! - best.get(b)! || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** What the boosts need to know about a candidate turn. */
export interface BoostFacts {
  readonly conversationId: string;
  readonly occurredAt: number;
  readonly speaker: string;
  /** Absent = unknown (no role boost). */
  readonly role?: 'user' | 'assistant';
  /** Does the turn text carry a time expression? */
  readonly hasTimeExpression: boolean;
  /** Does the turn state a preference of its speaker (queryAnalysis.STATES_PREFERENCE)? Absent = no. */
  readonly statesPreference?: boolean;
  /** Does the turn give a standing instruction (queryAnalysis.STATES_INSTRUCTION)? Absent = no. */
  readonly statesInstruction?: boolean;
}

export interface BoostQuery {
  readonly speakers: readonly string[];
  readonly asksForTime: boolean;
  readonly ranges: readonly { readonly start: number; readonly end: number }[];
  /** Whose words the question is about (queryAnalysis.whoseWords); absent or null = no role boost. */
  readonly about?: 'user' | 'assistant' | null;
  /** A request for advice now (queryAnalysis.asksForAdvice). */
  readonly asksForAdvice?: boolean;
  /** Asks for the current or latest state (queryAnalysis.asksForCurrent). */
  readonly asksForCurrent?: boolean;
}

export type BoostSignal =
  'speaker' | 'role' | 'preference' | 'instruction' | 'recency' | 'dateRange' | 'timeExpression' | 'session' | 'diversity';

export interface BoostedItem extends FusedItem {
  readonly boosts: Partial<Record<BoostSignal, number>>;
}

/**
 * Applies the boosts in place of the fused scores and re-sorts. Items whose facts are unknown
 * (deleted between search and fetch) are dropped. Session aggregation reads the scores after
 * the multiplicative boosts, from a snapshot, so the result does not depend on input order.
 */
export function applyBoosts(
  fused: readonly FusedItem[],
  facts: ReadonlyMap<string, BoostFacts>,
  query: BoostQuery,
  config: RetrievalConfig['boosts'],
): BoostedItem[] {
  const speakers = new Set(query.speakers.map((s) => s.toLowerCase()));
  let oldest = Infinity;
  let newest = -Infinity;
  if (config.recency && query.asksForCurrent) {
    for (const item of fused) {
      const t = facts.get(item.id)?.occurredAt;
      if (t === undefined) continue;
      if (t < oldest) oldest = t;
      if (t > newest) newest = t;
    }
  }
  const timeSpan = newest - oldest;
  const out: BoostedItem[] = [];
  let instructions = 0;
  for (const item of fused) {
    const f = facts.get(item.id);
    if (!f) continue;
    const boosts: Partial<Record<BoostSignal, number>> = {};
    let factor = 1;
    if (config.speaker && speakers.size > 0 && speakers.has(f.speaker.toLowerCase())) {
      boosts.speaker = config.speaker;
      factor *= 1 + config.speaker;
    }
    const about = query.asksForAdvice && config.adviceAboutUser ? 'user' : query.about;
    const roleBoost = about === 'user' ? config.roleUser : about === 'assistant' ? config.roleAssistant : 0;
    if (roleBoost && f.role === about) {
      boosts.role = roleBoost;
      factor *= 1 + roleBoost;
    }
    if (config.preference && query.asksForAdvice && f.role === 'user' && f.statesPreference) {
      boosts.preference = config.preference;
      factor *= 1 + config.preference;
    }
    if (
      config.instruction &&
      f.role === 'user' &&
      f.statesInstruction &&
      (!config.instructionTop || instructions++ < config.instructionTop)
    ) {
      boosts.instruction = config.instruction;
      factor *= 1 + config.instruction;
    }
    if (config.recency && query.asksForCurrent && timeSpan > 0) {
      const gain = (config.recency * (f.occurredAt - oldest)) / timeSpan;
      if (gain > 0) {
        boosts.recency = gain;
        factor *= 1 + gain;
      }
    }
    if (
      config.dateRange &&
      query.ranges.some((r) => f.occurredAt >= r.start - config.dateRangeSlackMs && f.occurredAt < r.end + config.dateRangeSlackMs)
    ) {
      boosts.dateRange = config.dateRange;
      factor *= 1 + config.dateRange;
    }
    if (config.timeExpression && query.asksForTime && f.hasTimeExpression) {
      boosts.timeExpression = config.timeExpression;
      factor *= 1 + config.timeExpression;
    }
    out.push({ id: item.id, ranks: item.ranks, score: item.score * factor, boosts });
  }
  if (config.instructionSecond) {
    // A standing instruction stays just under the best turn that is not one.
    const rule = (x: BoostedItem) => facts.get(x.id)!.role === 'user' && facts.get(x.id)!.statesInstruction === true;
    let top = -Infinity;
    for (const x of out) if (!rule(x)) top = Math.max(top, x.score);
    for (const x of out) if (rule(x) && x.score >= top) x.score = top * (1 - 1e-9);
  }
  if (config.session > 0 && config.sessionTop > 0) {
    const byConversation = new Map<string, BoostedItem[]>();
    for (const item of out) {
      const c = facts.get(item.id)!.conversationId;
      const list = byConversation.get(c) ?? [];
      list.push(item);
      byConversation.set(c, list);
    }
    const base = new Map(out.map((x) => [x.id, x.score]));
    for (const group of byConversation.values()) {
      group.sort((a, b) => facts.get(a.id)!.occurredAt - facts.get(b.id)!.occurredAt);
      for (let i = 0; i < group.length; i++) {
        const t = facts.get(group[i]!.id)!.occurredAt;
        const near: number[] = [];
        for (let j = i - 1; j >= 0 && t - facts.get(group[j]!.id)!.occurredAt <= config.sessionGapMs; j--)
          near.push(base.get(group[j]!.id)!);
        for (let j = i + 1; j < group.length && facts.get(group[j]!.id)!.occurredAt - t <= config.sessionGapMs; j++)
          near.push(base.get(group[j]!.id)!);
        if (near.length === 0) continue;
        near.sort((a, b) => b - a);
        const gain = config.session * near.slice(0, config.sessionTop).reduce((a, b) => a + b, 0);
        group[i]!.score += gain;
        group[i]!.boosts.session = gain;
      }
    }
  }
  return sortFused(out);
}

/**
 * Session of each item: a conversation's candidates ordered by time, split where two neighbours
 * are more than `gapMs` apart (a LoCoMo conversation holds many dated sessions; an assistant
 * chat is usually one).
 */
export function sessionKeys(ids: readonly string[], facts: ReadonlyMap<string, BoostFacts>, gapMs: number): Map<string, string> {
  const byConversation = new Map<string, string[]>();
  for (const id of ids) {
    const f = facts.get(id);
    if (!f) continue;
    const list = byConversation.get(f.conversationId) ?? [];
    list.push(id);
    byConversation.set(f.conversationId, list);
  }
  const out = new Map<string, string>();
  for (const [conversation, list] of byConversation) {
    list.sort((a, b) => facts.get(a)!.occurredAt - facts.get(b)!.occurredAt);
    let run = 0;
    for (let i = 0; i < list.length; i++) {
      if (i > 0 && facts.get(list[i]!)!.occurredAt - facts.get(list[i - 1]!)!.occurredAt > gapMs) run++;
      out.set(list[i]!, `${conversation}\u0000${run}`);
    }
  }
  return out;
}

/**
 * Session diversity (config.diversity), greedy over the top `depth`: at each step the best item
 * by its score × (1 − penalty)^(turns its session already placed − perSession + 1, when positive)
 * is placed next. Multi-session questions need one turn from each of several sessions; without
 * this, one matching session's neighbouring turns fill the top. Items below `depth` keep their
 * order, scored no higher than the last placed item.
 */
export function diversify(
  items: readonly BoostedItem[],
  facts: ReadonlyMap<string, BoostFacts>,
  config: RetrievalConfig,
  asksAcrossTime = false,
): BoostedItem[] {
  const { perSession, penalty, depth, acrossOnly, flat } = config.diversity;
  if (!(penalty > 0) || perSession < 1 || items.length < 2 || (acrossOnly && !asksAcrossTime)) return [...items];
  const pool = items.slice(0, Math.max(1, depth));
  const session = config.diversity.byConversation
    ? new Map(pool.map((x) => [x.id, facts.get(x.id)?.conversationId ?? x.id]))
    : sessionKeys(
        pool.map((x) => x.id),
        facts,
        config.boosts.sessionGapMs,
      );
  const placed = new Map<string, number>();
  const out: BoostedItem[] = [];
  const adjusted = (x: BoostedItem) => {
    const extra = (placed.get(session.get(x.id) ?? x.id) ?? 0) - perSession + 1;
    return extra > 0 ? x.score * (1 - penalty) ** (flat ? 1 : extra) : x.score;
  };
  while (pool.length) {
    let best = 0;
    let bestScore = adjusted(pool[0]!);
    for (let i = 1; i < pool.length; i++) {
      const a = adjusted(pool[i]!);
      if (a > bestScore) {
        best = i;
        bestScore = a;
      }
    }
    const [x] = pool.splice(best, 1);
    const key = session.get(x!.id) ?? x!.id;
    placed.set(key, (placed.get(key) ?? 0) + 1);
    out.push(bestScore < x!.score ? { ...x!, score: bestScore, boosts: { ...x!.boosts, diversity: bestScore / x!.score } } : x!);
  }
  const floor = out.length ? out[out.length - 1]!.score : Infinity;
  for (const x of items.slice(out.length)) out.push(x.score > floor ? { ...x, score: floor } : x);
  return out;
}
