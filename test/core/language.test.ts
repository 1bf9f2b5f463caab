import { describe, expect, it } from 'vitest';
import { coversLanguage, detectLanguage, dominantLanguage, languageNotice } from '../../src/core/base/language';

describe('language detection', () => {
  it('tells languages apart by script, and Latin ones by function words', () => {
    const cases: [string, string][] = [
      ['我下个月要去北京出差。', 'zh'], ['来週、東京で友達と会います。', 'ja'], ['다음 주에 부산에 가요.', 'ko'],
      ['พรุ่งนี้ฉันจะไปเชียงใหม่', 'th'], ['Мы поедем на дачу.', 'ru'], ['سأسافر إلى القاهرة غدا', 'ar'],
      ['I adopted a puppy and we named it Biscuit.', 'en'], ['Ich habe einen Hund und wir wohnen in Berlin.', 'de'],
      ['Je suis allé au marché avec ma sœur.', 'fr'], ['Mi hermana y yo vamos a la playa en verano.', 'es'],
    ];
    for (const [text, lang] of cases) expect(detectLanguage(text), text).toBe(lang);
    expect(detectLanguage('1234 !!')).toBeNull();
  });

  it('finds the language most of the text is in, by length', () => {
    expect(dominantLanguage(['我昨天去了北京，吃了烤鸭，还买了很多花生糖。', 'ok', '今天天气很好，我们去公园散步吧。'])).toMatchObject({ language: 'zh' });
    expect(dominantLanguage([])).toBeNull();
  });
});

describe('the Models panel language notice', () => {
  const glove = { id: 'glove', label: 'GloVe', kind: 'embedder' };
  const e5 = { id: 'e5', label: 'Multilingual E5', kind: 'embedder', languageCodes: ['multilingual'] };
  const zh = { language: 'zh' as const, name: 'Chinese', share: 0.9, turns: 40 };

  it('shows when most text is in a language the active model does not cover, suggesting models that do', () => {
    expect(languageNotice(zh, glove, [glove, e5])).toEqual({ language: 'Chinese', suggestions: [e5] });
    expect(languageNotice(zh, glove, [glove])).toEqual({ language: 'Chinese', suggestions: [] });
  });

  it('stays quiet for English, for a covering model, and for mixed writing', () => {
    expect(languageNotice({ ...zh, language: 'en', name: 'English' }, glove, [glove, e5])).toBeNull();
    expect(languageNotice(zh, e5, [glove, e5])).toBeNull();
    expect(languageNotice({ ...zh, share: 0.4 }, glove, [glove, e5])).toBeNull();
    expect(coversLanguage({ ...glove, languageCodes: null }, 'en')).toBe(true);
  });
});
