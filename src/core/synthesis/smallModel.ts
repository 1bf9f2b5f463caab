/**
 * Synthesis sized for a small context window (a model on this device: SmolLM2's 8k, the browser's
 * built-in model's ≈ 6k, against the 128k+ of hosted models). An episode's prompt — instructions,
 * known facts, every turn — plus the reply must fit the window, or the model silently loses the
 * start of the prompt (transformers.js truncates nothing; the Prompt API throws
 * QuotaExceededError). So for such a model the reply is capped, fewer known facts are shown, and
 * the turns are split into consecutive batches that each fit; each batch is one call, numbered
 * with the episode's own turn numbers so the facts' sources stay right. A model with no declared
 * window (an endpoint) gets the whole episode in one call, as before.
 *
 * Themes and the profile follow the same rule (callBudget, synthesisBatches): a theme's new
 * episodes are folded into its summary in consecutive calls, each carrying the summary so far; the
 * profile's scenes are shown in batches, each with the current profile, and the operations of all
 * batches are planned together. Every input goes into some call; one too long to fit alone is
 * clipped (clipToTokens) and counted in the result, never left out.
 */
import type { TokenCounter } from '../base/tokens';

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

/** One call in a small window: the reply's cap and the tokens left for the whole prompt. */
export interface CallBudget {
  readonly outputTokens: number;
  readonly promptTokens: number;
}

/** How one call with a reply of up to `maxOutputTokens` fits `contextTokens`; null for a model with no declared window. */
export function callBudget(contextTokens: number | undefined, maxOutputTokens: number): CallBudget | null {
  if (contextTokens === undefined || !Number.isFinite(contextTokens) || contextTokens <= 0) return null;
  const outputTokens = Math.min(maxOutputTokens, Math.max(256, Math.floor(contextTokens / 4)));
  return { outputTokens, promptTokens: Math.floor(contextTokens * (1 - SAFETY)) - outputTokens };
}

/** How an episode's synthesis fits `contextTokens`; null for a model with no declared window. */
export function memCellBudget(contextTokens: number | undefined, maxOutputTokens: number, knownFactLimit: number): MemCellBudget | null {
  const call = callBudget(contextTokens, maxOutputTokens);
  if (!call || contextTokens === undefined) return null;
  return {
    outputTokens: call.outputTokens,
    knownFactLimit: contextTokens < 16_384 ? Math.min(knownFactLimit, 8) : knownFactLimit,
    // At least a little room: a single turn always goes, alone, in its own batch.
    turnTokens: (fixed) => Math.max(128, call.promptTokens - fixed),
  };
}

/** The tokens of a prompt's messages (each message's framing counted as 4). */
export function messageTokens(messages: readonly { readonly content: string }[], count: TokenCounter): number {
  return messages.reduce((n, m) => n + count(m.content) + 4, 0);
}

/** `text` cut to at most `maxTokens` (its start kept, "…" marking the cut); unchanged when it fits. */
export function clipToTokens(text: string, maxTokens: number, count: TokenCounter): string {
  let clipped = text;
  // Shrinks by the measured ratio: two or three rounds, as tokens per character vary little within one text.
  while (clipped.length > 0 && count(clipped) > maxTokens) {
    const keep = Math.floor(((clipped.length * Math.max(0, maxTokens - 1)) / count(clipped)) * 0.95);
    clipped = keep > 0 ? `${clipped.slice(0, keep).trimEnd()}…` : '';
  }
  return clipped;
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

/**
 * Each item's prompt line cost for batching in `room` tokens; an item whose line alone exceeds the
 * room is shortened with `clip` (given the tokens its text may keep) and counted.
 */
export function fitLines<T>(
  items: readonly T[],
  line: (item: T) => string,
  room: number,
  count: TokenCounter,
  clip: (item: T, maxTokens: number) => T,
  textTokens: (item: T) => number,
): { items: T[]; costs: number[]; clipped: number } {
  let clipped = 0;
  const out = items.map((item) => {
    let cost = count(line(item)) + 1;
    if (cost <= room) return item;
    clipped++;
    let kept = item;
    let max = textTokens(item);
    // A few rounds: the line shows a clipped, one-line form of the text, so the first cut may not be enough.
    for (let round = 0; cost > room && max > 0 && round < 6; round++) {
      max = Math.max(0, max - (cost - room) - 2);
      kept = clip(item, max);
      cost = count(line(kept)) + 1;
    }
    return kept;
  });
  return { items: out, costs: out.map((item) => count(line(item)) + 1), clipped };
}
