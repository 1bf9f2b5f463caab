/**
 * A small language detector: by script first (Han without kana is Chinese, kana is Japanese,
 * Hangul Korean, Thai, Cyrillic, Arabic…), then, for Latin text, by votes of frequent function
 * words (en, de, fr, es, it, pt, nl). Enough to pick date rules for a sentence and to tell which
 * language most of a person's turns are in; not a general classifier.
 */

export type LanguageCode =
  'en' | 'de' | 'fr' | 'es' | 'it' | 'pt' | 'nl' | 'zh' | 'ja' | 'ko' | 'th' | 'ru' | 'ar' | 'he' | 'el' | 'hi' | 'lo' | 'km' | 'my';

export const LANGUAGE_NAMES: Readonly<Record<LanguageCode, string>> = {
  en: 'English',
  de: 'German',
  fr: 'French',
  es: 'Spanish',
  it: 'Italian',
  pt: 'Portuguese',
  nl: 'Dutch',
  zh: 'Chinese',
  ja: 'Japanese',
  ko: 'Korean',
  th: 'Thai',
  ru: 'Russian',
  ar: 'Arabic',
  he: 'Hebrew',
  el: 'Greek',
  hi: 'Hindi',
  lo: 'Lao',
  km: 'Khmer',
  my: 'Burmese',
};

const SCRIPTS: readonly [RegExp, LanguageCode][] = [
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/gu, 'ja'],
  [/\p{Script=Hangul}/gu, 'ko'],
  [/\p{Script=Han}/gu, 'zh'],
  [/\p{Script=Thai}/gu, 'th'],
  [/\p{Script=Lao}/gu, 'lo'],
  [/\p{Script=Khmer}/gu, 'km'],
  [/\p{Script=Myanmar}/gu, 'my'],
  [/\p{Script=Cyrillic}/gu, 'ru'],
  [/\p{Script=Arabic}/gu, 'ar'],
  [/\p{Script=Hebrew}/gu, 'he'],
  [/\p{Script=Greek}/gu, 'el'],
  [/\p{Script=Devanagari}/gu, 'hi'],
];

const FUNCTION_WORDS: Readonly<Record<'en' | 'de' | 'fr' | 'es' | 'it' | 'pt' | 'nl', ReadonlySet<string>>> = {
  en: new Set('the and is are was were you i my we it of to in that this have with for not be on'.split(' ')),
  de: new Set(
    'der die das und ist nicht ich du wir sie mit ein eine den dem zu auf für auch sind war mein nach nächsten nächste letzten morgen gestern woche heute'.split(
      ' ',
    ),
  ),
  fr: new Set(
    'le la les et est je tu nous vous une des du pas pour dans que qui sur avec mon ma au aux suis vais demain hier semaine prochaine prochain dernier aujourd'.split(
      ' ',
    ),
  ),
  es: new Set(
    'el la los las y es que de en un una por para con mi yo no se del al está muy pero voy fui hoy mañana ayer semana próxima próximo pasado viene año'.split(
      ' ',
    ),
  ),
  it: new Set('il lo gli e è che di un una per con non sono mio mia della del io anche'.split(' ')),
  pt: new Set('o os as e é que de em um uma para com não meu minha do da eu você muito'.split(' ')),
  nl: new Set('de het een en is niet ik je wij met van op voor dat zijn mijn ook naar'.split(' ')),
};

/**
 * The language of `text`, or null when it has no letters. Scripts decide first: a text is in a
 * non-Latin language when that script holds at least a third of its letters (kana beats Han, so
 * Japanese with kanji is Japanese).
 */
export function detectLanguage(text: string): LanguageCode | null {
  const letters = (text.match(/\p{L}/gu) ?? []).length;
  if (letters === 0) return null;
  const han = (text.match(/\p{Script=Han}/gu) ?? []).length;
  for (const [re, code] of SCRIPTS) {
    const n = (text.match(re) ?? []).length;
    // Japanese: any real amount of kana next to kanji.
    if (code === 'ja' ? n >= Math.max(1, (n + han) * 0.1) && n + han >= letters / 3 : n >= letters / 3) return code;
  }
  const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  let best: LanguageCode = 'en';
  let bestVotes = 0;
  for (const [code, set] of Object.entries(FUNCTION_WORDS) as [LanguageCode, ReadonlySet<string>][]) {
    const votes = words.reduce((n, w) => n + (set.has(w) ? 1 : 0), 0);
    if (votes > bestVotes) {
      best = code;
      bestVotes = votes;
    }
  }
  return best;
}

/**
 * The language most of `texts` are written in, weighted by length, with its share (0–1); null
 * when they hold no letters.
 */
export function dominantLanguage(texts: readonly string[]): { language: LanguageCode; share: number } | null {
  const weight = new Map<LanguageCode, number>();
  let total = 0;
  for (const t of texts) {
    const lang = detectLanguage(t);
    if (!lang) continue;
    const w = Math.min(t.length, 2_000);
    weight.set(lang, (weight.get(lang) ?? 0) + w);
    total += w;
  }
  if (total === 0) return null;
  const [language, w] = [...weight.entries()].sort((a, b) => b[1] - a[1])[0]!;
  return { language, share: w / total };
}

/** What the user writes in, from their recent turns (engine.conversations.writingLanguage). */
export interface WritingLanguage {
  readonly language: LanguageCode;
  readonly name: string;
  /** Share of the recent text (by length) in that language, 0–1. */
  readonly share: number;
  readonly turns: number;
}

/** A model as the notice needs it: the languages it covers, null when its catalog entry does not say. */
export interface ModelLanguages {
  readonly id: string;
  readonly label: string;
  readonly kind: string;
  readonly languageCodes?: readonly string[] | null;
}

/** Most of the text must be in the language before the notice shows. */
export const LANGUAGE_NOTICE_SHARE = 0.5;

/**
 * Whether `model` embeds `language` well. A catalog entry without a languages list is taken as
 * English-only (every embedder without one is an English model); "multilingual" or "*" covers all.
 */
export function coversLanguage(model: ModelLanguages, language: LanguageCode): boolean {
  const langs = model.languageCodes ?? ['en'];
  return langs.some((l) => l === language || l === 'multilingual' || l === '*');
}

/**
 * The Models panel's notice: when most recent text is in a language the active embedder does not
 * cover, which catalog embedders would (possibly none yet). Null when no notice is due.
 */
export function languageNotice(
  writing: WritingLanguage | null,
  active: ModelLanguages | undefined,
  models: readonly ModelLanguages[],
): { readonly language: string; readonly suggestions: readonly ModelLanguages[] } | null {
  if (!writing || !active || writing.share < LANGUAGE_NOTICE_SHARE) return null;
  if (coversLanguage(active, writing.language)) return null;
  const suggestions = models.filter(
    (m) => m.kind === 'embedder' && m.id !== active.id && m.languageCodes != null && coversLanguage(m, writing.language),
  );
  return { language: writing.name, suggestions };
}

/** Letters of a non-Latin script, or words of a Latin-script text, before a draft's language counts (a few keystrokes decide nothing). */
const DRAFT_MIN_SCRIPT_LETTERS = 4;
const DRAFT_MIN_LATIN_WORDS = 6;

/**
 * The language of what is being typed, or null until there is enough of it to tell: a script
 * language after a few of its letters, a Latin-script language after a few words.
 */
export function draftLanguage(text: string): LanguageCode | null {
  const language = detectLanguage(text);
  if (!language) return null;
  const latin =
    language === 'en' ||
    language === 'de' ||
    language === 'fr' ||
    language === 'es' ||
    language === 'it' ||
    language === 'pt' ||
    language === 'nl';
  if (latin) return (text.match(/\p{L}+/gu) ?? []).length >= DRAFT_MIN_LATIN_WORDS ? language : null;
  return (text.match(/\p{L}/gu) ?? []).length >= DRAFT_MIN_SCRIPT_LETTERS ? language : null;
}

/** What the composer's notice needs of a catalog model. */
export interface DownloadableModel extends ModelLanguages {
  /** Loadable without the network (bundled or downloaded). */
  readonly available: boolean;
}

/**
 * The composer's notice: the person is writing in `language`, which the active embedder does not
 * cover; `model` is the catalog embedder that does (a downloaded one first), null when none does.
 * Null when no notice is due: nothing detected yet, the active model covers it, or the person
 * dismissed the notice for that language.
 */
export function composerLanguageNotice<M extends DownloadableModel>(
  language: LanguageCode | null,
  active: ModelLanguages | undefined,
  models: readonly M[],
  dismissed: ReadonlySet<string>,
): { readonly language: LanguageCode; readonly name: string; readonly model: M | null } | null {
  if (!language || !active || dismissed.has(language) || coversLanguage(active, language)) return null;
  const covering = models.filter(
    (m) => m.kind === 'embedder' && m.id !== active.id && m.languageCodes != null && coversLanguage(m, language),
  );
  const model = covering.find((m) => m.available) ?? covering[0] ?? null;
  return { language, name: LANGUAGE_NAMES[language], model };
}
