/**
 * Rank fusion and boosts for retrieval, pure functions over candidate lists. Every knob the read
 * path has lives in RETRIEVAL_CONFIG below, with the effect measured on the LoCoMo dev split
 * (categories 1–4, 760 questions, recall.turn@10, bundled GloVe-SIF embedder, no reranker) and,
 * since the LongMemEval round, on the LongMemEval dev set (97 headline questions) in the same sweep:
 * `npm run bench -- recall --data ../shared/data/locomo/locomo-dev.json --sweep <variants.json>`
 * (then the same with `--data ../shared/data/longmemeval`).
 * Effects are the change from changing that one knob with every other knob at its value here;
 * one question is worth ≈0.13 points, so |Δ| < 0.5 is noise. Tuned on the dev split only:
 * confirm on fresh data before trusting the small ones.
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
    readonly above: number; readonly context: number; readonly contextHits: number; readonly postings: number; readonly prf: boolean;
    /** The best `rescore` rarest-terms hits, with the best `rescoreVector` vector candidates, are ranked again by BM25 of the whole question (0: off). */
    readonly rescore: number;
    /**
     * The lexical and vector lists' weights in a large memory, where the relative-BM25 list does not
     * run (the small memory's weights were chosen beside it).
     */
    readonly lexical: number; readonly vector: number;
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
  readonly fielded: { readonly pool: number; readonly ownPool: number; readonly b: number; readonly bContext: number; readonly delta: number; readonly prf: boolean; readonly weight: number; readonly mode: 'bm25f' | 'relative' };
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
   * Session diversity: walking the ranking best first, a turn whose session already placed
   * `perSession` turns above it is scored × (1 − penalty) per extra turn (once with `flat`; greedy,
   * over the top `depth`). Sessions are whole conversations with `byConversation`, else runs of a
   * conversation's candidates no more than `boosts.sessionGapMs` apart. With `acrossOnly`, only for
   * questions about many occasions over time (queryAnalysis.asksAcrossTime).
   */
  /**
   * The user's standing instructions (queryAnalysis.STANDING_INSTRUCTION) as a list of their own:
   * the newest `scan` turns that may hold one, the `top` nearest the question by vector, fused at `weight` (0: off).
   */
  readonly rules: { readonly weight: number; readonly scan: number; readonly top: number };
  readonly diversity: { readonly perSession: number; readonly penalty: number; readonly depth: number; readonly byConversation: boolean; readonly acrossOnly: boolean; readonly flat: boolean };
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
    readonly candidates: number; readonly outlierZ: number;
    readonly neighbours: number; readonly window: number; readonly listTop: number; readonly vectorDepth: number;
  };
}

/*
 * Measured effects, LoCoMo dev split, recall.turn@10 (final value 78.7%; simple one-turn BM25
 * 61.7%). Re-measured with LongMemEval beside it (both full dev sets unless said): on
 * LoCoMo vector 0.5 −0.1, neighbours 0.2 −1.4, session 0.2 −0.4, prf off −0.3 — none kept; on
 * LongMemEval (33 q) neighbours 0.2 +0.2 @10 (−3.0 @1): not kept. "Δ" is the change when that knob alone is set as stated. Retuned for schema v6 (the
 * turn index is written once per batch, so FTS5's bm25 statistics count each turn once; the v2
 * index counted most turns twice and the old values lost 0.8 points on it): neighbour context
 * 0.4 → 0.5, timeline 0 → 0.1, dateRange 0.3 → 0.5 (together +1.4 over the old values).
 */
export const RETRIEVAL_CONFIG: RetrievalConfig = {
  // 200 deep each: depth 100 → +0.1 (noise), MRR −0.005. fused: candidates read and boosted after
  // fusion (scale bench, Node): 600 (all) → 100 recall.turn@10 at 10k 71.5 → 71.2, at
  // 30k 59.3 → 59.3, ≈ a third of the read time; LoCoMo / LongMemEval dev unchanged.
  depth: { lexical: 200, vector: 200, prf: 200, fused: 100 },
  // Scale bench (Node, 150 newest questions; BM25 alone 56.0 at 10k, 52.3 at 30k), recall.turn@10
  // at 10k / 30k: the turn index (above −1) 69.8 / 59.4; own words + context from the best 50 hits
  // 67.2 / 54.3, 20 hits – / 56.8, 10 hits 71.5 / 59.3, 5 hits 70.4 / 59.3 (@1 +1.3 at 30k);
  // context 1.5 → 71.8 / –, 0.6 → – / 56.0 (10 hits). postings 4,000 → 2,000: 70.4 / 56.2; unlimited
  // (30k): +0.7 at twice the time. prf (a second own-words query) true → 52.6 at 30k (50 hits).
  // On the dev sets (one conversation, ≈ 600 turns) the turn index is what ranks: the own-words
  // path everywhere (above 0) gives LoCoMo @10 78.5 → 75.7, so small memories keep it.
  // rescore 200 (full-query BM25 of the best 200 hits + 50 vector candidates; kept scale databases,
  // bench/results/scale-node-s7-sweep.md): @10 10k 71.2 → 71.9, 30k 59.3 → 57.4, 100k 44.7 → 52.0
  // (BM25 alone 47.4), ≈ 1.3–2× the read time. So it runs above 50,000 turns only (rescoreAbove:
  // between the two measured sizes where it hurt and helped; sizes in between are not measured).
  // Rescored scores sum every question word, so neighbours lend a smaller share: rescoreContext at
  // 100k (`scale-sweep`, bench/results/scale-node-s7-default.md) 1 → @1 / @5 / @10 15.8 / 40.7 / 52.0,
  // 0.7 → 16.4 / 42.4 / 52.9, 0.5 → 17.8 / 43.9 / 53.1, 0.3 → 18.1 / 45.8 / 53.4 (BM25 alone
  // 17.4 / 38.3 / 47.4). rescore 400 = 200 (the lexical list is 200 deep); postings 8,000 +1.3 @10
  // at 1.1× the time (not taken).
  // lexical / vector: the weights before the relative-BM25 list (1 / 0.2). With the small memory's
  // 0.5 / 0.5 the scale run at 10,162 turns fell from @1 / @5 / @10 38.0 / 63.4 / 71.2 to 29.0 / 51.0
  // / 66.1 (BM25 alone 35.1 / 51.8 / 56.0; bisected to that change).
  large: { above: 5_000, context: 1, contextHits: 10, postings: 4_000, prf: false, rescore: 200, rescoreVector: 50, rescoreAbove: 50_000, rescoreContext: 0.3, lexical: 1, vector: 0.2 },
  // BM25F (BEAM round, @10 BEAM / LoCoMo / LME dev, same runs): in place of the turn index's order,
  // pool 200 → 51.2 / 77.7 / 86.9 (from 44.1 / 78.5 / 91.1; BEAM @5 34.6 → 44.0); + ownPool 200 →
  // 51.0 / 76.9 / 86.9; delta 0.5 → 49.5 / 77.6 / 86.3; b 0.5 → 49.7 / 77.1 / 86.4; b 0.9 → 51.6 /
  // 76.7 / 86.2; prf too → 51.3 / 75.7 / 85.6. As a list beside the turn index's: weight 0.5 →
  // 46.8 / 78.2 / 89.8, 1 → 48.0 / 78.3 / 87.0, 1 with lexical 0.5 → 50.3 / 78.4 / 88.5. Truncating
  // the turn index's neighbour columns to 400 / 800 characters (a schema change, measured on a
  // patched view): 50.8 / 79.0 / 88.0 and 49.5 / 78.5 / 88.5. So the turn index's row-length
  // normalisation is what loses BEAM, and LongMemEval's @10 leans on it: off until a ranking
  // keeps both (LME @10 must not fall). Costs ≈ 15 ms per recall at pool 200 (BEAM, Node).
  // bContext 0 → 51.3 / 77.6 / 87.7, 0.3 → 51.8 / 77.4 / 87.4; 0 with neighbour weights 0.3 (user
  // 0.2) → 52.3 / 77.2 / 88.2; 0 as a list of weight 1 → 48.9 / 77.8 / 89.7. LME per type (pool 200
  // vs off): single-session-preference 100 → 71.4, multi-session 84.9 → 80.8, temporal 86.8 → 83.1.
  // Relative mode (a term's share of each field, delta inside the saturation, Lucene's idf: the shape
  // of Orama's BM25, which led on BEAM): in place of the turn index's order, delta 0.5 → 57.0 / 75.8 /
  // 89.2 (BEAM s@10 87.4 → 93.6); delta 0 → 59.1 / 71.7 / 86.0, 0.25 → 57.9 / 75.4 / –, 2 → 56.9 /
  // 76.2 / 89.2; FTS5's idf instead of Lucene's → 55.6 / 75.9 / 89.2; b 0.5 / 0.9 → 56.0 / 76.5 and
  // 57.5 / 75.2; the length norm floored at 0.5 / 0.7 / 0.9 → 55.4 / 75.9, 55.7 / 76.1, 54.5 / 76.4;
  // no neighbour fields → 57.4 / 68.2 / 88.1. LoCoMo's few-word turns ("Enjoy it! Have a good day.")
  // rise on one word, so it keeps the turn index's list beside this one: weight 1 with lexical 1 →
  // 54.1 / 78.1 / 89.2; lexical 0.5 → 55.6 / 78.3 / 89.1, 0.7 → 54.8 / 78.4 / 89.8, 0.3 → 56.1 /
  // 78.1 / 89.1; lexical 0.5 with vector 0.4 / 0.5 / 0.6 → 56.4 / 78.2 / 90.5, 56.2 / 78.5 / 90.8,
  // 56.4 / 78.3 / 89.8 (taken: 0.5); + prf off → 55.9 / 76.5 / 87.3; prf 0.3 → 56.3 / 77.9 / 89.5;
  // bContext 0.3 → 56.4 / 78.0 / 90.5. Session s@10 with it: 93.6 / 88.5 / 93.9 (from 87.4 / 87.2 /
  // 94.6). Costs ≈ 20 ms per recall on BEAM's long turns (Node).
  fielded: { pool: 200, ownPool: 0, b: 0.75, bContext: 0.75, delta: 0.5, prf: false, weight: 1, mode: 'relative' },
  // Neighbour context before/after 0 → −8.0 (the biggest single gain); 0.4 → −0.5; 0.7 → +0.3
  // (noise; MRR −0.002). caption 0 → −0.6. speaker 0 → 0.0. timeline 0 → −0.2, 0.2 → 0.0.
  fields: { speaker: 0.2, content: 1, caption: 0.6, before: 0.5, after: 0.5, timeline: 0.1 },
  // 0.5 (= fields) → 0.3: LME @10 89.2 → 91.1 (multi-session 81.2 → 84.9, single-session-user 92.3
  // → 100), @1 32.3 → 32.9, context 93.7 → 94.2; LoCoMo unchanged (about = null on all its
  // questions). The same 0.3 for every question: LME 91.1 but LoCoMo 78.5 → 77.5, hence per query.
  // longmemeval-more (never tuned on): @10 89.1 → 89.8, @1 37.1 → 39.3, MRR 0.718 → 0.742.
  userFields: { before: 0.3, after: 0.3 },
  // true → +0.3 (noise, measured on the v2 index) but a longer query; the speaker boost does this job.
  speakerNamesAsTerms: false,
  // The LongMemEval round's levers below: "LoCoMo" = LoCoMo dev @10 (760 q, base 78.7), "LME" = LongMemEval dev
  // turn @10 (97 headline q of the 104, base 87.2; one question ≈ 1 point), both full sets, same
  // runs (`--sweep`). true → LoCoMo −0.4 (78.3), LME 0.0: not kept.
  dropFramingWords: false,
  // Words of a relative date ("four weeks ago") out of the lexical query (with adviceAboutUser and
  // preference on): LME @10 87.9 → 89.2 (temporal-reasoning 83.6 → 87.3), @1 31.6 → 32.3, any@5
  // 97.9 → 100; LoCoMo 78.7 → 78.5 (−0.2, noise). Dropping absolute dates' words too: LME 88.9,
  // LoCoMo 78.4 (@3 −0.6): "June", "2023" also match the session dates in the timeline column.
  // longmemeval-more (all dates' words): @10 88.5 → 89.1, @1 37.7 → 37.1.
  dropDateWords: true,
  // enabled false → −0.3 (MRR −0.014, @1 −1.9); docs 3 → +0.3 (noise; @20 −0.7).
  prf: { enabled: true, docs: 5, terms: 10, minTermLength: 3 },
  // 30 → −1.1.
  rrfK: 60,
  // vector 0 → −1.0, 0.3 → −0.1 (equal weights lose; docs/architecture.md, Measured facts); prf 0.3 / 0.7 → ±0.1 (v2 index).
  // BEAM round, @10 BEAM / LoCoMo / LME: vector 0.5 → BEAM 47.1, 1 → 49.3 (LoCoMo with the large
  // path 74.5 / 68.9). own (the large path's own-words list fused in a small memory) 0.5 → 47.7 /
  // 77.6 / 90.6, 1 → 49.4 / 77.2 / 88.4, 1 with vector 0.5 → 52.6 / 78.4 / 90.3: LME falls, off.
  // The large path everywhere (large.above 0) → 54.9 / 75.7 / 85.9.
  // With the relative-BM25 list (fielded above): lexical 0.5, vector 0.5.
  weights: { lexical: 0.5, prf: 0.5, vector: 0.5, own: 0 },
  boosts: {
    // 0 → −2.8 (@1 −5.9): most LoCoMo questions name the speaker of the evidence.
    speaker: 0.3,
    // 0 → −1.1, 0.3 → −0.3.
    dateRange: 0.5,
    dateRangeSlackMs: 7 * 86_400_000,
    // 0 → −0.2 (@1 −1.1).
    timeExpression: 0.1,
    // 0 → +0.3 at k=10 (noise) but MRR −0.005, @5 −0.4; kept.
    session: 0.05,
    sessionTop: 3,
    sessionGapMs: 2 * 3_600_000,
    // Person ↔ assistant questions ("what did you recommend", "my dog"). Both 0 → 0.3, LongMemEval
    // dev (every 3rd of the 104: 33 headline q): @1 19.0 → 29.6, @5 58.9 → 69.5, @10 69.5 → 84.6,
    // MRR 0.527 → 0.647. LoCoMo dev: fires on none of its 999 third-person questions (exactly
    // unchanged, 78.7). Not yet swept beyond 0.3, nor the two apart.
    roleUser: 0.3,
    roleAssistant: 0.3,
    // "Can you recommend…" is a request for advice, not a question about the assistant's old replies:
    // true → LME 87.2 → 87.9 (single-session-preference 90.5 → 100, 7 q), context 88.9 → 89.6;
    // LoCoMo unchanged (fires on none of its questions).
    adviceAboutUser: true,
    // With adviceAboutUser: 0.3 → LME @1 31.2 → 31.6, @3 59.1 → 60.5, @5 71.1 → 72.2, @10 87.9
    // (MRR 0.656 → 0.663); 0.6 → same recall, MRR −0.002. LoCoMo unchanged.
    preference: 0.3,
    // BEAM round (three dev sets, `--sweep`, Node, bundled embedder; @10 BEAM-100K 354 q / LoCoMo 760 /
    // LME 97): requests and instructions together 44.1 → 44.8 / 78.5 = / 91.1 = (@5 34.6 → 34.8);
    // each alone +0.2 / +0.0 on BEAM. With preference 0.6 / 1: BEAM 44.8 / 45.4 but LME @5 76.4 →
    // 75.3 / 74.3: kept at 0.3. Neither fires on LoCoMo's third-person questions.
    requests: true,
    instructions: true,
    // Standing instructions (BEAM round, three dev sets, `--sweep`; @10 BEAM / LoCoMo / LME, BEAM @1 in
    // brackets, base 56.2 [19.8] / 78.5 / 90.8): instruction 0.5 / 1 / 2 on STATES_INSTRUCTION → 58.0 /
    // 59.4 / 59.9 [18.0 / 14.4 / 10.2] but LoCoMo @1 40.4 → 39.3 / 37.1 / 32.6 (friends' "never give
    // up"); on the stricter STANDING_INSTRUCTION LoCoMo and LME are unchanged at every value. top 2 →
    // 59.7; instructionSecond → 59.6 [19.9]. With the rules list below: 60.3 [18.1].
    instruction: 1,
    instructionTop: 2,
    instructionSecond: true,
    // 0.2 and 0.5 → LME 86.9 (−0.3: multi-session "how many … do I currently have" 80.3 → 79.1;
    // knowledge-update unchanged at 92.3, its evidence is both the old and the new value); LoCoMo
    // @1 −0.1 / −0.2. Not kept.
    recency: 0,
  },
  // Sessions as time runs (byConversation false): perSession 2 × 0.3 → LoCoMo 72.4 (−6.3), LME
  // 78.4 (−8.8); 1 × 0.2 → 72.2 / 77.4; 3 × 0.3 → 75.6 / 82.2 (LME @5 +5.2 but single-session
  // questions lose the 2nd–3rd turn of their one session). Off. byConversation is exactly neutral
  // on LoCoMo (one conversation per corpus); not measured on LME beyond the runs above (LongMemEval
  // stores each session as its own conversation, so the runs above are the same ranking there).
  // With the relative-BM25 list (BEAM / LoCoMo / LME @10, s@10 in brackets; default 56.2 [93.6] /
  // 78.5 [88.5] / 90.8 [93.9]): 3 × 0.15 → 55.1 [97.5] / 78.5 / 85.9; 4 × 0.3 → 55.2 [97.1] / 78.5 /
  // 86.3 (LongMemEval's sessions are conversations: its single-session questions lose their 2nd–4th
  // turn); with session 0 and 4 × 0.2 → 55.8 [97.4] / 78.1 / 87.3. session 0 alone → 56.2 [95.1] /
  // 78.1 [89.4] / 90.2 [94.6].
  // With instruction 1 / top 2 / second and the spread below (BEAM-100K / LoCoMo / LME @10 [BEAM @1,
  // s@10]): weight 0.5 → 60.1 [18.8, 97.8] / 78.5 / 90.8; 1 → 60.3 [18.1, 98.0] / 78.5 / 90.8 (BEAM
  // instruction_following 26.9 → 77.7; the two places they take cost the other abilities 1–3 points
  // each); top 1 → 60.0 [17.5, 97.5]. Without the list 59.6 [19.9, 97.6].
  rules: { weight: 1, scan: 300, top: 2 },
  // Only for questions about many occasions (queryAnalysis.asksAcrossTime, acrossOnly; BEAM s@10 base
  // 93.6, its misses are event ordering, summaries and multi-session questions): 3 × 0.15 → BEAM @10
  // 56.2 [s@10 95.4], 1 × 0.3 → 56.0 [96.8], LoCoMo unchanged, LME @10 = (@5 +0.6, @20 −0.6). With
  // the instruction boost: 1 × 0.1 / 0.15 / 0.2 / 0.3 → 60.0 [97.4] / 59.5 [97.6] / 59.6 [97.7] /
  // 59.5 [97.7]; flat (× (1 − penalty) once, not per extra turn) 0.2 / 0.3 → 59.6 [96.9] / 59.6 [97.6].
  diversity: { perSession: 1, penalty: 0.3, depth: 200, byConversation: true, acrossOnly: true, flat: true },
  // Context recall at the default 2,500-token budget (LoCoMo / LME; recall@k unchanged by design):
  // turns 12 → 80.5 / 89.6; 20 → 84.1 / 91.6; 30 → 86.2 / 93.2; 40 → 87.5 / 93.2. turnChars 800
  // with focus (30 turns) → 86.2 / 93.5; 600 with focus (40) → 87.5 / 92.5 (long assistant turns
  // then fit and crowd out later user turns). focus does not change which turns are cited; it
  // keeps the gold answer of long evidence turns that hold it verbatim: LME dev 36 of 36 (head cut
  // 35), longmemeval-more 33 of 34 (head cut 32). A real app also spends budget on facts and
  // episodes first; the composer keeps whatever of the 40 still fits.
  context: { turns: 40, turnChars: 1200, focus: true },
  // Used only when a reranker of trust > 0 is picked in Models (none by default). candidates: the
  // pool reaches below the boosted depth.fused, as deep as each candidate list (200), so a reranker
  // can lift evidence the fusion placed low; vectorDepth adds the best 400 of the vector list that
  // are not among them (rerankPool.ts). Oracle reranker (1 for evidence, else 0), recall.turn@10,
  // LongMemEval dev (fused 91.1) / LoCoMo dev conv-26 + conv-30 (231 q, fused 79.9), pairs per
  // question in brackets: 200 fused → 98.7 (200) / 97.5 (204); + vector 300 → 99.0 (357) / 99.5
  // (334); + vector 400 → 100.0 (424) / 99.8 (393; full LoCoMo dev 98.8 at 434, fused 78.5); 150
  // or 100 fused + vector 400 → the same at
  // 417 / 411 pairs (LME). Every fused candidate (≈ 600) reaches only 99.0: the last point is in
  // no list at depth 200. neighbours × window (turns around the best hits, same session): 10 × 3
  // and 20 × 2 add < 1 pair and nothing else (the turn index's neighbour context already ranks
  // them); listTop unmeasured. A random reranker and the trust-0 stand-in change nothing at any k
  // with this pool (bench/results/*-rerank-pool*.md). outlierZ is the textbook threshold
  // (rerankOrder.ts), not tuned here. Measured with `npm run bench -- recall --data <LoCoMo |
  // LongMemEval dev> --no-baselines --rerank oracle,random,<model> --sweep bench/sweeps/rerank-pool.json`.
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

export type BoostSignal = 'speaker' | 'role' | 'preference' | 'instruction' | 'recency' | 'dateRange' | 'timeExpression' | 'session' | 'diversity';

export interface BoostedItem extends FusedItem {
  readonly boosts: Partial<Record<BoostSignal, number>>;
}

/**
 * Applies the boosts in place of the fused scores and re-sorts. Items whose facts are unknown
 * (deleted between search and fetch) are dropped. Session aggregation reads the scores after
 * the multiplicative boosts, from a snapshot, so the result does not depend on input order.
 */
export function applyBoosts(fused: readonly FusedItem[], facts: ReadonlyMap<string, BoostFacts>, query: BoostQuery, config: RetrievalConfig['boosts']): BoostedItem[] {
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
    if (config.instruction && f.role === 'user' && f.statesInstruction && (!config.instructionTop || instructions++ < config.instructionTop)) {
      boosts.instruction = config.instruction;
      factor *= 1 + config.instruction;
    }
    if (config.recency && query.asksForCurrent && timeSpan > 0) {
      const gain = config.recency * (f.occurredAt - oldest) / timeSpan;
      if (gain > 0) {
        boosts.recency = gain;
        factor *= 1 + gain;
      }
    }
    if (config.dateRange && query.ranges.some((r) => f.occurredAt >= r.start - config.dateRangeSlackMs && f.occurredAt < r.end + config.dateRangeSlackMs)) {
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
        for (let j = i - 1; j >= 0 && t - facts.get(group[j]!.id)!.occurredAt <= config.sessionGapMs; j--) near.push(base.get(group[j]!.id)!);
        for (let j = i + 1; j < group.length && facts.get(group[j]!.id)!.occurredAt - t <= config.sessionGapMs; j++) near.push(base.get(group[j]!.id)!);
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
export function diversify(items: readonly BoostedItem[], facts: ReadonlyMap<string, BoostFacts>, config: RetrievalConfig, asksAcrossTime = false): BoostedItem[] {
  const { perSession, penalty, depth, acrossOnly, flat } = config.diversity;
  if (!(penalty > 0) || perSession < 1 || items.length < 2 || (acrossOnly && !asksAcrossTime)) return [...items];
  const pool = items.slice(0, Math.max(1, depth));
  const session = config.diversity.byConversation
    ? new Map(pool.map((x) => [x.id, facts.get(x.id)?.conversationId ?? x.id]))
    : sessionKeys(pool.map((x) => x.id), facts, config.boosts.sessionGapMs);
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
