/**
 * Synthesis sized for a small context window (a model on this device: SmolLM2's 8k, the browser's
 * built-in model's ≈ 6k, against the 128k+ of hosted models). An episode's prompt — instructions,
 * known facts, every turn — plus the reply must fit the window, or the model silently loses the
 * start of the prompt (transformers.js truncates nothing; the Prompt API throws
 * QuotaExceededError). So for such a model the reply is capped, fewer known facts are shown, and
 * the turns are split into consecutive batches that each fit; each batch is one call, numbered
 * with the episode's own turn numbers so the facts' sources stay right. A model with no declared
 * window (an endpoint) gets the whole episode in one call, as before.
 */

/** Kept free for the tokenizer gap: the estimate counts cl100k tokens, small models' tokenizers differ by 10–20%. */
const SAFETY = 0.15;

export interface MemCellBudget {
  /** The reply's cap (the schema's JSON for one batch). */
  readonly outputTokens: number;
  /** Known facts shown to the model (predict-calibrate), fewer in a small window. */
  readonly knownFactLimit: number;
  /** Tokens left for the turns, given the tokens of everything else in the prompt. */
  turnTokens(fixedPromptTokens: number): number;
}

/** How an episode's synthesis fits `contextTokens`; null for a model with no declared window. */
export function memCellBudget(contextTokens: number | undefined, maxOutputTokens: number, knownFactLimit: number): MemCellBudget | null {
  if (contextTokens === undefined || !Number.isFinite(contextTokens) || contextTokens <= 0) return null;
  const outputTokens = Math.min(maxOutputTokens, Math.max(256, Math.floor(contextTokens / 4)));
  const usable = Math.floor(contextTokens * (1 - SAFETY));
  return {
    outputTokens,
    knownFactLimit: contextTokens < 16_384 ? Math.min(knownFactLimit, 8) : knownFactLimit,
    // At least a little room: a single turn always goes, alone, in its own batch.
    turnTokens: (fixed) => Math.max(128, usable - outputTokens - fixed),
  };
}

/**
 * Consecutive batches of turns whose costs fit `budget` each: [start, end) index pairs, in order,
 * covering every turn once. A turn that alone exceeds the budget is a batch by itself (its text
 * is already clipped by the prompt builder).
 */
export function synthesisBatches(costs: readonly number[], budget: number): Array<readonly [number, number]> {
  const batches: Array<readonly [number, number]> = [];
  let start = 0;
  let used = 0;
  costs.forEach((cost, i) => {
    if (i > start && used + cost > budget) {
      batches.push([start, i]);
      start = i;
      used = 0;
    }
    used += cost;
  });
  if (costs.length > start) batches.push([start, costs.length]);
  return batches;
}
