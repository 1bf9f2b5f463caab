/**
 * Recall scoring, pure functions. A question counts only when it has at least one valid evidence
 * turn (LoCoMo) or evidence session (LongMemEval session metrics); the loaders have already
 * dropped malformed and dangling ids.
 *
 * - recall.turn@k: fraction of the evidence turns found in the top k turns.
 * - hit.turn@k: 1 when all evidence turns are in the top k.
 * - recall.session@k: fraction of the evidence sessions among the sessions of the top k turns.
 * - recallAny.session@k / recallAll.session@k: whether any / all evidence sessions are among the
 *   first k distinct sessions of the ranking (the form published LongMemEval numbers use).
 * - mrr: 1 / rank of the first evidence turn (0 when none is retrieved).
 * - context recall: fraction of the evidence turns cited in the composed answer context (what the
 *   answering model would see at the memory budget); set only for the system that composed one.
 */
import type { BenchQuestion } from './datasets';

export type KMap = Record<string, number>;

export interface QuestionScore {
  readonly questionId: string;
  readonly category: string;
  readonly headline: boolean;
  readonly hasTurnEvidence: boolean;
  readonly hasSessionEvidence: boolean;
  readonly recallTurn: KMap;
  readonly hitTurn: KMap;
  readonly recallSession: KMap;
  readonly recallAnySession: KMap;
  readonly recallAllSession: KMap;
  readonly reciprocalRank: number;
  /** Fraction of evidence turns in the composed answer context (absent when none was composed). */
  readonly contextRecall?: number;
}

/** Fraction of `q`'s evidence turns among the turns the composed context cites (0 when it has none). */
export function contextRecall(q: BenchQuestion, citedTurnIds: Iterable<string>): number {
  const evidence = new Set(q.evidenceTurns);
  if (evidence.size === 0) return 0;
  const cited = new Set(citedTurnIds);
  return [...evidence].filter((e) => cited.has(e)).length / evidence.size;
}

/** `ranked` is best first; `sessionOf` maps a turn id to its session id. */
export function scoreQuestion(
  q: BenchQuestion,
  ranked: readonly string[],
  sessionOf: (turnId: string) => string | undefined,
  ks: readonly number[],
): QuestionScore {
  const evidence = new Set(q.evidenceTurns);
  const evidenceSessions = new Set(q.evidenceSessions);
  const recallTurn: KMap = {};
  const hitTurn: KMap = {};
  const recallSession: KMap = {};
  const recallAnySession: KMap = {};
  const recallAllSession: KMap = {};
  const distinctSessions: string[] = [];
  for (const id of ranked) {
    const s = sessionOf(id);
    if (s !== undefined && !distinctSessions.includes(s)) distinctSessions.push(s);
  }
  for (const k of ks) {
    const top = new Set(ranked.slice(0, k));
    const found = [...evidence].filter((e) => top.has(e)).length;
    recallTurn[k] = evidence.size ? found / evidence.size : 0;
    hitTurn[k] = evidence.size && found === evidence.size ? 1 : 0;
    const topTurnSessions = new Set([...top].map(sessionOf).filter((s): s is string => s !== undefined));
    const sFound = [...evidenceSessions].filter((s) => topTurnSessions.has(s)).length;
    recallSession[k] = evidenceSessions.size ? sFound / evidenceSessions.size : 0;
    const topSessions = new Set(distinctSessions.slice(0, k));
    const anyFound = [...evidenceSessions].filter((s) => topSessions.has(s)).length;
    recallAnySession[k] = anyFound > 0 ? 1 : 0;
    recallAllSession[k] = evidenceSessions.size && anyFound === evidenceSessions.size ? 1 : 0;
  }
  const firstHit = ranked.findIndex((id) => evidence.has(id));
  return {
    questionId: q.id,
    category: q.category,
    headline: q.headline,
    hasTurnEvidence: evidence.size > 0,
    hasSessionEvidence: evidenceSessions.size > 0,
    recallTurn,
    hitTurn,
    recallSession,
    recallAnySession,
    recallAllSession,
    reciprocalRank: firstHit >= 0 ? 1 / (firstHit + 1) : 0,
  };
}

export interface AggregateScore {
  readonly questions: number;
  readonly recall: { readonly turn: KMap; readonly session: KMap };
  readonly hit: { readonly turn: KMap };
  readonly recallAny: { readonly session: KMap };
  readonly recallAll: { readonly session: KMap };
  readonly mrr: number;
  /** Mean context recall over the questions with turn evidence that had a context composed; null when none had. */
  readonly contextRecall: number | null;
}

function mean(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}

function meanK(scores: readonly QuestionScore[], pick: (s: QuestionScore) => KMap, ks: readonly number[]): KMap {
  const out: KMap = {};
  for (const k of ks) out[k] = mean(scores.map((s) => pick(s)[k] ?? 0));
  return out;
}

/**
 * Means over the questions with turn evidence (turn metrics, mrr) and with session evidence
 * (session metrics). `questions` counts the questions with turn evidence, or with session
 * evidence when no question has turn evidence.
 */
export function aggregate(scores: readonly QuestionScore[], ks: readonly number[]): AggregateScore {
  const withTurns = scores.filter((s) => s.hasTurnEvidence);
  const withSessions = scores.filter((s) => s.hasSessionEvidence);
  return {
    questions: withTurns.length || withSessions.length,
    recall: { turn: meanK(withTurns, (s) => s.recallTurn, ks), session: meanK(withSessions, (s) => s.recallSession, ks) },
    hit: { turn: meanK(withTurns, (s) => s.hitTurn, ks) },
    recallAny: { session: meanK(withSessions, (s) => s.recallAnySession, ks) },
    recallAll: { session: meanK(withSessions, (s) => s.recallAllSession, ks) },
    mrr: mean(withTurns.map((s) => s.reciprocalRank)),
    contextRecall: (() => {
      const composed = withTurns.filter((s) => s.contextRecall !== undefined);
      return composed.length ? mean(composed.map((s) => s.contextRecall!)) : null;
    })(),
  };
}

/** Groups by category (named with `names` when given). */
export function byCategory(
  scores: readonly QuestionScore[],
  ks: readonly number[],
  names: Readonly<Record<string, string>> = {},
): Record<string, AggregateScore> {
  const groups = new Map<string, QuestionScore[]>();
  for (const s of scores) {
    const key = names[s.category] ?? s.category;
    const list = groups.get(key) ?? [];
    list.push(s);
    groups.set(key, list);
  }
  return Object.fromEntries([...groups].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, aggregate(v, ks)]));
}
