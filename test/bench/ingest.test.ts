import { describe, expect, it } from 'vitest';
import { ingestInputs, repFromTimings } from '../../bench/ingest';
import { loadLocomo } from '../../bench/datasets';

describe('ingest benchmark arithmetic', () => {
  it('sums a repetition over its corpora: capture alone, and capture plus embedding', () => {
    const rep = repFromTimings([
      { turns: 600, captureMs: 400, embedMs: 200 },
      { turns: 400, captureMs: 100, embedMs: 300 },
    ]);
    expect(rep).toEqual({ turns: 1000, captureSeconds: 0.5, seconds: 1, captureTurnsPerSecond: 2000, turnsPerSecond: 1000 });
    expect(repFromTimings([])).toMatchObject({ turns: 0, turnsPerSecond: 0, captureTurnsPerSecond: 0 });
  });

  it('sends turns only (no questions) to the benchmark page', () => {
    const dataset = loadLocomo([
      {
        sample_id: 'conv-x',
        conversation: {
          speaker_a: 'Ann',
          speaker_b: 'Bob',
          session_1_date_time: '1:56 pm on 8 May, 2023',
          session_1: [
            { speaker: 'Ann', dia_id: 'D1:1', text: 'Hi Bob!' },
            { speaker: 'Bob', dia_id: 'D1:2', text: 'Look at this', blip_caption: 'a photo of a dog' },
          ],
        },
        qa: [{ question: 'What did Bob share?', answer: 'a photo', evidence: ['D1:2'], category: 1 }],
      },
    ]);
    const [corpus] = ingestInputs(dataset);
    expect(corpus!.questions).toEqual([]);
    expect(corpus!.sessions[0]!.turns.map((t) => [t.speaker, t.text, t.caption])).toEqual([
      ['Ann', 'Hi Bob!', undefined],
      ['Bob', 'Look at this', 'a photo of a dog'],
    ]);
  });
});
