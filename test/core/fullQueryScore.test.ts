import { describe, expect, it } from 'vitest';
import { fieldedScores, fullQueryScores, stemKey } from '../../src/core/recall/fullQueryScore';

describe('fullQueryScores', () => {
  it("keys words by their Porter stem, as the index's porter tokenizer does, and leaves non-ASCII words alone", () => {
    expect(['dogs', 'dog'].map(stemKey)).toEqual(['dog', 'dog']);
    expect(['puppies', 'puppy'].map(stemKey)).toEqual(['puppi', 'puppi']);
    expect(['running', 'planned', 'walked', 'walks', 'baked', 'bake', 'classes', 'class', 'days', 'day'].map(stemKey)).toEqual([
      'run',
      'plan',
      'walk',
      'walk',
      'bake',
      'bake',
      'class',
      'class',
      'dai',
      'dai',
    ]);
    expect(stemKey('café')).toBe('café');
  });

  it("counts a turn's inflected forms of the question's words, as the index matched them (a y turned to i included)", () => {
    const stats = {
      docs: 500,
      avgLength: 40,
      df: new Map([
        ['classes', 9],
        ['days', 30],
        ['bake', 4],
      ]),
    };
    const texts = new Map([
      ['yoga', 'I recently started a yoga class on Wednesdays, which has been really helpful after a long day.'],
      ['baking', 'Last weekend I baked sourdough twice, and I am baking cookies for the party.'],
      ['none', 'Can you recommend a playlist for my morning run?'],
    ]);
    const s = fullQueryScores(['classes', 'days', 'bake'], texts, stats);
    expect(s.get('none')).toBe(0);
    const yoga = fullQueryScores(['classes'], texts, stats).get('yoga')!;
    expect(yoga).toBeGreaterThan(0);
    expect(fullQueryScores(['days'], texts, stats).get('yoga')!).toBeGreaterThan(0);
    expect(fullQueryScores(['bake'], texts, stats).get('baking')!).toBeGreaterThan(
      fullQueryScores(['bake'], new Map([['once', texts.get('baking')!.replace('baking', 'making')]]), stats).get('once')!,
    );
    // The same through the relative list's field scorer, on the non-ASCII path too.
    const pool = {
      texts: new Map([
        ['yoga', texts.get('yoga')!],
        ['accent', `Café yoga class at noon — ${texts.get('yoga')!}`],
      ]),
      windows: [
        { id: 'yoga', before: [], after: [] },
        { id: 'accent', before: [], after: [] },
      ],
    };
    const f = fieldedScores(['classes', 'days'], pool, stats, {
      weights: { own: 1, before: 0.5, after: 0.5 },
      b: 0.75,
      delta: 0.5,
      mode: 'relative',
    });
    expect(f.get('yoga')!).toBeGreaterThan(0);
    expect(f.get('accent')!).toBeGreaterThan(0);
  });

  it('scores rare words above common ones, repeated words above single ones, short turns above long ones', () => {
    const stats = {
      docs: 1000,
      avgLength: 5,
      df: new Map([
        ['paris', 900],
        ['trip', 3],
      ]),
    };
    const texts = new Map([
      ['common', 'paris paris'],
      ['rare', 'one trip'],
      ['both', 'paris trip'],
      ['twice', 'trips and trip'],
      ['long', `trip ${'word '.repeat(40)}`],
      ['none', 'nothing here'],
    ]);
    const s = fullQueryScores(['trip', 'paris', 'trip'], texts, stats);
    expect(s.get('none')).toBe(0);
    expect(s.get('rare')!).toBeGreaterThan(s.get('common')!);
    expect(s.get('both')!).toBeGreaterThan(s.get('rare')!);
    expect(s.get('twice')!).toBeGreaterThan(s.get('rare')! * 0.9);
    expect(s.get('long')!).toBeLessThan(s.get('rare')!);
    // A word the index holds in nearly every turn still counts a little, never negatively.
    expect(s.get('common')!).toBeGreaterThan(0);
  });
});

describe('fieldedScores (BM25F)', () => {
  const stats = {
    docs: 1000,
    avgLength: 20,
    df: new Map([
      ['sprint', 5],
      ['ends', 50],
    ]),
  };
  const long = 'word '.repeat(400);
  const options = { weights: { own: 1, before: 0.5, after: 0.5 }, b: 0.75, delta: 0 };
  /** Windows from [id, own text, before texts, after texts]. */
  const pool = (rows: [string, string, string[], string[]][]) => {
    const texts = new Map<string, string>();
    const windows = rows.map(([id, own, before, after]) => {
      texts.set(id, own);
      const ids = (side: string, list: string[]) =>
        list.map((text, i) => {
          texts.set(`${id}-${side}${i}`, text);
          return `${id}-${side}${i}`;
        });
      return { id, before: ids('b', before), after: ids('a', after) };
    });
    return { texts, windows };
  };

  it("judges a turn's own words by its own length, not its neighbours' (FTS5's bm25 counts the whole row)", () => {
    const s = fieldedScores(
      ['sprint', 'ends'],
      pool([
        // The same short turn, once beside short turns and once beside long replies.
        ['quiet', 'my first sprint ends on March 29', ['ok'], ['noted']],
        ['busy', 'my first sprint ends on March 29', [long, long], [long]],
        ['rambling', `the sprint ${long}`, ['ok'], ['noted']],
      ]),
      stats,
      options,
    );
    expect(s.get('busy')!).toBeCloseTo(s.get('quiet')!, 1);
    expect(s.get('rambling')!).toBeLessThan(s.get('quiet')! / 2);
  });

  it('counts neighbour context at its weight, never above the same words in the turn itself; a turn is counted once', () => {
    const docs = pool([
      ['own', 'the sprint ends soon', ['hello there'], ['fine']],
      ['neighbour', 'yes, on Friday', ['when does the sprint end'], ['fine']],
      ['none', 'nothing here', ['or here'], ['fine']],
    ]);
    const s = fieldedScores(['sprint'], docs, stats, options);
    expect(s.get('none')).toBe(0);
    expect(s.get('neighbour')!).toBeGreaterThan(0);
    expect(s.get('own')!).toBeGreaterThan(s.get('neighbour')!);
    const without = fieldedScores(['sprint'], docs, stats, { ...options, weights: { own: 1, before: 0, after: 0 } });
    expect(without.get('neighbour')).toBe(0);
    // A window naming the same turn twice (its text shared) scores as if named once per side.
    const shared = {
      texts: new Map([
        ['a', 'sprint'],
        ['b', 'the sprint'],
      ]),
      windows: [
        { id: 'a', before: ['b'], after: [] },
        { id: 'b', before: [], after: ['a'] },
      ],
    };
    const both = fieldedScores(['sprint'], shared, stats, options);
    expect(both.get('a')!).toBeGreaterThan(0);
    expect(both.get('b')!).toBeGreaterThan(0);
  });

  it('normalises the neighbour fields by bContext: at 0 their length no longer matters', () => {
    const docs = pool([
      ['short', 'yes', ['the sprint ends'], []],
      ['long', 'yes', [`the sprint ends ${long}`], []],
    ]);
    const full = fieldedScores(['sprint'], docs, stats, options);
    expect(full.get('long')!).toBeLessThan(full.get('short')!);
    const none = fieldedScores(['sprint'], docs, stats, { ...options, bContext: 0 });
    expect(none.get('long')!).toBeCloseTo(none.get('short')!, 12);
  });

  it('with a BM25+ floor, a long turn matching a term still scores at least idf · delta for it', () => {
    const docs = pool([
      ['long', `sprint ${long}${long}`, [], []],
      ['short', 'a b c', [], []],
    ]);
    const plain = fieldedScores(['sprint'], docs, stats, options).get('long')!;
    const floored = fieldedScores(['sprint'], docs, stats, { ...options, delta: 0.5 }).get('long')!;
    expect(floored - plain).toBeCloseTo(0.5 * Math.log((1000 - 5 + 0.5) / 5.5), 6);
  });

  it("relative mode: a short turn saying several of the question's words outranks a long reply repeating them, and a word in most turns still counts", () => {
    const words = {
      docs: 300,
      avgLength: 100,
      df: new Map([
        ['budget', 20],
        ['keywords', 12],
        ['resume', 250],
      ]),
    };
    const reply = `Here is how to use keywords in your resume. ${'Keywords matter for the resume, and a resume with keywords passes the scan. '.repeat(30)}`;
    const docs = pool([
      ['user', 'I found that keywords like budget oversight raise my resume score', [], []],
      ['reply', reply, [], []],
      ['other', `${'filler words about nothing at all '.repeat(20)}`, [], []],
    ]);
    const relative = { ...options, delta: 0.5, mode: 'relative' as const };
    const r = fieldedScores(['keywords', 'budget', 'resume'], docs, words, relative);
    expect(r.get('user')!).toBeGreaterThan(r.get('reply')!);
    expect(r.get('other')).toBe(0);
    // "resume" is in 250 of 300 turns: FTS5's idf drops it to ≈ 0, Lucene's keeps it.
    const common = fieldedScores(['resume'], docs, words, relative);
    expect(common.get('user')!).toBeGreaterThan(0.1);
    expect(fieldedScores(['resume'], docs, words, options).get('user')!).toBeLessThan(1e-5);
  });
});
