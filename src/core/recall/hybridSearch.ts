/**
 * Hybrid search over one kind of memory item (facts, episodes, turns, scenes): the one place where
 * a kind's lexical candidates (storage's BM25 order) and its nearest vectors are fused. Storage only
 * returns candidates; ranking happens here, with the read path's one fusion function
 * (reciprocalRankFusion, equal weights, k = 60). Used by the answer context (facts, episodes) and
 * the explorer's search (every kind); turn recall for answers goes through the Retriever, which adds
 * query analysis, feedback and boosts on top of the same fusion.
 */
import { reciprocalRankFusion } from './fusion';

export interface VectorHit {
  readonly id: string;
  /** Cosine similarity to the query. */
  readonly score: number;
}

export interface HybridHit<T> {
  readonly item: T;
  readonly score: number;
  /** 1-based rank in the lists that held the item ('lexical', 'vector'). */
  readonly ranks: Readonly<Record<string, number>>;
  /** Cosine of a hit reached by meaning; null when only the words matched. */
  readonly similarity: number | null;
}

export interface HybridInput<T extends { readonly id: string }> {
  /** Lexical candidates, best first. */
  readonly lexical: readonly T[];
  /** Nearest items by meaning, best first. */
  readonly vector: readonly VectorHit[];
  /** Materialises vector hits the lexical list lacks; drops ids outside the caller's scope. */
  readonly fetch: (ids: readonly string[]) => Promise<readonly T[]>;
  /**
   * Which vector hits count. Default: positive cosine (a non-positive cosine carries no evidence
   * of relatedness). `alsoLexical` tells whether the words matched too.
   */
  readonly admit?: (hit: VectorHit, alsoLexical: boolean) => boolean;
}

export async function hybridSearch<T extends { readonly id: string }>(input: HybridInput<T>): Promise<HybridHit<T>[]> {
  const byId = new Map(input.lexical.map((item) => [item.id, item]));
  const admit = input.admit ?? ((hit) => hit.score > 0);
  const admitted = input.vector.filter((hit) => admit(hit, byId.has(hit.id)));
  const missing = [...new Set(admitted.filter((hit) => !byId.has(hit.id)).map((hit) => hit.id))];
  if (missing.length > 0) for (const item of await input.fetch(missing)) byId.set(item.id, item);
  const similarity = new Map<string, number>();
  for (const hit of admitted) if (!similarity.has(hit.id)) similarity.set(hit.id, hit.score);
  const fused = reciprocalRankFusion([
    { name: 'lexical', weight: 1, ids: input.lexical.map((item) => item.id) },
    { name: 'vector', weight: 1, ids: admitted.map((hit) => hit.id).filter((id) => byId.has(id)) },
  ]);
  return fused.map((f) => ({
    item: byId.get(f.id)!,
    score: f.score,
    ranks: f.ranks,
    similarity: f.ranks.vector !== undefined ? similarity.get(f.id)! : null,
  }));
}
