/**
 * Date phrases in the user's language for the rule-based readers (date foresight, query
 * analysis). English goes through chrono-node exactly as before; when a text is in German,
 * French, Spanish, Japanese or Chinese, chrono's parser for that language runs as well, and a few
 * rules of our own fill what chrono 2.10.3 lacks: Korean (no chrono locale), relative weeks,
 * months and years in Chinese and Japanese (下个月, 来週の金曜日, 来月, 3日後), and Spanish
 * "la semana que viene" / "el mes pasado". Results of our rules carry a tag naming their unit
 * (DATE_UNIT_TAG + 'week' | 'month' | 'year'), since the English unit words are not in them.
 */
import * as chrono from 'chrono-node';
import { detectLanguage } from './language';

export const DATE_UNIT_TAG = 'recollect/unit:';
/** Tag of every result found by a non-English parser (chrono locale or our rules). */
export const LOCALE_TAG = 'recollect/locale';

type Unit = 'day' | 'week' | 'month' | 'year';

const WEEKDAY: Readonly<Record<string, number>> = {
  // Sunday = 0, as Date.getUTCDay.
  일: 0,
  월: 1,
  화: 2,
  수: 3,
  목: 4,
  금: 5,
  토: 6,
  日: 0,
  月: 1,
  火: 2,
  水: 3,
  木: 4,
  金: 5,
  土: 6,
};

const KOREAN_NUMBER: Readonly<Record<string, number>> = {
  한: 1,
  하루: 1,
  두: 2,
  이틀: 2,
  세: 3,
  사흘: 3,
  네: 4,
  나흘: 4,
  다섯: 5,
  여섯: 6,
  일곱: 7,
  여덟: 8,
  아홉: 9,
  열: 10,
};
const CJK_NUMBER: Readonly<Record<string, number>> = { 一: 1, 两: 2, 二: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9, 十: 10 };

function count(word: string): number {
  if (/^\d+$/.test(word)) return Number(word);
  return KOREAN_NUMBER[word] ?? CJK_NUMBER[word] ?? NaN;
}

/** A result `amount` units away from the reference, fixed to the day (or month/year), tagged with its unit. */
function relative(context: chrono.ParsingContext, unit: Unit, amount: number, weekday?: number): chrono.ParsingComponents {
  const ref = context.reference.instant;
  const offset = context.reference.timezoneOffset ?? 0;
  // The reference's local calendar day, as UTC fields.
  const local = new Date(ref.getTime() + offset * 60_000);
  let y = local.getUTCFullYear();
  let m = local.getUTCMonth();
  let d = local.getUTCDate();
  if (unit === 'day') d += amount;
  else if (unit === 'week') {
    d += 7 * amount;
    if (weekday !== undefined) {
      // Monday-based week of the shifted day, then the weekday inside it.
      const shifted = new Date(Date.UTC(y, m, d));
      const monday = d - ((shifted.getUTCDay() + 6) % 7);
      d = monday + ((weekday + 6) % 7);
    }
  } else if (unit === 'month') m += amount;
  else y += amount;
  let date = new Date(Date.UTC(y, m, d));
  if (unit === 'week' && weekday === undefined) date = new Date(Date.UTC(y, m, d - ((date.getUTCDay() + 6) % 7)));
  const c = context.createParsingComponents();
  c.assign('year', date.getUTCFullYear());
  if (unit === 'year') c.imply('month', 1);
  else c.assign('month', date.getUTCMonth() + 1);
  if (unit === 'day' || (unit === 'week' && weekday !== undefined)) c.assign('day', date.getUTCDate());
  // A week without a weekday is the Monday-to-Sunday week holding the shifted day (date is its Monday).
  else c.imply('day', unit === 'week' ? date.getUTCDate() : 1);
  if (unit === 'week' && weekday !== undefined) c.assign('weekday', weekday);
  c.imply('hour', 12);
  c.addTag(`${DATE_UNIT_TAG}${unit === 'week' && weekday !== undefined ? 'day' : unit}`);
  return c;
}

/** One rule: a pattern and how its match moves from the reference. */
interface Rule {
  readonly pattern: RegExp;
  readonly extract: (m: RegExpMatchArray) => { unit: Unit; amount: number; weekday?: number } | null;
}

const UNIT_WORDS: readonly [RegExp, Unit][] = [
  [/^(일|日|天|日間|day)$/, 'day'],
  [/^(주|주일|週|週間|周|星期|个星期|個星期|个礼拜)$/, 'week'],
  [/^(달|개월|か月|ヶ月|カ月|ケ月|个月|個月|月)$/, 'month'],
  [/^(년|年)$/, 'year'],
];
const unitOf = (w: string): Unit | null => UNIT_WORDS.find(([re]) => re.test(w))?.[1] ?? null;

const RULES: readonly Rule[] = [
  // Korean days.
  {
    pattern: /(그저께|그제|어제|오늘|내일|모레)/u,
    extract: (m) => ({ unit: 'day', amount: { 그저께: -2, 그제: -2, 어제: -1, 오늘: 0, 내일: 1, 모레: 2 }[m[1]!]! }),
  },
  // Korean weeks (with an optional weekday), months, years.
  {
    pattern: /(다음|지난|저번|이번|다다음)\s?주(?:\s?([일월화수목금토])요일)?/u,
    extract: (m) => ({
      unit: 'week',
      amount: { 다음: 1, 다다음: 2, 지난: -1, 저번: -1, 이번: 0 }[m[1]!]!,
      ...(m[2] ? { weekday: WEEKDAY[m[2]]! } : {}),
    }),
  },
  { pattern: /(다음|지난|저번|이번)\s?달/u, extract: (m) => ({ unit: 'month', amount: { 다음: 1, 지난: -1, 저번: -1, 이번: 0 }[m[1]!]! }) },
  {
    pattern: /(내년|작년|올해|재작년|내후년)/u,
    extract: (m) => ({ unit: 'year', amount: { 내년: 1, 작년: -1, 올해: 0, 재작년: -2, 내후년: 2 }[m[1]!]! }),
  },
  // Korean "3일 후", "두 달 뒤", "일주일 전".
  {
    pattern: /(\d+|한|하루|두|이틀|세|사흘|네|나흘|다섯|여섯|일곱|여덟|아홉|열|일)\s?(일|주일|주|달|개월|년)\s?(후|뒤|전)/u,
    extract: (m) => {
      const n = m[1] === '일' && m[2] === '주일' ? 1 : count(m[1]!);
      const unit = unitOf(m[2]!);
      return Number.isFinite(n) && unit ? { unit, amount: m[3] === '전' ? -n : n } : null;
    },
  },
  // Chinese relative weeks/months/years chrono lacks (下周五 it has; 下周 alone, 下个月, 明年 it does not).
  {
    pattern: /(下下|下|上上|上|这|這|本)(个|個)?月/u,
    extract: (m) => ({ unit: 'month', amount: { 下下: 2, 下: 1, 上上: -2, 上: -1, 这: 0, 這: 0, 本: 0 }[m[1]!]! }),
  },
  {
    pattern: /(下|上|这|這|本)(周|週|星期|个星期|個星期|礼拜|禮拜)(?![一二三四五六日天])/u,
    extract: (m) => ({ unit: 'week', amount: { 下: 1, 上: -1, 这: 0, 這: 0, 本: 0 }[m[1]!]! }),
  },
  {
    pattern: /(明年|去年|今年|后年|後年|前年)/u,
    extract: (m) => ({ unit: 'year', amount: { 明年: 1, 去年: -1, 今年: 0, 后年: 2, 後年: 2, 前年: -2 }[m[1]!]! }),
  },
  {
    pattern: /(\d+|[一两二三四五六七八九十])\s?(个月|個月|个星期|個星期|星期|周|年)(后|後|以后|以後|前|之前)/u,
    extract: (m) => {
      const n = count(m[1]!);
      const unit = unitOf(m[2]!);
      return Number.isFinite(n) && unit ? { unit, amount: /前/.test(m[3]!) ? -n : n } : null;
    },
  },
  // Japanese.
  {
    pattern: /(再来週|来週|先週|今週)(?:の?([日月火水木金土])曜日?)?/u,
    extract: (m) => ({
      unit: 'week',
      amount: { 再来週: 2, 来週: 1, 先週: -1, 今週: 0 }[m[1]!]!,
      ...(m[2] ? { weekday: WEEKDAY[m[2]]! } : {}),
    }),
  },
  { pattern: /(再来月|来月|先月|今月)/u, extract: (m) => ({ unit: 'month', amount: { 再来月: 2, 来月: 1, 先月: -1, 今月: 0 }[m[1]!]! }) },
  { pattern: /(再来年|来年|昨年|今年)/u, extract: (m) => ({ unit: 'year', amount: { 再来年: 2, 来年: 1, 昨年: -1, 今年: 0 }[m[1]!]! }) },
  { pattern: /(明後日|あさって|一昨日|おととい)/u, extract: (m) => ({ unit: 'day', amount: /明後日|あさって/.test(m[1]!) ? 2 : -2 }) },
  {
    pattern: /(\d+)\s?(日|週間|か月|ヶ月|カ月|ケ月|年)(後|前)/u,
    extract: (m) => {
      const unit = unitOf(m[2]!);
      return unit ? { unit, amount: m[3] === '前' ? -Number(m[1]) : Number(m[1]) } : null;
    },
  },
  // Spanish forms chrono's es parser misses.
  {
    pattern:
      /\b(?:la\s+)?(semana|mes|año)\s+(que\s+viene|pr[oó]xim[oa]|pasad[oa])\b|\b(?:la\s+|el\s+)?pr[oó]xim[oa]\s+(semana|mes|año)\b/iu,
    extract: (m) => {
      const word = (m[1] ?? m[3] ?? '').toLowerCase();
      const unit: Unit = word === 'semana' ? 'week' : word === 'mes' ? 'month' : 'year';
      return { unit, amount: /pasad/i.test(m[2] ?? '') ? -1 : 1 };
    },
  },
];

const LOCAL = new chrono.Chrono({
  parsers: RULES.map((rule) => ({
    pattern: () => rule.pattern,
    extract: (context: chrono.ParsingContext, match: RegExpMatchArray) => {
      const r = rule.extract(match);
      return r ? relative(context, r.unit, r.amount, r.weekday) : null;
    },
  })),
  refiners: [],
});

const LOCALE_PARSERS: Partial<Record<string, chrono.Chrono>> = {
  de: chrono.de.casual,
  fr: chrono.fr.casual,
  es: chrono.es.casual,
  ja: chrono.ja.casual,
  zh: chrono.zh.hans.casual,
};

/** Languages whose relative dates are understood: chrono's English, plus these. */
export const DATE_LANGUAGES = ['en', 'de', 'fr', 'es', 'ja', 'zh', 'ko'] as const;

/**
 * Every date phrase of `text`: chrono's English results first (unchanged), then those of the
 * text's own language (chrono locale, then our rules) that do not overlap an earlier one, in text
 * order.
 */
export function parseDates(text: string, ref: chrono.ParsingReference, option?: chrono.ParsingOption): chrono.ParsedResult[] {
  const out = chrono.parse(text, ref, option);
  const language = detectLanguage(text);
  if (!language || language === 'en') return out;
  const extra: chrono.ParsedResult[] = [];
  const locale = LOCALE_PARSERS[language];
  if (locale) extra.push(...locale.parse(text, ref, option));
  if (language === 'ko' || language === 'zh' || language === 'ja' || language === 'es') extra.push(...LOCAL.parse(text, ref, option));
  const taken = (r: chrono.ParsedResult) => out.some((o) => r.index < o.index + o.text.length && o.index < r.index + r.text.length);
  // Longer matches first, so "来週の金曜日" (ours) wins over chrono's bare "金曜日".
  for (const r of extra.sort((a, b) => b.text.length - a.text.length)) {
    if (taken(r)) continue;
    (r as chrono.ParsedResult & { addTag(tag: string): unknown }).addTag(LOCALE_TAG);
    out.push(r);
  }
  return out.sort((a, b) => a.index - b.index);
}

/** Found by a non-English parser: such phrases are relative or dated by construction. */
export function isLocaleResult(r: chrono.ParsedResult): boolean {
  return r.tags().has(LOCALE_TAG);
}

/** The unit a result of our rules names ('week' | 'month' | 'year' | 'day'), or null for chrono's own. */
export function dateUnit(r: chrono.ParsedResult): Unit | null {
  for (const tag of r.tags()) if (tag.startsWith(DATE_UNIT_TAG)) return tag.slice(DATE_UNIT_TAG.length) as Unit;
  return null;
}
