import { describe, expect, it } from 'vitest';
import { HEAT_HALF_LIFE_MS, sceneHeat } from '../../src/core/episodes/heat';

describe('scene heat', () => {
  const now = 1_800_000_000_000;
  it('grows with visits and size and decays with age', () => {
    const base = { visits: 0, turns: 10, lastActivityAt: now };
    expect(sceneHeat({ ...base, visits: 3 }, now)).toBeGreaterThan(sceneHeat(base, now));
    expect(sceneHeat({ ...base, turns: 40 }, now)).toBeGreaterThan(sceneHeat(base, now));
    const old = sceneHeat({ ...base, lastActivityAt: now - HEAT_HALF_LIFE_MS }, now);
    expect(sceneHeat(base, now) - old).toBeCloseTo(0.5, 6);
  });
});
