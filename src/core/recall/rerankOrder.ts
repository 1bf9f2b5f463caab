/**
 * How a reranker's scores change the fused order: the one combination rule of the rerank stage.
 *
 * A reranker votes only for the candidates its scores single out, and its vote weighs what the
 * model's catalog entry trusts it to (`trust`, 0..1):
 *
 * 1. Singled out = a robust outlier among the candidates' scores: modified z-score
 *    0.6745·(s − median) / MAD ≥ `outlierZ` (3.5, Iglewicz & Hoaglin's rule for outliers). With
 *    more than half the scores equal (MAD = 0) the mean absolute deviation stands in for it
 *    (z = (s − median) / (1.2533·MeanAD)). Median and MAD ignore the few high scores they are
 *    meant to find, so five evidence turns stand out as clearly as one (the plain z-score of the
 *    old rule shrank as evidence turns were added). Scores unrelated to relevance do not stand
 *    out: uniform noise never exceeds 0.6745·0.5 / 0.25 ≈ 1.35, Gaussian noise passes 3.5 for
 *    about 1 candidate in 4,300.
 * 2. Order = weighted reciprocal rank fusion, as everywhere else on the read path, of two lists:
 *    the fused order (weight 1) and the reranker's order of what it singled out (weight `trust`,
 *    equal scores share a rank). At trust 1 every singled-out candidate goes above every other
 *    (1/(k+n) + 1/(k+s) > 1/(k+1) for the depths used here), among themselves by both orders; at
 *    trust t one can rise only past candidates whose fused RRF score is below its own plus
 *    t/(k+1); at trust 0 the fused order is returned unchanged.
 *
 * What the reranker does not single out keeps its fused order: a reranker's graded opinion about
 * the middle of the list is the part a weak or random model gets wrong, and no catalog model has
 * been measured to improve it here (no real cross-encoder weights on the build machine).
 */

/** Modified z-score of Iglewicz & Hoaglin: 0.6745 = the normal distribution's MAD / σ. */
const MAD_TO_SD = 0.6745;
/** MeanAD / σ for a normal distribution is √(2/π) ≈ 0.7979; 1 / 0.7979 = 1.2533. */
const MEAN_AD_TO_SD = 1.253314;

function median(sorted: readonly number[]): number {
  const m = sorted.length >> 1;
  return sorted.length % 2 ? sorted[m]! : (sorted[m - 1]! + sorted[m]!) / 2;
}

/**
 * Indices of the scores that are robust outliers on the high side (modified z ≥ `z`); none when
 * z ≤ 0, fewer than 3 finite scores or all finite scores are equal.
 */
export function singledOut(scores: readonly number[], z: number): Set<number> {
  const out = new Set<number>();
  const finite = scores.filter(Number.isFinite).sort((a, b) => a - b);
  if (!(z > 0) || finite.length < 3) return out;
  const med = median(finite);
  const deviations = finite.map((s) => Math.abs(s - med)).sort((a, b) => a - b);
  const mad = median(deviations);
  const meanAd = deviations.reduce((a, b) => a + b, 0) / deviations.length;
  if (mad === 0 && meanAd === 0) return out;
  const zOf = mad > 0 ? (s: number) => (MAD_TO_SD * (s - med)) / mad : (s: number) => (s - med) / (MEAN_AD_TO_SD * meanAd);
  scores.forEach((s, i) => {
    if (Number.isFinite(s) && zOf(s) >= z) out.add(i);
  });
  return out;
}

/**
 * The reranked order of a fused head: a permutation of 0..scores.length−1 (index 0 = the best
 * fused candidate). `k` is the RRF constant of the fused lists.
 */
export function rerankOrder(
  scores: readonly number[],
  options: { readonly trust: number; readonly outlierZ: number; readonly k: number },
): number[] {
  const n = scores.length;
  const fusedOrder = Array.from({ length: n }, (_, i) => i);
  const trust = Math.min(1, Math.max(0, Number.isFinite(options.trust) ? options.trust : 0));
  if (trust === 0 || n < 2) return fusedOrder;
  const chosen = [...singledOut(scores, options.outlierZ)].sort((a, b) => scores[b]! - scores[a]!);
  if (chosen.length === 0) return fusedOrder;
  const vote = new Map<number, number>();
  let rank = 0;
  chosen.forEach((i, j) => {
    if (j === 0 || scores[i]! < scores[chosen[j - 1]!]!) rank = j + 1; // equal scores share the better rank
    vote.set(i, trust / (options.k + rank));
  });
  const score = (i: number) => 1 / (options.k + i + 1) + (vote.get(i) ?? 0);
  return fusedOrder.sort((a, b) => score(b) - score(a) || a - b);
}
