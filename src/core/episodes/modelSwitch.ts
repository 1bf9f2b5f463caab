/**
 * What an embedder switch means for episodes and themes. A raw episode's vector is the mean of its
 * turns' vectors (a synthesised one embeds its narrative instead, done by the indexer like any
 * text); a theme's centroid is the mean of its members' centred vectors. Both are rebuilt for the
 * new model before it becomes active, so clustering keeps comparing new episodes with every
 * existing theme instead of founding new ones.
 */
import type { MemoryStore, VectorStore } from '../base/store';
import type { SemanticIndex } from '../capture/SemanticIndex';
import type { EpisodeStore, MemCellRecord } from './episodes';

export interface ModelSwitchDeps {
  readonly episodes: EpisodeStore;
  readonly store: MemoryStore & VectorStore;
  readonly semantic: SemanticIndex;
}

/** The unit mean of a cell's turn vectors for `model`, or null when none has one. */
export async function turnMean(d: ModelSwitchDeps, cell: MemCellRecord, model: string, dim: number): Promise<Float32Array | null> {
  const ids = (await d.episodes.turnsInRange(cell.conversationId, cell.firstSeq, cell.lastSeq)).map((m) => m.id);
  const vectors = await d.store.getVectors('message', ids, model);
  const mean = new Float32Array(dim);
  for (const v of vectors) if (v.vector.length === dim) for (let i = 0; i < dim; i++) mean[i]! += v.vector[i]!;
  const norm = Math.hypot(...mean);
  if (norm === 0) return null;
  for (let i = 0; i < dim; i++) mean[i]! /= norm;
  return mean;
}

/** `v` minus the corpus mean, unit length: what scenes compare (see SemanticIndex.meanVector). */
export function centred(v: Float32Array, common: Float32Array): Float32Array {
  const out = v.map((x, i) => x - (common[i] ?? 0));
  const n = Math.hypot(...out);
  if (n > 0) for (let i = 0; i < out.length; i++) out[i]! /= n;
  return out;
}

/**
 * Rebuilds every theme's centroid from its members' turn vectors of `model`; returns how many.
 * `onlyStale`: only the themes whose centroid is not of `model` (after the switch: one an episode
 * joined or founded with the old model while the centroids were being rebuilt).
 */
export async function recentreScenes(d: ModelSwitchDeps, model: string, dim: number, onlyStale = false): Promise<number> {
  const current = onlyStale
    ? new Set((await d.episodes.scenes(model)).filter((s) => s.centroid !== null).map((s) => s.id))
    : new Set<string>();
  const ids = (await d.episodes.sceneIds()).filter((id) => !current.has(id));
  if (ids.length === 0) return 0;
  const common = await d.semantic.meanVector(model, dim);
  let done = 0;
  for (const sceneId of ids) {
    const sum = new Float32Array(dim);
    let n = 0;
    for (const cell of await d.episodes.cellsInScene(sceneId)) {
      const mean = await turnMean(d, cell, model, dim);
      if (!mean) continue;
      const c = centred(mean, common);
      for (let i = 0; i < dim; i++) sum[i]! += c[i]!;
      n++;
    }
    if (n === 0) continue;
    for (let i = 0; i < dim; i++) sum[i]! /= n;
    await d.episodes.setSceneCentroid(sceneId, sum, model);
    done++;
  }
  return done;
}
