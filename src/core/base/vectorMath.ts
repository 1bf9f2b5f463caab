/** Small vector helpers shared by segmentation, clustering and the encoding score. */

/** Cosine similarity; `ifZero` when either vector is all zeros (no signal). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>, ifZero = 0): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : ifZero;
}
