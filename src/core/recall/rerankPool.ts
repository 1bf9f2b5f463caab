/**
 * Which turns a reranker of trust > 0 is asked to score beyond the best fused candidates: the
 * evidence the fusion ranks below `rerank.candidates` or finds in no candidate list at all.
 *
 * A cross-encoder pays per (question, turn) pair, so the pool stays near its fused size; what is
 * added is chosen where evidence is likely, not by going deeper in the fused order:
 * - `neighbours`: the turns just before and after (±1, same conversation and session, the turn
 *   index's window) of the pool's best `neighbours` turns. Evidence comes in runs: a question and
 *   its answer, a fact stated over two turns; the fused lists often hold one and miss the other.
 * - `listTop`: the best `listTop` of every candidate list, so a list that fusion outvoted (the
 *   vector list weighs 0.2) still has its best turns scored.
 * - `vectorDepth`: the vector list read this deep for the pool (the fused lists stay as deep as
 *   before): the vector index answers a deeper query for almost nothing.
 *
 * Extras come in that order, each once and never a turn already in the pool. The fused order,
 * fused recall and a reranker of trust 0 (never asked) are unchanged by any of this.
 */
import type { RankedList, RetrievalConfig } from './fusion';

/** What the pool reads beyond the fused candidates (see the module header). */
export type RerankPoolConfig = Pick<RetrievalConfig['rerank'], 'neighbours' | 'listTop' | 'vectorDepth'>;

/** The part of the retrieval source the pool needs: which turns sit next to a hit. */
export interface PoolSource<Scope> {
  contextLinks(ids: readonly string[], scope?: Scope): Promise<readonly { readonly from: string; readonly to: string; readonly distance: number }[]>;
}

/**
 * The ids to score besides `pool` (the fused candidates, best first), best guess first. `lists` are
 * the fused candidate lists; `deepVector` the vector list read `vectorDepth` deep (or as deep as
 * the fused one).
 */
export async function rerankPoolExtras<Scope>(
  pool: readonly string[], lists: readonly RankedList[], deepVector: readonly string[],
  source: PoolSource<Scope>, config: RerankPoolConfig, scope?: Scope,
): Promise<string[]> {
  const seen = new Set(pool);
  const out: string[] = [];
  const add = (id: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    out.push(id);
  };
  if (config.neighbours > 0) {
    const hits = pool.slice(0, config.neighbours);
    const rank = new Map(hits.map((id, i) => [id, i]));
    const links = (await source.contextLinks(hits, scope)).filter((l) => l.distance === 1 && rank.has(l.from));
    // Neighbours of better hits first; the two sides of one hit in a fixed order (the source's).
    links.sort((a, b) => rank.get(a.from)! - rank.get(b.from)!);
    for (const l of links) add(l.to);
  }
  if (config.listTop > 0) for (const list of lists) for (const id of list.ids.slice(0, config.listTop)) add(id);
  for (const id of deepVector) add(id);
  return out;
}
