/**
 * Segmentation of a conversation into MemCells (episodes) without an LLM (docs/architecture.md, Write path).
 *
 * A boundary closes the open segment before a turn when: the calendar day changes, the time gap
 * since the previous turn is long, the turn's embedding drifts away from the segment (cosine to
 * the running centroid below a threshold, once the segment has a few turns), or the segment is
 * full (turns or tokens). On LoCoMo fixed 10-turn segments lose only ~1 point of answer accuracy
 * against LLM segmentation, so cheap rules are a sound default; an LLM boundary check can be
 * layered on top by the caller.
 */
import { cosine } from '../base/vectorMath';
import { DEFAULT_TIME_ZONE, dayKey } from '../base/timeZone';

export interface SegmenterConfig {
  /** Close on a change of calendar day, in the user's time zone (an IANA name; DST-aware). */
  readonly splitOnDayChange: boolean;
  readonly timeZone: string;
  /** Close when the gap since the previous turn exceeds this. */
  readonly maxGapMs: number;
  /** Close when the turn's cosine to the segment centroid is below this (needs minTurnsForDrift turns). */
  readonly driftThreshold: number;
  readonly minTurnsForDrift: number;
  readonly maxTurns: number;
  readonly maxTokens: number;
}

export const DEFAULT_SEGMENTER_CONFIG: SegmenterConfig = {
  splitOnDayChange: true,
  timeZone: DEFAULT_TIME_ZONE,
  maxGapMs: 3 * 3_600_000,
  // Low on purpose: static word-vector embeddings give related turns cosines of ~0.3–0.8, and a
  // false split costs less than a missed one (each cell is small and scenes regroup them).
  driftThreshold: 0.15,
  minTurnsForDrift: 4,
  maxTurns: 12,
  maxTokens: 2_000,
};

export interface SegmentTurn {
  readonly id: string;
  readonly seq: number;
  readonly occurredAt: number;
  readonly tokenCount: number;
  /** Unit-length embedding, when available. */
  readonly vector?: Float32Array | null;
}

export type BoundaryReason = 'day-change' | 'time-gap' | 'topic-drift' | 'size-cap';

export interface Segment {
  readonly turns: readonly SegmentTurn[];
  /** Why the segment *after* this one started (null for an open or last segment). */
  readonly closedBy: BoundaryReason | null;
}

/** The open segment's running state, enough to decide about the next turn. */
export interface OpenSegment {
  readonly lastOccurredAt: number;
  readonly turns: number;
  readonly tokens: number;
  /** Sum of member vectors (not normalised); null until a member has a vector. */
  readonly vectorSum: Float32Array | null;
}

/** Decides whether `turn` starts a new segment after `open`; null means it joins. */
export function boundaryBefore(
  open: OpenSegment | null,
  turn: SegmentTurn,
  config: SegmenterConfig = DEFAULT_SEGMENTER_CONFIG,
): BoundaryReason | null {
  if (!open || open.turns === 0) return null;
  if (config.splitOnDayChange && dayKey(config.timeZone, turn.occurredAt) !== dayKey(config.timeZone, open.lastOccurredAt))
    return 'day-change';
  if (turn.occurredAt - open.lastOccurredAt > config.maxGapMs) return 'time-gap';
  if (open.turns >= config.maxTurns || open.tokens + turn.tokenCount > config.maxTokens) return 'size-cap';
  if (
    turn.vector &&
    open.vectorSum &&
    open.turns >= config.minTurnsForDrift &&
    cosine(turn.vector, open.vectorSum, 1) < config.driftThreshold
  ) {
    return 'topic-drift';
  }
  return null;
}

/** Adds `turn` to the open segment state (or starts one). */
export function extend(open: OpenSegment | null, turn: SegmentTurn): OpenSegment {
  let vectorSum = open?.vectorSum ?? null;
  if (turn.vector && turn.vector.some((x) => x !== 0)) {
    const sum = vectorSum ? Float32Array.from(vectorSum) : new Float32Array(turn.vector.length);
    if (sum.length === turn.vector.length) for (let i = 0; i < sum.length; i++) sum[i]! += turn.vector[i]!;
    vectorSum = sum;
  }
  return {
    lastOccurredAt: Math.max(open?.lastOccurredAt ?? turn.occurredAt, turn.occurredAt),
    turns: (open?.turns ?? 0) + 1,
    tokens: (open?.tokens ?? 0) + turn.tokenCount,
    vectorSum,
  };
}

/** Segments a whole ordered list of turns (batch form of boundaryBefore/extend). */
export function segmentTurns(turns: readonly SegmentTurn[], config: SegmenterConfig = DEFAULT_SEGMENTER_CONFIG): Segment[] {
  const out: { turns: SegmentTurn[]; closedBy: BoundaryReason | null }[] = [];
  let open: OpenSegment | null = null;
  for (const turn of turns) {
    const reason = boundaryBefore(open, turn, config);
    if (reason || out.length === 0) {
      if (reason) out[out.length - 1]!.closedBy = reason;
      out.push({ turns: [], closedBy: null });
      open = null;
    }
    out[out.length - 1]!.turns.push(turn);
    open = extend(open, turn);
  }
  return out;
}
