import { describe, expect, it } from 'vitest';
import { DEFAULT_SEGMENTER_CONFIG, segmentTurns, type SegmentTurn } from '../../src/core/episodes/segmenter';
import { assignScene, clusterCells } from '../../src/core/episodes/sceneClusterer';

const H = 3_600_000;
const DAY0 = Date.UTC(2026, 2, 10, 9, 0);
const unit = (...xs: number[]) => {
  const v = Float32Array.from(xs);
  const n = Math.hypot(...xs);
  return v.map((x) => x / n);
};
const PETS = unit(1, 0.1, 0);
const TRAVEL = unit(0, 0.1, 1);

function turn(i: number, at: number, vector?: Float32Array, tokens = 20): SegmentTurn {
  return { id: `t${i}`, seq: i, occurredAt: at, tokenCount: tokens, vector: vector ?? null };
}

describe('segmentation', () => {
  it('splits on a calendar day change and a long gap, not on a short pause', () => {
    const turns = [
      turn(1, DAY0),
      turn(2, DAY0 + 5 * 60_000),
      turn(3, DAY0 + 60 * 60_000), // same morning
      turn(4, DAY0 + 6 * H), // long gap, same day
      turn(5, DAY0 + 6 * H + 60_000),
      turn(6, DAY0 + 24 * H), // next day
    ];
    const segs = segmentTurns(turns);
    expect(segs.map((s) => s.turns.map((t) => t.seq))).toEqual([[1, 2, 3], [4, 5], [6]]);
    expect(segs.map((s) => s.closedBy)).toEqual(['time-gap', 'day-change', null]);
  });

  it('splits when the topic drifts, but only once the segment has a few turns', () => {
    const turns = [
      turn(1, DAY0, PETS),
      turn(2, DAY0 + 60_000, TRAVEL), // early drift is ignored
      turn(3, DAY0 + 120_000, PETS),
      turn(4, DAY0 + 180_000, PETS),
      turn(5, DAY0 + 240_000, PETS),
      turn(6, DAY0 + 300_000, TRAVEL),
      turn(7, DAY0 + 360_000, TRAVEL),
    ];
    const segs = segmentTurns(turns, { ...DEFAULT_SEGMENTER_CONFIG, driftThreshold: 0.5, minTurnsForDrift: 4 });
    expect(segs.map((s) => s.turns.map((t) => t.seq))).toEqual([
      [1, 2, 3, 4, 5],
      [6, 7],
    ]);
    expect(segs[0]!.closedBy).toBe('topic-drift');
  });

  it('caps a segment by turns and by tokens', () => {
    const many = Array.from({ length: 25 }, (_, i) => turn(i, DAY0 + i * 1000));
    expect(segmentTurns(many).map((s) => s.turns.length)).toEqual([12, 12, 1]);
    const big = [turn(1, DAY0, undefined, 1500), turn(2, DAY0 + 1000, undefined, 600), turn(3, DAY0 + 2000, undefined, 10)];
    expect(segmentTurns(big).map((s) => s.turns.length)).toEqual([1, 2]);
  });

  it('handles turns without vectors and zero vectors without NaN decisions', () => {
    const z = new Float32Array(3);
    const turns = Array.from({ length: 8 }, (_, i) => turn(i, DAY0 + i * 1000, i % 2 ? z : undefined));
    expect(segmentTurns(turns)).toHaveLength(1);
  });
});

describe('scene clustering', () => {
  it('joins the nearest recent scene above the threshold, founds a new one otherwise', () => {
    const cells = [
      { vector: PETS, at: DAY0 },
      { vector: TRAVEL, at: DAY0 + H },
      { vector: unit(0.9, 0.2, 0.05), at: DAY0 + 2 * H }, // pets again
      { vector: PETS, at: DAY0 + 30 * 24 * H }, // pets, but a month later: too far in time
    ];
    const { assignment, scenes } = clusterCells(cells, { threshold: 0.8, maxGapMs: 7 * 24 * H });
    expect(assignment).toEqual([0, 1, 0, 2]);
    expect(scenes[0]!.memberCount).toBe(2);
    expect(scenes[0]!.lastActivityAt).toBe(DAY0 + 2 * H);
  });

  it('updates the centroid as a running mean', () => {
    const d = assignScene(
      [{ id: 'a', centroid: Float32Array.from([1, 0]), memberCount: 1, lastActivityAt: 0 }],
      Float32Array.from([0.6, 0.8]),
      0,
      { threshold: 0.5, maxGapMs: 1 },
    );
    expect(d.kind).toBe('join');
    if (d.kind === 'join') {
      expect(Array.from(d.next.centroid)).toEqual([expect.closeTo(0.8, 6), expect.closeTo(0.4, 6)]);
      expect(d.next.memberCount).toBe(2);
    }
  });

  it('never joins across dimensions or with no scenes', () => {
    expect(assignScene([], PETS, 0)).toEqual({ kind: 'found', similarity: null });
    expect(assignScene([{ id: 'a', centroid: Float32Array.from([1, 0]), memberCount: 1, lastActivityAt: 0 }], PETS, 0).kind).toBe('found');
  });
});
