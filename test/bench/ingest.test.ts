import { describe, expect, it } from 'vitest';
import { ingestInputs, rateStats, repFromTimings } from '../../bench/ingest';
import { loadLocomo } from '../../bench/datasets';

describe('ingest benchmark arithmetic', () => {
  it('takes the median and the slow-end p95 of per-repetition rates', () => {
    expect(rateStats([900, 1100, 1000])).toEqual({ median: 1000, p95: 900, min: 900, max: 1100 });
    expect(rateStats([4, 1, 3, 2])).toMatchObject({ median: 2.5, p95: 1 });
    const twenty = Array.from({ length: 20 }, (_, i) => (i + 1) * 100);
    expect(rateStats(twenty).p95).toBe(100); // the rate 95 % of 20 repetitions beat
    expect(rateStats([])).toEqual({ median: 0, p95: 0, min: 0, max: 0 });
  });

  it('sums a repetition over its corpora: capture alone, and capture plus embedding', () => {
    const rep = repFromTimings([
      { turns: 600, captureMs: 400, embedMs: 200 },
      { turns: 400, captureMs: 100, embedMs: 300 },
    ]);
    expect(rep).toEqual({ turns: 1000, captureSeconds: 0.5, seconds: 1, captureTurnsPerSecond: 2000, turnsPerSecond: 1000 });
    expect(repFromTimings([])).toMatchObject({ turns: 0, turnsPerSecond: 0, captureTurnsPerSecond: 0 });
  });

  it('sends turns only (no questions) to the benchmark page', () => {
    const dataset = loadLocomo([{
      sample_id: 'conv-x',
      conversation: {
        speaker_a: 'Ann', speaker_b: 'Bob',
        session_1_date_time: '1:56 pm on 8 May, 2023',
        session_1: [
          { speaker: 'Ann', dia_id: 'D1:1', text: 'Hi Bob!' },
          { speaker: 'Bob', dia_id: 'D1:2', text: 'Look at this', blip_caption: 'a photo of a dog' },
        ],
      },
      qa: [{ question: 'What did Bob share?', answer: 'a photo', evidence: ['D1:2'], category: 1 }],
    }]);
    const [corpus] = ingestInputs(dataset);
    expect(corpus!.questions).toEqual([]);
    expect(corpus!.sessions[0]!.turns.map((t) => [t.speaker, t.text, t.caption])).toEqual([['Ann', 'Hi Bob!', undefined], ['Bob', 'Look at this', 'a photo of a dog']]);
  });
});
