import { describe, expect, it } from 'vitest';
import { ftsOperand, hasNoSpaceScript, lexicalText, queryUnits, runBigrams } from '../../src/core/base/lexicalUnits';
import { letterWords, terms } from '../../src/core/base/text';
import { highlightSnippet } from '../../src/core/base/highlight';
import { HIGHLIGHT_END, HIGHLIGHT_START } from '../../src/core/base/types';
import { focusClip, focusTerms } from '../../src/core/recall/snippet';
import { matchReasons, queryTerms } from '../../src/core/explorer/explorerText';

describe('lexical units of scripts without spaces', () => {
  it('rewrites a Chinese run into its bigrams and its last character', () => {
    expect(lexicalText('我去北京了。').trim().split(/\s+/)).toEqual(['我去', '去北', '北京', '京了', '了', '。']);
  });

  it('leaves English, German, Russian and Arabic text as it is', () => {
    for (const s of [
      'I adopted a puppy named Biscuit.',
      'Nächsten Freitag fahren wir nach München.',
      'Мы поедем в Москву.',
      'سأسافر إلى القاهرة غدا',
    ]) {
      expect(lexicalText(s)).toBe(s.normalize('NFKC'));
      expect(hasNoSpaceScript(s)).toBe(false);
    }
  });

  it('splits Japanese kana and kanji, Korean syllables and Thai letters with their marks', () => {
    expect(runBigrams('ピーナッツ')).toEqual(['ピー', 'ーナ', 'ナッ', 'ッツ']);
    expect(runBigrams('학교에서')).toEqual(['학교', '교에', '에서']);
    // ที่ is one letter with two marks: a bigram never separates them.
    expect(runBigrams('ที่นี่')).toEqual(['ที่นี่']);
    expect(runBigrams('ร้านนี้')).toEqual(['ร้า', 'าน', 'นนี้']);
  });

  it('normalises width (NFKC) so half-width katakana and full-width letters match', () => {
    expect(lexicalText('ｶﾀｶﾅ ＡＢＣ')).toBe(lexicalText('カタカナ ABC'));
  });

  it('gives query words the same units: a word inside a sentence is found', () => {
    const indexed = new Set(lexicalText('我昨天在北京吃了花生。').split(/\s+/));
    for (const unit of terms('北京 花生')) expect(indexed.has(unit)).toBe(true);
    expect(terms('東京へ行く')).toEqual(['東京', '京へ', 'へ行', '行く']);
    expect(terms('Tokyo 東京')).toEqual(['tokyo', '東京']);
    expect(letterWords('北京大学')).toEqual(['北京', '京大', '大学']);
    expect(queryUnits('abc北京')).toEqual(['abc', '北京']);
  });

  it('matches a lone character as an FTS prefix and quotes everything else', () => {
    expect(ftsOperand('猫')).toBe('"猫"*');
    expect(ftsOperand('北京')).toBe('"北京"');
    expect(ftsOperand('say "hi"')).toBe('"say ""hi"""');
    expect(ftsOperand('a')).toBe('"a"');
  });
});

describe('search snippets', () => {
  const mark = (s: string) => s.replaceAll(HIGHLIGHT_START, '[').replaceAll(HIGHLIGHT_END, ']');

  it('marks Chinese words, Thai words with their marks, and stemmed English words', () => {
    expect(mark(highlightSnippet('我下个月要去北京出差，顺便给妈妈买一些花生糖。', terms('北京 糖')))).toBe(
      '我下个月要去[北京]出差，顺便给妈妈买一些花生[糖]。',
    );
    expect(mark(highlightSnippet('พรุ่งนี้ฉันจะไปกินข้าวที่ร้านอาหาร', terms('ร้านอาหาร')))).toBe('พรุ่งนี้ฉันจะไปกินข้าวที่[ร้านอาหาร]');
    expect(mark(highlightSnippet('We adopted two puppies last spring.', ['puppy']))).toBe('We adopted two [puppies] last spring.');
  });

  it('cuts a long turn around its densest matches', () => {
    const long = `${'filler words here. '.repeat(30)}The zebra crossed the river at dawn. ${'more filler text. '.repeat(30)}`;
    const s = mark(highlightSnippet(long, ['zebra', 'river']));
    expect(s).toMatch(/^….*\[zebra\] crossed the \[river\].*…$/);
    expect(s.split(' ').length).toBeLessThanOrEqual(26);
  });
});

describe('answer excerpts and match reasons in scripts without spaces', () => {
  it("cuts a long Chinese turn around the question's words, not from its head", () => {
    const long = `${'今天天气很好，我们在公园里散步，看到了很多花。'.repeat(40)}我下个月要去北京出差。${'晚上我们一起吃了饭，聊了很久。'.repeat(20)}`;
    const out = focusClip(long, 200, focusTerms('我什么时候去北京出差？'));
    expect(out).toContain('北京出差');
    expect(out.startsWith('…')).toBe(true);
  });

  it('says which field a Chinese word matched', () => {
    expect(matchReasons(queryTerms('北京'), { text: '我下个月要去北京出差。', speaker: 'You' })).toEqual(['“北京” in the text']);
  });
});
