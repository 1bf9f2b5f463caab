import { describe, expect, it } from 'vitest';
import { EpisodeTally, estimateSynthesis } from '../../src/core/synthesis/synthesisEstimate';

const at = (h: number, m = 0) => Date.UTC(2024, 0, 10, h, m);

describe('synthesis estimate for an import', () => {
  it('counts episodes by the segmenter rules: size cap, long gaps and day changes', () => {
    const tally = new EpisodeTally();
    // 30 short turns a minute apart: the 12-turn cap makes 3 episodes; then 4 h later a 4th; next day a 5th.
    tally.addConversation([
      ...Array.from({ length: 30 }, (_, i) => ({ occurredAt: at(9, i), content: 'short turn' })),
      { occurredAt: at(14), content: 'after a long gap' },
      { occurredAt: at(14) + 86_400_000, content: 'the next day' },
    ]);
    expect(tally.cells).toBe(5);
    expect(tally.turns).toBe(32);
  });

  it('eager costs at least one call per episode and grows with the text; off costs nothing', () => {
    const small = new EpisodeTally();
    small.addConversation([{ occurredAt: at(9), content: 'hello' }]);
    const big = new EpisodeTally();
    big.addConversation([{ occurredAt: at(9), content: 'word '.repeat(2_000) }]);
    const [eagerSmall, recurrenceSmall, offSmall] = estimateSynthesis(small);
    const [eagerBig] = estimateSynthesis(big);
    expect(eagerSmall!.calls.low).toBeGreaterThanOrEqual(1);
    expect(eagerBig!.promptTokens.low - eagerSmall!.promptTokens.low).toBeGreaterThanOrEqual(2_000);
    expect(recurrenceSmall!.calls.high).toBeLessThanOrEqual(eagerSmall!.calls.low);
    expect(offSmall).toEqual({
      policy: 'off',
      calls: { low: 0, high: 0 },
      promptTokens: { low: 0, high: 0 },
      completionTokens: { low: 0, high: 0 },
    });
  });
});
