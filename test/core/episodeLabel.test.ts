import { describe, expect, it } from 'vitest';
import { episodeName, episodeState, firstWords, planState } from '../../src/core/explorer/episodeLabel';

describe("an episode's name and state in plain words", () => {
  it("keeps a title, else takes the narrative's, else the first turn's first words", () => {
    expect(episodeName({ title: 'Lisbon trip', narrative: 'Sam planned a trip.', opening: 'hi' })).toBe('Lisbon trip');
    expect(episodeName({ title: null, narrative: 'Sam planned a trip to Lisbon in May.', opening: 'hi' })).toBe(
      'Sam planned a trip to Lisbon in May.',
    );
    expect(episodeName({ title: '  ', narrative: null, opening: '## Budget\n\nWhat does **rent** cost?' })).toBe(
      'Budget What does rent cost?',
    );
    expect(episodeName({ title: null, narrative: null, opening: null })).toBe('An episode with no words left');
  });

  it('cuts a long text at a word, with an ellipsis, and leaves code out', () => {
    const long = 'About the garden: I have been thinking about it since last week and I am still not sure what to do about the fence.';
    const name = firstWords(long);
    expect(name.length).toBeLessThanOrEqual(71);
    expect(name.endsWith('…')).toBe(true);
    expect(long.startsWith(name.slice(0, -1))).toBe(true);
    expect(firstWords('Fix this:\n```ts\nconst x = 1;\n```\nplease')).toBe('Fix this: please');
    expect(firstWords('See [the docs](https://example.org/x) first')).toBe('See the docs first');
  });

  it('never says raw, queued, synthesised or (open)', () => {
    const said = [
      episodeState('raw'),
      episodeState('queued'),
      episodeState('synthesised'),
      episodeState('failed'),
      episodeState('raw', true),
    ];
    for (const s of said) expect(s).not.toMatch(/\braw\b|queued|synthesised|\(open\)/);
    expect(new Set(said).size).toBe(said.length);
    expect(planState('active', 'date-parser')).toBe('ahead or under way · from a date you mentioned');
    expect(planState('dismissed', 'llm')).not.toMatch(/llm|parser/);
  });
});
