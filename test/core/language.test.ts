import { describe, expect, it } from 'vitest';
import {
  composerLanguageNotice,
  coversLanguage,
  detectLanguage,
  draftLanguage,
  dominantLanguage,
  languageNotice,
} from '../../src/core/base/language';

describe('language detection', () => {
  it('tells languages apart by script, and Latin ones by function words', () => {
    const cases: [string, string][] = [
      ['我下个月要去北京出差。', 'zh'],
      ['来週、東京で友達と会います。', 'ja'],
      ['다음 주에 부산에 가요.', 'ko'],
      ['พรุ่งนี้ฉันจะไปเชียงใหม่', 'th'],
      ['Мы поедем на дачу.', 'ru'],
      ['سأسافر إلى القاهرة غدا', 'ar'],
      ['I adopted a puppy and we named it Biscuit.', 'en'],
      ['Ich habe einen Hund und wir wohnen in Berlin.', 'de'],
      ['Je suis allé au marché avec ma sœur.', 'fr'],
      ['Mi hermana y yo vamos a la playa en verano.', 'es'],
    ];
    for (const [text, lang] of cases) expect(detectLanguage(text), text).toBe(lang);
    expect(detectLanguage('1234 !!')).toBeNull();
  });

  it('finds the language most of the text is in, by length', () => {
    expect(dominantLanguage(['我昨天去了北京，吃了烤鸭，还买了很多花生糖。', 'ok', '今天天气很好，我们去公园散步吧。'])).toMatchObject({
      language: 'zh',
    });
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

describe("the composer's language notice", () => {
  const glove = { id: 'glove', label: 'GloVe', kind: 'embedder', languageCodes: ['en'], available: true };
  const e5 = { id: 'e5', label: 'Multilingual E5', kind: 'embedder', languageCodes: ['multilingual'], available: false };
  const e5Local = { ...e5, id: 'e5-local', available: true };
  const none = new Set<string>();
  const chinese = '我最近开始学钢琴，每天晚上练习半个小时。周末我会去老师家上课，她说我进步很快。';

  it('waits for enough text to tell the language: a few letters of a script, a few words of Latin text', () => {
    expect(draftLanguage('我')).toBeNull();
    expect(draftLanguage(chinese)).toBe('zh');
    expect(draftLanguage('I am')).toBeNull();
    expect(draftLanguage('I started piano lessons and practise every evening.')).toBe('en');
    expect(draftLanguage('Ich habe seit Montag einen neuen Hund und wir gehen jeden Tag spazieren.')).toBe('de');
    expect(draftLanguage('```ts\nconst x = 1;\n```')).toBeNull();
  });

  it('offers the model that covers the language, a downloaded one first', () => {
    expect(composerLanguageNotice('zh', glove, [glove, e5], none)).toEqual({ language: 'zh', name: 'Chinese', model: e5 });
    expect(composerLanguageNotice('zh', glove, [glove, e5, e5Local], none)?.model).toBe(e5Local);
    expect(composerLanguageNotice('zh', glove, [glove], none)).toEqual({ language: 'zh', name: 'Chinese', model: null });
  });

  it('is not shown for a covered language, a covering active model, a dismissed language, or before a language is known', () => {
    expect(composerLanguageNotice('en', glove, [glove, e5], none)).toBeNull();
    expect(composerLanguageNotice('zh', e5, [glove, e5], none)).toBeNull();
    expect(composerLanguageNotice('zh', glove, [glove, e5], new Set(['zh']))).toBeNull();
    expect(composerLanguageNotice('ja', glove, [glove, e5], new Set(['zh']))?.name).toBe('Japanese');
    expect(composerLanguageNotice(null, glove, [glove, e5], none)).toBeNull();
    expect(composerLanguageNotice('zh', undefined, [glove, e5], none)).toBeNull();
  });
});
