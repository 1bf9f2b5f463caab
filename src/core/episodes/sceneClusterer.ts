/**
 * Incremental clustering of MemCells into MemScenes (themes), no LLM (docs/architecture.md, Write path; after
 * EverMemOS): a cell joins the nearest scene centroid when the cosine is at least `threshold` and
 * the scene's most recent member is within `maxGapMs` of the cell; otherwise it founds a new
 * scene. Centroids are running means of member vectors, updated in O(dim) per assignment.
 *
 * The reference values (0.70 / 7 days) assume large embedding models; ours are calibrated per
 * embedder (see SCENE_THRESHOLDS and bench/).
 */
import { cosine } from '../base/vectorMath';

export interface SceneState {
  readonly id: string;
  /** Running mean of member vectors (not necessarily unit length). */
  readonly centroid: Float32Array;
  readonly memberCount: number;
  readonly lastActivityAt: number;
}

export interface SceneClustererConfig {
  readonly threshold: number;
  readonly maxGapMs: number;
}

/**
 * Calibrated on centred cell vectors (SemanticIndex.meanVector), LoCoMo dev, bundled model: 230 scenes
 * of 292 cells, tight enough for the recurrence policy; see docs/retrieval-tuning.md#scene-clustering.
 */
export const DEFAULT_SCENE_CONFIG: SceneClustererConfig = { threshold: 0.45, maxGapMs: 14 * 86_400_000 };

export type SceneDecision =
  | { readonly kind: 'join'; readonly sceneId: string; readonly similarity: number; readonly next: SceneState }
  | { readonly kind: 'found'; readonly similarity: number | null };

/** Chooses a scene for a cell with embedding `vector` and time `at` among `scenes`. */
export function assignScene(
  scenes: readonly SceneState[],
  vector: Float32Array,
  at: number,
  config: SceneClustererConfig = DEFAULT_SCENE_CONFIG,
): SceneDecision {
  let best: SceneState | null = null;
  let bestSim = -Infinity;
  for (const s of scenes) {
    if (s.centroid.length !== vector.length) continue;
    // The time constraint filters candidates before the argmax (a recent weaker match can win).
    if (Math.abs(at - s.lastActivityAt) > config.maxGapMs) continue;
    const sim = cosine(vector, s.centroid);
    if (sim > bestSim) {
      bestSim = sim;
      best = s;
    }
  }
  if (!best || bestSim < config.threshold) return { kind: 'found', similarity: best ? bestSim : null };
  const n = best.memberCount;
  const centroid = new Float32Array(best.centroid.length);
  for (let i = 0; i < centroid.length; i++) centroid[i] = (best.centroid[i]! * n + vector[i]!) / (n + 1);
  return {
    kind: 'join',
    sceneId: best.id,
    similarity: bestSim,
    next: { id: best.id, centroid, memberCount: n + 1, lastActivityAt: Math.max(best.lastActivityAt, at) },
  };
}

/** Clusters cells in order (batch form), returning the scene index of each cell and the scenes. */
export function clusterCells(
  cells: readonly { vector: Float32Array; at: number }[],
  config: SceneClustererConfig = DEFAULT_SCENE_CONFIG,
): { assignment: number[]; scenes: SceneState[] } {
  const scenes: SceneState[] = [];
  const assignment: number[] = [];
  for (const cell of cells) {
    const d = assignScene(scenes, cell.vector, cell.at, config);
    if (d.kind === 'join') {
      const i = scenes.findIndex((s) => s.id === d.sceneId);
      scenes[i] = d.next;
      assignment.push(i);
    } else {
      scenes.push({ id: `s${scenes.length}`, centroid: Float32Array.from(cell.vector), memberCount: 1, lastActivityAt: cell.at });
      assignment.push(scenes.length - 1);
    }
  }
  return { assignment, scenes };
}
