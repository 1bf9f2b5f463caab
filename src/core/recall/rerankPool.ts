/**
 * Which turns a reranker of trust > 0 is asked to score beyond the best fused candidates: the
 * evidence the fusion ranks below `rerank.candidates` or finds in no candidate list at all.
 *
 * A cross-encoder pays per (question, turn) pair, so the pool stays near its fused size; what is
 * added is chosen where evidence is likely, not by going deeper in the fused order:
 * - `neighbours` × `window`: up to `window` turns on each side of the pool's best `neighbours`
 *   turns, same conversation and session (no pause longer than the session gap). Evidence comes in
 *   runs: a question and its answer, a fact stated over several turns of one session; the fused
 *   lists often hold one and miss the others.
 * - `listTop`: the best `listTop` of every candidate list, so a list that fusion outvoted (the
 *   vector list weighs 0.2) still has its best turns scored.
 * - `vectorDepth`: the best `vectorDepth` of the vector list, read this deep for the pool (the
 *   fused lists stay as deep as before): the vector index answers a deeper query for almost nothing.
 *
 * Extras come in that order, each once and never a turn already in the pool. The fused order,
 * fused recall and a reranker of trust 0 (never asked) are unchanged by any of this.
 */
import type { Message } from '../base/types';
import type { RankedList, RetrievalConfig } from './fusion';

/** What the pool reads beyond the fused candidates (see the module header). */
export type RerankPoolConfig = Pick<RetrievalConfig['rerank'], 'neighbours' | 'window' | 'listTop' | 'vectorDepth'>;

/** The part of the retrieval source the pool needs: the hits themselves and the turns around them. */
export interface PoolSource {
  turns(ids: readonly string[]): Promise<readonly Message[]>;
  neighbours(id: string, before: number, after: number): Promise<readonly Message[]>;
}

/**
 * The ids to score besides `pool` (the fused candidates, best first), best guess first. `lists` are
 * the fused candidate lists; `deepVector` the vector list as deep as it was read. `gapMs` ends a
 * session (a longer pause between two turns); `until` leaves out later turns (a scoped search).
 */
export async function rerankPoolExtras(
  pool: readonly string[],
  lists: readonly RankedList[],
  deepVector: readonly string[],
  source: PoolSource,
  config: RerankPoolConfig & { readonly gapMs: number; readonly until?: number },
): Promise<string[]> {
  const seen = new Set(pool);
  const out: string[] = [];
  const add = (id: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    out.push(id);
  };
  if (config.neighbours > 0 && config.window > 0) {
    const hits = await source.turns(pool.slice(0, config.neighbours));
    const rank = new Map(pool.map((id, i) => [id, i]));
    for (const hit of [...hits].sort((a, b) => rank.get(a.id)! - rank.get(b.id)!)) {
      const around = await source.neighbours(hit.id, config.window, config.window);
      // Outwards from the hit, nearest first on each side, while the session goes on.
      for (const side of [around.filter((m) => m.seq < hit.seq).reverse(), around.filter((m) => m.seq > hit.seq)]) {
        let last = hit.occurredAt;
        for (const m of side) {
          if (Math.abs(m.occurredAt - last) > config.gapMs || (config.until !== undefined && m.occurredAt > config.until)) break;
          last = m.occurredAt;
          add(m.id);
        }
      }
    }
  }
  if (config.listTop > 0) for (const list of lists) for (const id of list.ids.slice(0, config.listTop)) add(id);
  if (config.vectorDepth > 0) for (const id of deepVector.slice(0, config.vectorDepth)) add(id);
  return out;
}
