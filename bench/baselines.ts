/**
 * Baselines measured in the same run as our retriever, over the same turns:
 * - `bm25`: our FTS5 index alone, one turn per document (messages_fts via store.searchMessages).
 * - `orama`: Orama (an established JS search library) full-text BM25 over turn + caption,
 *   English stemming and stop words.
 * - `orama-hybrid`: Orama hybrid search over the same text and the same embedder's vectors
 *   (the vectors our engine stored), with Orama's default weights (0.5 / 0.5).
 */
import { create, insertMultiple, search, type AnyOrama } from '@orama/orama';
import type { SqliteMemoryStore } from '../src/storage/SqliteMemoryStore';
import type { Embedder } from '../src/core/base/ports';
import { STOP_WORDS } from '../src/core/recall/queryAnalysis';

export interface Baseline {
  readonly name: string;
  /** Turn ids, best first. */
  rank(question: string, depth: number): Promise<string[]>;
}

export function bm25Baseline(store: SqliteMemoryStore): Baseline {
  return {
    name: 'bm25',
    async rank(question, depth) {
      return (await store.searchMessages(question, { limit: depth })).map((h) => h.message.id);
    },
  };
}

export interface OramaDoc {
  readonly id: string;
  readonly text: string;
  readonly vector: Float32Array | null;
}

export async function oramaBaselines(docs: readonly OramaDoc[], embedder: Embedder | null): Promise<Baseline[]> {
  const dim = embedder?.dim ?? 0;
  const hasVectors = embedder !== null && docs.every((d) => d.vector && d.vector.length === dim);
  // Configured as its docs recommend for English: built-in stemmer and a stop-word list (the same
  // list our query analysis uses, so the comparison is about ranking, not about stop words).
  const components = { tokenizer: { language: 'english', stemming: true, stopWords: [...STOP_WORDS] } };
  const db: AnyOrama = hasVectors
    ? create({ schema: { text: 'string', embedding: `vector[${dim}]` } as const, components })
    : create({ schema: { text: 'string' } as const, components });
  await insertMultiple(
    db,
    docs.map((d) => (hasVectors ? { id: d.id, text: d.text, embedding: Array.from(d.vector!) } : { id: d.id, text: d.text })),
  );
  const out: Baseline[] = [
    {
      name: 'orama',
      async rank(question, depth) {
        const r = await search(db, { term: question, limit: depth });
        return r.hits.map((h) => String(h.id));
      },
    },
  ];
  if (hasVectors && embedder) {
    out.push({
      name: 'orama-hybrid',
      async rank(question, depth) {
        const [q] = await embedder.embed([question], 'query');
        const r = await search(db, {
          mode: 'hybrid',
          term: question,
          vector: { value: Array.from(q!), property: 'embedding' },
          similarity: 0,
          limit: depth,
        });
        return r.hits.map((h) => String(h.id));
      },
    });
  }
  return out;
}
