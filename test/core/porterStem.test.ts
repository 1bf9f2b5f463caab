import { describe, expect, it } from 'vitest';
import { porterStem } from '../../src/core/recall/porterStem';
import { openMemoryDatabase } from '../../src/storage/openNodeDatabase';

/** A user's and an assistant's turns of the length and wording the recall benches hold. */
const CHAT = `I've been trying to mix up my routine lately and recently started a yoga class on Wednesdays,
which has been really helpful in stretching out my muscles after a long day. I attend Zumba classes
on Tuesdays and Thursdays at 6:30 pm, and a weightlifting class on Saturdays. Last weekend I baked
sourdough twice, and I'm baking cookies for the neighbours' party; my sister bakes every Sunday.
Could you suggest a few cuisines to explore? I learned how to make chicken tikka masala in a class on
Indian cuisine, tried Korean bibimbap from the cooking class's online recipe library, and attended a
workshop on vegan cooking. Here are some generalizations and conditional relational formalities:
the operator's effectiveness, hopefulness, callousness, sensibilities, electricity, allowances,
replacements, adjustments, dependencies, adoptions, activations, communism, triplicates, formalized
rationalizations, controllers, oscillators, agreed, plastered, motoring, conflated, troubled, sized,
hopping, tanned, falling, hissing, fizzed, failing, filing, happy, sky, ponies, ties, caresses, feed,
days, daily, says, saying, cries, crying, flying, dying, studies, studying, played, replies, anybody.`;

describe('porterStem', () => {
  it("gives Porter's own examples", () => {
    const cases: Record<string, string> = {
      caresses: 'caress',
      ponies: 'poni',
      ties: 'ti',
      cats: 'cat',
      agreed: 'agre',
      plastered: 'plaster',
      bled: 'bled',
      motoring: 'motor',
      sing: 'sing',
      conflated: 'conflat',
      hopping: 'hop',
      falling: 'fall',
      filing: 'file',
      happy: 'happi',
      relational: 'relat',
      conditional: 'condit',
      rational: 'ration',
      digitizer: 'digit',
      hopefulness: 'hope',
      sensibiliti: 'sensibl',
      triplicate: 'triplic',
      formative: 'form',
      goodness: 'good',
      replacement: 'replac',
      adoption: 'adopt',
      effective: 'effect',
      probate: 'probat',
      rate: 'rate',
      controll: 'control',
      roll: 'roll',
    };
    for (const [word, stem] of Object.entries(cases)) expect([word, porterStem(word)]).toEqual([word, stem]);
  });

  it('conflates the forms a question and a turn use for one word', () => {
    expect(new Set(['class', 'classes'].map(porterStem)).size).toBe(1);
    expect(new Set(['bake', 'baked', 'baking', 'bakes'].map(porterStem)).size).toBe(1);
    expect(new Set(['day', 'days'].map(porterStem)).size).toBe(1);
    expect(new Set(['cuisine', 'cuisines'].map(porterStem)).size).toBe(1);
  });

  it('keeps short words, long words and words outside a–z as they are', () => {
    expect(porterStem('is')).toBe('is');
    expect(porterStem('café')).toBe('café');
    expect(porterStem('mp3s')).toBe('mp3s');
    expect(porterStem('a'.repeat(65) + 'ing')).toBe('a'.repeat(65) + 'ing');
  });

  it("stems every word as the full-text index's porter tokenizer stores it", async () => {
    const words = [...new Set(CHAT.toLowerCase().match(/[a-z]+/g)!)];
    expect(words.length).toBeGreaterThan(120);
    const db = await openMemoryDatabase({ migrateSchema: false });
    await db.query(`CREATE VIRTUAL TABLE t USING fts5(w, tokenize = 'porter unicode61 remove_diacritics 2')`);
    await db.query('CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)');
    for (const [i, w] of words.entries()) await db.query('INSERT INTO t(rowid, w) VALUES (?, ?)', [i + 1, w]);
    const rows = await db.query<{ term: string; doc: number }>('SELECT term, doc FROM v ORDER BY doc');
    await db.close();
    expect(rows.length).toBe(words.length);
    const differ = rows
      .filter((r) => porterStem(words[Number(r.doc) - 1]!) !== r.term)
      .map((r) => `${words[Number(r.doc) - 1]} → ${r.term}`);
    expect(differ).toEqual([]);
  });
});
