/**
 * Query analysis for retrieval, local and deterministic: the content terms of a question
 * (question words and stop words dropped), the known speakers it mentions, and its temporal side —
 * whether it asks for a time ("When did…") and which absolute date ranges it names, resolved
 * against the time the question is asked with chrono-node ("last May", "in 2022", "yesterday").
 *
 * Dates are calendar days of the user's time zone (`timeZone`, UTC by default, as the benchmarks
 * use): "yesterday" asked at 20:00 in Los Angeles is that Los Angeles day. Times are stored as UTC
 * milliseconds.
 */
import { dateUnit, isLocaleResult, parseDates } from '../base/localDates';
import { STOP_WORDS, terms as lowerTerms } from '../base/text';
import { DEFAULT_TIME_ZONE, offsetMinutes, startOfDay } from '../base/timeZone';

export type QuestionType = 'when' | 'who' | 'where' | 'what' | 'which' | 'how' | 'why' | 'yes-no' | 'other';

export interface DateRange {
  /** Inclusive start, ms since epoch (UTC). */
  readonly start: number;
  /** Exclusive end, ms since epoch (UTC). */
  readonly end: number;
  /** The words that named it, e.g. "in May 2023". */
  readonly text: string;
}

export interface QueryAnalysis {
  readonly text: string;
  /** Lower-case content terms in question order, without duplicates, stop words or speaker names. */
  readonly terms: readonly string[];
  /** Known speakers named in the question (as given in `speakers`, in question order). */
  readonly speakers: readonly string[];
  readonly questionType: QuestionType;
  /**
   * Whose words the question is about, for a person talking with an assistant: 'assistant' when it
   * asks what "you" said, recommended, listed … (or points back to "our previous conversation");
   * 'user' when it speaks in the first person about itself ("I", "my"); null otherwise (LoCoMo's
   * third-person questions about named people).
   */
  readonly about: 'user' | 'assistant' | null;
  /** The question asks for advice now ("can you suggest…", "any tips?"): the user's stated preferences matter. */
  readonly asksForAdvice: boolean;
  /**
   * The question asks the assistant to do something now ("could you show me how…", "how should I…",
   * "which libraries are used…"): a wider net than asksForAdvice, for the user's standing
   * instructions ("always include version numbers when I ask about libraries").
   */
  readonly asksForHelp: boolean;
  /** The question asks for the current or latest state ("currently", "most recently", "so far"). */
  readonly asksForCurrent: boolean;
  /**
   * The question asks about many occasions over time ("throughout our conversations", "in order",
   * "summarise how … developed", "how many … in total"): its evidence is spread over sessions.
   */
  readonly asksAcrossTime: boolean;
  readonly temporal: {
    /** The question asks for a time or date ("when", "what year", "how long ago"). */
    readonly asksForTime: boolean;
    /** Absolute ranges the question names; empty when it names none. */
    readonly ranges: readonly DateRange[];
  };
}

export interface AnalyzeOptions {
  /** Names of the people in the conversation(s) searched. */
  readonly speakers?: readonly string[];
  /** When the question is asked (ms since epoch); relative dates resolve against it. */
  readonly now?: number;
  /** The asker's IANA time zone: the calendar the dates are read in (default UTC). */
  readonly timeZone?: string;
}

/** Re-exported for the modules that rank with it. */
export { STOP_WORDS };

const QUESTION_TYPES: readonly [RegExp, QuestionType][] = [
  [/^\s*(when|what\s+(time|date|day|year|month|week)|which\s+(year|month|day|week|date)|how\s+long\s+ago)\b/i, 'when'],
  [/^\s*(who|whom|whose)\b/i, 'who'],
  [/^\s*where\b/i, 'where'],
  [/^\s*which\b/i, 'which'],
  [/^\s*what\b/i, 'what'],
  [/^\s*how\b/i, 'how'],
  [/^\s*why\b/i, 'why'],
  [/^\s*(is|are|was|were|do|does|did|has|have|had|can|could|will|would|should)\b/i, 'yes-no'],
];

/** Asking for a time anywhere in the question, not only at its start ("…, and when?"). */
const ASKS_FOR_TIME =
  /\b(when|what\s+(time|date|day|year|month)|which\s+(year|month|day|date)|how\s+long\s+ago|how\s+many\s+(days|weeks|months|years)|what\s+period)\b/i;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Speakers named in `text`, by full name or by first name ("Caroline's" counts). */
export function findSpeakers(text: string, speakers: readonly string[]): string[] {
  const hits: { name: string; at: number }[] = [];
  for (const name of speakers) {
    const forms = new Set([name.trim(), name.trim().split(/\s+/)[0] ?? '']);
    let at = -1;
    for (const form of forms) {
      if (form.length < 2) continue;
      const m = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(form)}(?![\\p{L}\\p{N}])`, 'iu').exec(text);
      if (m && (at < 0 || m.index < at)) at = m.index;
    }
    if (at >= 0) hits.push({ name, at });
  }
  return hits.sort((a, b) => a.at - b.at).map((h) => h.name);
}

function questionType(text: string): QuestionType {
  for (const [re, type] of QUESTION_TYPES) if (re.test(text)) return type;
  return 'other';
}

/**
 * Date ranges named in `text`, resolved relative to `now`. The granularity follows what the
 * text fixes: a day ("on 8 May 2023", "yesterday"), a month ("in May"), or a year ("in 2022").
 * A bare weekday or clock time is ignored: it does not pin a date without more context.
 */
export function parseDateRanges(text: string, now: number, zone = DEFAULT_TIME_ZONE): DateRange[] {
  const results = parseDates(text, { instant: new Date(now), timezone: offsetMinutes(zone, now) });
  // Local midnight of a calendar day (noon UTC of that day lies inside it in every zone); days
  // past the month's end roll over as Date.UTC does.
  const day0 = (y: number, m: number, d: number): number => startOfDay(zone, Date.UTC(y, m, d, 12));
  const localYear = new Date(now + offsetMinutes(zone, now) * 60_000).getUTCFullYear();
  const ranges: Window[] = rollingWindows(text, now, zone);
  const inWindow = (r: { index: number; text: string }) =>
    ranges.some((w) => r.index < w.at + w.text.length && w.at < r.index + r.text.length);
  for (const r of results) {
    // "the past two weeks" is the fortnight up to now; chrono reads it as the week two weeks ago.
    if (inWindow(r)) continue;
    const s = r.start;
    const certainDay = s.isCertain('day');
    const certainMonth = s.isCertain('month');
    const certainYear = s.isCertain('year');
    const relative = isLocaleResult(r) || /\b(yesterday|today|tonight|tomorrow|ago|last|next|this|past|previous|recent)\b/i.test(r.text);
    // Our rules for other languages name their unit (the English words below are not in them).
    const unit = dateUnit(r);
    if (!certainDay && !certainMonth && !certainYear && !relative) continue;
    const year = s.get('year') ?? localYear;
    const month = (s.get('month') ?? 1) - 1;
    const day = s.get('day') ?? 1;
    let start: number;
    let end: number;
    const words = r.text.toLowerCase();
    if (unit === 'week') {
      start = day0(year, month, day); // its Monday
      end = day0(year, month, day + 7);
    } else if (!unit && /\bweeks?\b|weekend/.test(words)) {
      start = day0(year, month, day - 3);
      end = day0(year, month, day + 4);
    } else if (unit === 'month' || (!unit && (/\bmonths?\b/.test(words) || (certainMonth && !certainDay)))) {
      start = day0(year, month, 1);
      end = day0(year, month + 1, 1);
    } else if (unit === 'year' || (!unit && (/\byears?\b/.test(words) || (certainYear && !certainMonth)))) {
      start = day0(year, 0, 1);
      end = day0(year + 1, 0, 1);
    } else {
      start = day0(year, month, day);
      end = day0(year, month, day + 1);
    }
    if (r.end) {
      const e = r.end;
      const endDay = day0(e.get('year') ?? year, (e.get('month') ?? 12) - 1, (e.get('day') ?? 1) + 1);
      if (endDay > start) end = Math.max(end, endDay);
    }
    if (Number.isFinite(start) && Number.isFinite(end)) ranges.push({ start, end, text: r.text, at: r.index });
  }
  // chrono leaves bare years alone ("in 2022"); a year not inside a date it parsed is a year range.
  for (const m of text.matchAll(/\b(19\d\d|20\d\d)\b/g)) {
    const at = m.index;
    if (results.some((r) => at >= r.index && at < r.index + r.text.length)) continue;
    const y = Number(m[1]);
    ranges.push({ start: day0(y, 0, 1), end: day0(y + 1, 0, 1), text: m[0], at });
  }
  return ranges.map(({ start, end, text: words }) => ({ start, end, text: words }));
}

const COUNT_WORDS: Readonly<Record<string, number>> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  couple: 2,
  'couple of': 2,
  few: 3,
  several: 4,
  ein: 1,
  eine: 1,
  einen: 1,
  zwei: 2,
  drei: 3,
  vier: 4,
  fünf: 5,
  sechs: 6,
  sieben: 7,
  acht: 8,
  neun: 9,
  zehn: 10,
  paar: 2,
  'ein paar': 2,
  einige: 3,
  un: 1,
  une: 1,
  deux: 2,
  trois: 3,
  quatre: 4,
  cinq: 5,
  sept: 7,
  huit: 8,
  neuf: 9,
  dix: 10,
  quelques: 3,
  uno: 1,
  una: 1,
  dos: 2,
  tres: 3,
  cuatro: 4,
  cinco: 5,
  seis: 6,
  siete: 7,
  ocho: 8,
  nueve: 9,
  diez: 10,
  algunos: 3,
  algunas: 3,
};
const UNIT_OF: Readonly<Record<string, 'day' | 'week' | 'month' | 'year'>> = {
  day: 'day',
  days: 'day',
  week: 'week',
  weeks: 'week',
  fortnight: 'week',
  month: 'month',
  months: 'month',
  year: 'year',
  years: 'year',
  tag: 'day',
  tage: 'day',
  tagen: 'day',
  woche: 'week',
  wochen: 'week',
  monat: 'month',
  monate: 'month',
  monaten: 'month',
  jahr: 'year',
  jahre: 'year',
  jahren: 'year',
  jour: 'day',
  jours: 'day',
  semaine: 'week',
  semaines: 'week',
  mois: 'month',
  an: 'year',
  ans: 'year',
  année: 'year',
  années: 'year',
  día: 'day',
  días: 'day',
  semana: 'week',
  semanas: 'week',
  mes: 'month',
  meses: 'month',
  año: 'year',
  años: 'year',
};
const COUNT = `(\\d{1,3}|${Object.keys(COUNT_WORDS)
  .sort((a, b) => b.length - a.length)
  .join('|')})`;
const UNIT = `(${Object.keys(UNIT_OF)
  .sort((a, b) => b.length - a.length)
  .join('|')})`;
/**
 * A span of time that ends now: "in the past two weeks", "over the last 3 months", "the past
 * month", "the last few days"; "in den letzten zwei Wochen", "ces trois derniers mois", "las
 * últimas dos semanas". "last week" / "last month" alone stay the calendar week or month before
 * (chrono's reading); "past" always means up to now.
 */
const ROLLING = [
  // English: past N units, last N units (a count is needed after "last"), the past unit.
  new RegExp(`\\b(?:past|last|previous)\\s+(?:${COUNT}\\s+)${UNIT}\\b`, 'giu'),
  new RegExp(`\\b(?:past)\\s+()${UNIT}\\b`, 'giu'),
  // German: (in den) letzten / vergangenen N Einheiten ("letzten Monat" alone is the calendar month).
  new RegExp(`\\b(?:letzten|vergangenen)\\s+${COUNT}\\s+${UNIT}(?![\\p{L}])`, 'giu'),
  // French: ces / les N derniers/dernières unités; au cours du dernier mois.
  new RegExp(`\\b(?:ces|les)\\s+${COUNT}\\s+(?:derni[eè]re?s?)\\s+${UNIT}(?![\\p{L}])`, 'giu'),
  new RegExp(`\\b(?:ces|les|du|le|la)\\s+()(?:derni[eè]re?s?)\\s+${UNIT}(?![\\p{L}])`, 'giu'),
  // Spanish: (en) los/las últimos/últimas N unidades; el último mes.
  new RegExp(`(?<![\\p{L}])(?:los|las|el|la)\\s+(?:[uú]ltim[oa]s?|pasad[oa]s?)\\s+(?:${COUNT}\\s+)?${UNIT}(?![\\p{L}])`, 'giu'),
];

interface Window extends DateRange {
  readonly at: number;
}

function rollingWindows(text: string, now: number, zone: string): Window[] {
  const out: Window[] = [];
  const local = new Date(now + offsetMinutes(zone, now) * 60_000);
  const [y, m, d] = [local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate()];
  const day0 = (yy: number, mm: number, dd: number): number => startOfDay(zone, Date.UTC(yy, mm, dd, 12));
  for (const re of ROLLING) {
    for (const match of text.matchAll(re)) {
      const at = match.index;
      if (out.some((w) => at < w.at + w.text.length && w.at < at + match[0].length)) continue;
      const word = (match[1] ?? '').toLowerCase();
      const n = word === '' ? 1 : /^\d+$/.test(word) ? Number(word) : (COUNT_WORDS[word] ?? NaN);
      const unitWord = (match[2] ?? '').toLowerCase();
      const unit = UNIT_OF[unitWord];
      if (!unit || !Number.isFinite(n) || n < 1) continue;
      const amount = unitWord === 'fortnight' ? 2 * n : n;
      const start =
        unit === 'day'
          ? day0(y, m, d - amount)
          : unit === 'week'
            ? day0(y, m, d - 7 * amount)
            : unit === 'month'
              ? day0(y, m - amount, d)
              : day0(y - amount, m, d);
      out.push({ start, end: day0(y, m, d + 1), text: match[0], at });
    }
  }
  return out;
}

const ASKS_ABOUT_ASSISTANT =
  /\b(you\s+(told|said|say|recommended|recommend|suggested|mentioned|gave|provided|listed|shared|explained|described|wrote|offered|advised|named|came up with)|your\s+(suggestion|recommendation|advice|list|answer|response)s?|(our|the)\s+previous\s+(conversation|chat|discussion)|we\s+(discussed|talked about))\b/i;
// Case-sensitive "I" (a capital letter alone is the pronoun, not a Roman numeral in these questions).
const FIRST_PERSON = /(?<![\p{L}\p{N}])(I|I'm|I've|I'd|my|My|me|mine|Me)(?![\p{L}\p{N}])/u;

/**
 * A request for advice now ("can you recommend…", "any tips?", "do you have any suggestions?")
 * rather than a question about advice given earlier: what matters is what the user said about
 * themselves (tastes, plans, constraints), not the assistant's old replies.
 */
const ASKS_FOR_ADVICE =
  /\b((can|could|would|will)\s+you\s+(please\s+)?(recommend|suggest|give\s+me|help\s+me|share|think\s+of)|any\s+(suggestions?|tips|ideas|recommendations?|advice)|do\s+you\s+have\s+any|what\s+should\s+I|suggestions?\s+for|recommendations?\s+for)\b/i;
/**
 * First-person statements of taste, habit or constraint in a turn ("I prefer…", "I'm vegetarian",
 * "I'd love…", "my favourite…"): what a request for advice should be fitted to. Run over
 * candidates only.
 */
export const STATES_PREFERENCE =
  /\b(I\s+(really\s+|also\s+|usually\s+|generally\s+)?(prefer|love|like|enjoy|hate|dislike|avoid|can't\s+stand|am\s+(into|a\s+(big\s+)?fan|allergic|vegetarian|vegan))|I'm\s+(into|a\s+(big\s+)?fan|allergic|vegetarian|vegan|trying\s+to)|I'd\s+(love|like|prefer)|my\s+(favou?rite|preference|go-to))\b/i;

/**
 * A standing instruction to the assistant in a user's turn ("Always format code with syntax
 * highlighting when I ask…", "never use…", "from now on…", "I want you to…"): it applies to every
 * later request it covers, however few words it shares with the request. Run over candidates only.
 */
export const STATES_INSTRUCTION =
  /\b((always|never)\s+(use|include|format|provide|give|mention|add|show|write|answer|respond|reply|keep|start|end|put|list|cite|explain|suggest|recommend|remind|avoid|ask)|when(ever)?\s+I\s+ask|from\s+now\s+on|(I\s+want|I'd\s+like|I\s+would\s+like)\s+you\s+to|please\s+(always|never|don't|do\s+not))\b/i;

/** Verbs of a standing instruction's imperative ("always include…", "never use…"). */
const INSTRUCTION_VERBS =
  'use|include|format|provide|give|mention|add|show|write|answer|respond|reply|keep|start|end|put|list|cite|explain|suggest|recommend|remind|avoid|ask|break|highlight|offer|focus|emphasi[sz]e|present|compare|walk|structure|label|number|limit|check|clarify|reference|note|consider|be|make|stick|prioriti[sz]e|assume|stay';

/**
 * A standing instruction to the assistant, in the strict sense: a sentence that opens with an
 * imperative "always …" / "never …" (or "from now on, …"), or a rule for "when I ask about …". The
 * wider STATES_INSTRUCTION also fires on "I'd like you to…" (one request) and on friends' talk.
 */
export const STANDING_INSTRUCTION = new RegExp(
  `(?:^|[.!?]\\s+|\\n\\s*)(?:please\\s+|and\\s+)?(?:always|never)\\s+(?:${INSTRUCTION_VERBS})\\b` +
    `|\\bwhen(?:ever)?\\s+I\\s+ask\\s+(?:you\\b|about\\b|for\\b|questions?\\b|how\\b|what\\b|to\\b)` +
    `|(?:^|[.!?]\\s+)(?:from\\s+now\\s+on|going\\s+forward),?\\s+(?:please\\s+)?(?:always|never|don't|do\\s+not|${INSTRUCTION_VERBS})\\b`,
  'i',
);

/**
 * A request to the assistant now, beyond advice: "could you show me…", "how should I…", "what steps
 * would you…", "where do you think I should…". Questions about earlier replies are excluded as for
 * asksForAdvice.
 */
const ASKS_FOR_HELP =
  /\b((can|could|would|will)\s+you\s+(please\s+)?(show|tell|explain|walk|write|help|list|give|suggest|recommend|provide|draft|outline|plan|create)|how\s+(should|can|could|do|would)\s+I|what\s+(steps|tools|libraries|options)|would\s+you\s+(suggest|recommend)|do\s+you\s+think\s+I\s+should|which\s+\w+(\s+\w+)?\s+(are|is)\s+used)\b/i;

/**
 * Words that frame a question to an assistant rather than name its topic ("I wanted to follow up
 * on our previous conversation … can you remind me …"). In a chat with an assistant they match a
 * large share of the turns; the Retriever leaves them out of the lexical query when
 * RETRIEVAL_CONFIG.dropFramingWords is set.
 */
export const FRAMING_WORDS: ReadonlySet<string> = new Set(
  (
    'previous conversation conversations chat discussion discussed talked remind wanted wondering follow confirm earlier ' +
    'going looking back trying think thought said told asked gave provided'
  ).split(' '),
);

/** Asking for the present or latest state of something that may have changed. */
const ASKS_FOR_CURRENT =
  /\b(currently|current|now|most\s+recent(ly)?|latest|so\s+far|still|these\s+days|at\s+the\s+moment|anymore|nowadays)\b/i;

const ASKS_ACROSS_TIME =
  /\b(throughout|across)\s+(our|my|all|the|these|those|every)?\s*(\w+\s+){0,2}(conversations?|sessions?|chats?|discussions?|messages?|requests?|questions?|talks?|exchanges?)\b|\bover\s+(time|the\s+(past|last)\s+(few\s+|several\s+)?(days|weeks|months|years|sessions|conversations))\b|\bsummar(y|ise|ize|ising|izing)\b|\b(in\s+(chronological\s+)?order|order\s+in\s+which)\b|\b(evolved|developed|progressed)\s+(over|throughout|across|since|from)\b|\bin\s+total\b|\bhow\s+many\s+(different|times|total)\b/i;

const ABOUT_EARLIER_REPLY = /\b(you\s+(recommended|suggested|gave|told|said)|did\s+you|previous\s+(conversation|chat))\b/i;

export function asksForAdvice(text: string): boolean {
  return ASKS_FOR_ADVICE.test(text) && !ABOUT_EARLIER_REPLY.test(text);
}

export function asksForHelp(text: string): boolean {
  return (ASKS_FOR_ADVICE.test(text) || ASKS_FOR_HELP.test(text)) && !ABOUT_EARLIER_REPLY.test(text);
}

export function whoseWords(text: string): 'user' | 'assistant' | null {
  if (ASKS_ABOUT_ASSISTANT.test(text)) return 'assistant';
  return FIRST_PERSON.test(text) ? 'user' : null;
}

export function analyzeQuery(text: string, options: AnalyzeOptions = {}): QueryAnalysis {
  const speakers = findSpeakers(text, options.speakers ?? []);
  const nameTerms = new Set(speakers.flatMap((s) => lowerTerms(s)));
  const seen = new Set<string>();
  const terms: string[] = [];
  for (const t of lowerTerms(text)) {
    if (seen.has(t) || STOP_WORDS.has(t) || nameTerms.has(t)) continue;
    seen.add(t);
    terms.push(t);
  }
  return {
    text,
    terms,
    speakers,
    questionType: questionType(text),
    about: whoseWords(text),
    asksForAdvice: asksForAdvice(text),
    asksForHelp: asksForHelp(text),
    asksForCurrent: ASKS_FOR_CURRENT.test(text),
    asksAcrossTime: ASKS_ACROSS_TIME.test(text),
    temporal: {
      asksForTime: ASKS_FOR_TIME.test(text),
      ranges: options.now === undefined ? [] : parseDateRanges(text, options.now, options.timeZone),
    },
  };
}

/**
 * Does a turn's text carry a time expression? Answers to "when" questions usually do
 * ("yesterday", "last week", "in 2022"). A cheap pattern, run over candidates only.
 */
export const TIME_EXPRESSION =
  /\b(yesterday|today|tonight|tomorrow|ago|last\s+(night|week|weekend|month|year|summer|winter|spring|fall|time)|next\s+(week|weekend|month|year)|this\s+(morning|week|weekend|month|year|summer)|recently|(19|20)\d\d|january|february|march|april|june|july|august|september|october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend)\b/i;
