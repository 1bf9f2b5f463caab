import { describe, expect, it } from 'vitest';
import { forgetMatcher } from '../../src/core/explorer/forgetMatch';

const m = (query: string) => forgetMatcher(query)!;

describe('what Forget counts as mentioning a word', () => {
  it('matches whole words only, never inside a word', () => {
    const ana = m('Ana');
    for (const text of ['Nirvana', 'management', 'panade', 'analysis', 'Banana bread', 'Anastasia', 'ana1', 'Anas'])
      expect(ana.matches(text), text).toBe(false);
    for (const text of ['Ana', 'My sister Ana is allergic to peanuts', 'ana.', '(Ana)', "Ana's birthday", 'Ana-Maria', '“Ana”', 'with ana'])
      expect(ana.matches(text), text).toBe(true);
  });

  it('ignores case, in every script', () => {
    expect(m('ana').matches('ANA said so')).toBe(true);
    expect(m('ÄRGER').matches('viel Ärger heute')).toBe(true);
    expect(m('Ärger').matches('ÄRGERLICH')).toBe(false);
    expect(m('σοφία').matches('Η ΣΟΦΊΑ ήρθε')).toBe(true);
    expect(m('Москва').matches('в москве')).toBe(false); // a different word form is not a mention
    expect(m('Москва').matches('МОСКВА зимой')).toBe(true);
  });

  it('finds a word of a script without spaces inside a sentence', () => {
    expect(m('北京').matches('我下个月去北京出差')).toBe(true);
    expect(m('花生').matches('我对花生过敏')).toBe(true);
    expect(m('東京').matches('来週東京に行きます')).toBe(true);
    expect(m('ピーナッツ').matches('ピーナッツアレルギーがあります')).toBe(true);
    expect(m('부산').matches('다음 주에 부산에서 만나요')).toBe(true);
    expect(m('กรุงเทพ').matches('ฉันจะไปกรุงเทพพรุ่งนี้')).toBe(true);
    expect(m('北京').matches('我下个月去上海出差')).toBe(false);
    // Full-width Latin is NFKC-folded: still a whole-word match, and still not inside a word.
    expect(m('ana').matches('ＡＮＡ来了')).toBe(true);
    expect(m('ana').matches('Ｎｉｒｖａｎａ')).toBe(false);
  });

  it('keeps combining marks inside their word', () => {
    // Devanagari: the vowel sign after the word makes it a longer word.
    expect(m('राम').matches('राम आया')).toBe(true);
    expect(m('राम').matches('रामा आया')).toBe(false);
  });

  it('ORs the words of the query and leaves stop words out when others are given', () => {
    const q = m('about Ana and Porto');
    expect(q.words).toEqual(['ana', 'porto']);
    expect(q.matches('flying to Porto')).toBe(true);
    expect(q.matches('about the weather and more')).toBe(false);
    expect(forgetMatcher('?! …')).toBeNull();
  });

  it('redacts every mention and nothing else', () => {
    expect(m('Ana').redact('About: My sister Ana is allergic to')).toBe('About: My sister … is allergic to');
    expect(m('ana').redact('ANA, Nirvana and ana')).toBe('…, Nirvana and …');
    expect(m('北京').redact('北京之旅')).toBe('…之旅');
    expect(m('İstanbul').redact('Trip to İstanbul!')).toBe('Trip to …!');
  });
});

describe('the excerpt a Forget item shows', () => {
  it('shows the mention even when it is far into a long text', () => {
    const long = `${'The weather was fine and we walked a lot. '.repeat(10)}Then Ana called about dinner. ${'More words here. '.repeat(10)}`;
    const shown = m('Ana').excerpt(long, 200);
    expect(shown).toMatch(/Ana called/);
    expect(shown.length).toBeLessThanOrEqual(202);
    expect(m('Ana').excerpt('Ana is here', 200)).toBe('Ana is here');
  });
});
