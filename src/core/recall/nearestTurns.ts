/**
 * Search by meaning alone over stored turns (Search → "by meaning"): the active embedder's nearest
 * vectors, cosine as the score, restricted to a conversation when asked. Answers and the explorer
 * use hybrid ranking instead (Retriever, hybridSearch); this is the plain nearest-neighbour view.
 */
import type { Embedder } from '../base/ports';
import type { MemoryStore, SearchOptions } from '../base/store';
import type { SearchHit } from '../base/types';
import type { SemanticIndex } from '../capture/SemanticIndex';
import { markdownText } from '../base/markdownText';

const SNIPPET_CHARS = 240;
/** Hits over-fetched per wanted result when a conversation filter will drop the others. */
const SCOPED_OVERFETCH = 10;

export async function nearestTurns(
  deps: { readonly embedder: Embedder; readonly index: SemanticIndex; readonly store: Pick<MemoryStore, 'getMessage'> },
  query: string,
  options: SearchOptions = {},
): Promise<SearchHit[]> {
  const text = query.trim();
  if (!text) return [];
  const limit = Math.max(1, Math.min(options.limit ?? 20, 500));
  const { embedder } = deps;
  const [vector] = await embedder.embed([text], 'query');
  if (!vector) return [];
  const hits = await deps.index.search(embedder.id, embedder.dim, vector, options.conversationId ? limit * SCOPED_OVERFETCH : limit);
  const out: SearchHit[] = [];
  for (const hit of hits) {
    if (hit.score <= 0) continue;
    const message = await deps.store.getMessage(hit.id);
    if (!message || (options.conversationId && message.conversationId !== options.conversationId)) continue;
    // Assistant turns are Markdown (the chat renders them): the snippet shows their words, not `**`.
    const text = message.role === 'assistant' ? markdownText(message.content) : message.content;
    const snippet = text.length > SNIPPET_CHARS ? `${text.slice(0, SNIPPET_CHARS)}…` : text;
    out.push({ message, score: hit.score, snippet });
    if (out.length >= limit) break;
  }
  return out;
}
