/**
 * The one token estimator: the answer context's budget, and token counts for servers that report
 * no `usage` (many local servers, some streams).
 *
 * Uses gpt-tokenizer's cl100k_base encoding — not the served model's own tokenizer, which we cannot
 * know, but within ~10–20% of Llama/Qwen/Mistral tokenizers on English chat text, which is what
 * spend accounting needs. The encoding (~1 MB) is imported lazily on first use, so endpoints that
 * do report usage never load it; if it cannot load, we fall back to the common chars/4 rule.
 */
import type { LlmMessage } from './ports';

/** Estimated token count of a text. */
export type TokenCounter = (text: string) => number;
type Counter = TokenCounter;

/** The documented fallback: about four characters per token for English text. */
export const charsOverFour: Counter = (text) => Math.ceil(text.length / 4);

let counter: Promise<Counter> | undefined;

function loadCounter(): Promise<Counter> {
  counter ??= import('gpt-tokenizer/encoding/cl100k_base')
    .then(
      (m): Counter =>
        (text) =>
          m.countTokens(text),
    )
    .catch((): Counter => charsOverFour);
  return counter;
}

/** A synchronous counter for budgets (the context composer): loads the encoding once. */
export function loadTokenCounter(): Promise<TokenCounter> {
  return loadCounter();
}

export async function estimateTokens(text: string): Promise<number> {
  if (text === '') return 0;
  const count = await loadCounter();
  return count(text);
}

/**
 * Chat prompt tokens: content plus the per-message framing of OpenAI's chat format (about 3
 * tokens per message and 3 to prime the reply, per OpenAI's cookbook counting recipe).
 */
export async function estimatePromptTokens(messages: readonly LlmMessage[]): Promise<number> {
  const count = await loadCounter();
  let total = 3;
  for (const m of messages) total += 3 + count(m.content) + 1;
  return total;
}
