/**
 * Pure helpers of the memory explorer: the tombstone hash, why a search result matched, and a
 * 2-D projection of episode vectors for the scene map. No I/O; shared by core and storage.
 */

import { normaliseText } from '../base/text';
import { hasNoSpaceScript } from '../base/lexicalUnits';

export { normaliseText };

/**
 * A 106-bit hash (two seeded cyrb53 halves) of the normalised text, as hex. Tombstones keep this
 * instead of the text so the database holds no copy of what the user asked to forget; a
 * collision would only suppress an identical-looking statement.
 */
export function tombstoneHash(text: string): string {
  const s = normaliseText(text);
  const half = (seed: number): string => {
    let h1 = 0xdeadbeef ^ seed;
    let h2 = 0x41c6ce57 ^ seed;
    for (let i = 0; i < s.length; i++) {
      const ch = s.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
  };
  return half(0) + half(0x9e3779b9);
}

/** The query's words (letters/digits, lower case, length ≥ 2). */
export function queryTerms(query: string): string[] {
  return [
    ...new Set(
      normaliseText(query)
        .split(' ')
        .filter((t) => t.length >= 2),
    ),
  ];
}

/**
 * Which query words occur in which field, as readable reasons ("“sushi” in the text"). A word
 * matches a field word that starts with it or shares its first 5 letters (FTS5's porter stemmer
 * matched it, e.g. "dogs" ~ "dog").
 */
export function matchReasons(terms: readonly string[], fields: Readonly<Record<string, string | null | undefined>>): string[] {
  const out: string[] = [];
  for (const [field, value] of Object.entries(fields)) {
    if (!value) continue;
    const text = normaliseText(value);
    const words = text.split(' ');
    // A word of a script without spaces sits inside a longer run: look for it as a substring.
    const hit = terms.filter(
      (t) =>
        (hasNoSpaceScript(t) && text.includes(t)) ||
        words.some((w) => w.startsWith(t) || (t.startsWith(w) && w.length >= 3) || (t.length >= 5 && w.slice(0, 5) === t.slice(0, 5))),
    );
    if (hit.length) out.push(`${hit.map((t) => `“${t}”`).join(', ')} in the ${field}`);
  }
  return out;
}

/**
 * Projects vectors onto their two main principal components (power iteration with deflation on
 * the centred data; enough for a picture of a few thousand episodes). Returns [x, y] per input,
 * each axis scaled to [-1, 1].
 */
export function pca2d(vectors: readonly Float32Array[], iterations = 40): [number, number][] {
  const n = vectors.length;
  if (n === 0) return [];
  const dim = vectors[0]!.length;
  const mean = new Float64Array(dim);
  for (const v of vectors) for (let i = 0; i < dim; i++) mean[i]! += (v[i] ?? 0) / n;
  const rows = vectors.map((v) => Float64Array.from({ length: dim }, (_, i) => (v[i] ?? 0) - mean[i]!));
  const components: Float64Array[] = [];
  for (let c = 0; c < 2; c++) {
    // Deterministic start so the same data draws the same map.
    let w: Float64Array = Float64Array.from({ length: dim }, (_, i) => Math.sin(i + 1 + c * 7));
    for (let it = 0; it < iterations; it++) {
      const next = new Float64Array(dim);
      for (const r of rows) {
        let dot = 0;
        for (let i = 0; i < dim; i++) dot += r[i]! * w[i]!;
        for (let i = 0; i < dim; i++) next[i]! += dot * r[i]!;
      }
      for (const prev of components) {
        let d = 0;
        for (let i = 0; i < dim; i++) d += next[i]! * prev[i]!;
        for (let i = 0; i < dim; i++) next[i]! -= d * prev[i]!;
      }
      const norm = Math.hypot(...next);
      if (norm < 1e-12) break;
      w = next.map((x) => x / norm);
    }
    components.push(w);
  }
  const points = rows.map((r) => components.map((w) => r.reduce((s, x, i) => s + x * w[i]!, 0)) as [number, number]);
  for (const axis of [0, 1] as const) {
    const max = Math.max(1e-9, ...points.map((p) => Math.abs(p[axis])));
    for (const p of points) p[axis] = p[axis] / max;
  }
  return points;
}

/** How a forgotten kind is named to the user, singular and plural. */
const FORGET_NOUNS: Readonly<Record<string, readonly [string, string]>> = {
  fact: ['fact', 'facts'],
  episode: ['episode', 'episodes'],
  turn: ['message', 'messages'],
  foresight: ['plan', 'plans'],
  profile: ['profile item', 'profile items'],
  scene: ['theme summary', 'theme summaries'],
  title: ['conversation title', 'conversation titles'],
};

/** "3 messages, 1 fact, 2 plans" — what Forget deleted, in the order of `counts`, zero counts left out. */
export function forgetSummary(counts: Readonly<Record<string, number>>): string {
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => {
      const [one, many] = FORGET_NOUNS[kind] ?? [kind, kind];
      return `${n} ${n === 1 ? one : many}`;
    });
  return parts.join(', ') || 'nothing';
}
