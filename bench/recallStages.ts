/**
 * Where one recall's time goes, stage by stage (`scale-sweep --stages`): the Retriever runs once
 * over a recording RetrievalSource and embedder, then every call it made is replayed alone, one
 * after another, and timed. Replaying sequentially separates the stages the Retriever overlaps
 * (the vector search runs beside the lexical query), so the stage times can add up to more than
 * the recall's wall time. What the Retriever spends outside the calls (query analysis, fusion,
 * boosts, diversity) is timed by running it again over the recorded answers, returned at once.
 */
import type { Embedder } from '../src/core/base/ports';
import type { RetrievalSource } from '../src/core/recall/Retriever';

interface Call {
  readonly stage: string;
  readonly run: () => Promise<unknown>;
  result?: Promise<unknown>;
}

const STAGES: Record<string, string> = {
  turns: 'read turns',
  facts: 'read candidate facts',
  ownWords: 'lexical (own words)',
  lexical: 'lexical (turn index)',
  contextLinks: 'neighbour links',
  vector: 'vector top-k',
  termStats: 'term stats',
  size: 'memory size',
  turnIndexCurrent: 'turn index current',
};

export interface Recording {
  readonly source: RetrievalSource;
  readonly embedder: Embedder;
  /** The calls since the last take, in order. */
  take(): Call[];
  /** From now on answer each call with the next recorded result (until `live`). */
  answerFrom(calls: readonly Call[]): void;
  live(): void;
}

/** A source and embedder that record each call (with its arguments) for replay. */
export function recordingDeps(source: RetrievalSource, embedder: Embedder): Recording {
  let calls: Call[] = [];
  // Answers per stage, in call order (the stages' relative order may differ when answers are instant).
  let canned: Map<string, Call[]> | null = null;
  const call = (stage: string, run: () => Promise<unknown>): Promise<unknown> => {
    if (canned) return canned.get(stage)!.shift()!.result!;
    const c: Call = { stage, run };
    c.result = run();
    calls.push(c);
    return c.result;
  };
  const wrapped = new Proxy(source, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        call(STAGES[String(key)] ?? String(key), () => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
    },
  });
  const recordingEmbedder = Object.create(embedder, {
    embed: {
      value: (texts: readonly string[], role?: Parameters<Embedder['embed']>[1]) =>
        call('embed question', () => embedder.embed(texts, role)),
    },
  }) as Embedder;
  return {
    source: wrapped,
    embedder: recordingEmbedder,
    take: () => {
      const c = calls;
      calls = [];
      return c;
    },
    answerFrom: (c) => {
      canned = new Map();
      for (const x of c) canned.set(x.stage, [...(canned.get(x.stage) ?? []), x]);
    },
    live: () => {
      canned = null;
    },
  };
}

/** Replays `calls` one at a time; stage → ms (calls of one stage summed). */
export async function replay(calls: readonly Call[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const c of calls) {
    const t0 = performance.now();
    await c.run();
    out.set(c.stage, (out.get(c.stage) ?? 0) + performance.now() - t0);
  }
  return out;
}
