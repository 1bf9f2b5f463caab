/**
 * Whether a sentence that mentions a date states something about the future — a plan, an
 * appointment, a commitment — rather than asking ("what should I cook this weekend?"), measuring
 * ("my 3 years and 9 months experience") or telling the past ("I started a new job in March",
 * which a forward-dating parser reads as next March). Date foresight is written only for future
 * statements; a question with a date word is not a plan.
 *
 * Rule-based on purpose: it runs on every captured turn without a model, and each rule is a
 * pattern of chat English that can be read and tested. Measured on a labelled set of chat
 * sentences (test/core/dateForesight.labelled.ts; precision and recall in its test).
 *
 * The decision is made on the clause holding the date phrase (clauses split at , ; : and "but"),
 * so "I'm flying to Tokyo next month, any tips?" is a plan and "Any ideas for tonight?" is not.
 */

export type DateSentenceKind = 'future' | 'question' | 'request' | 'duration' | 'past' | 'habit' | 'unclear';

export interface DateMention {
  /** The sentence around the date phrase. */
  readonly sentence: string;
  /** The date phrase as the parser matched it ("next Friday", "3 years and 9 months"). */
  readonly phrase: string;
  /** Offset of the phrase in `sentence` (-1 when unknown: the first occurrence is used). */
  readonly index?: number;
  /** Who wrote it: an assistant's sentence counts only as its own commitment ("I'll remind you…"). */
  readonly role?: 'user' | 'assistant';
}

const QUESTION_START =
  /^(?:so\s+|and\s+|but\s+|also\s+|hey\s+|ok(?:ay)?\s+|um+\s+|btw\s+)?(?:what|what's|whats|when|where|which|who|whom|whose|why|how|any|anything|anyone|is\s+it|should|shall|can|could|would|will|won't|do|does|did|is|are|am|was|were|have|has|had|may|might|must)\b(?!')/i;
const INDIRECT_QUESTION =
  /\b(?:i\s+(?:was\s+)?(?:wonder(?:ing)?|curious)\s+(?:if|whether|what|when|where|how|which)|(?:not\s+sure|unsure|no\s+idea|don'?t\s+know)\s+(?:if|whether|what|when|where|how|which)|any\s+(?:ideas?|tips|suggestions?|recommendations?|thoughts|advice)|ideas?\s+for|suggestions?\s+for|recommendations?\s+for)\b/i;
const REQUEST_START =
  /^(?:please\s+)?(?:suggest|recommend|give\s+me|tell\s+me|help\s+me|show\s+me|find\s+me|list|explain|describe|brainstorm|plan\s+me|write|draft|create|make\s+me|can\s+you|could\s+you|would\s+you)\b/i;

const NUMBER = String.raw`(?:\d+(?:[.,]\d+)?|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|a\s+few|few|several|a\s+couple(?:\s+of)?|couple(?:\s+of)?)`;
const UNIT = String.raw`(?:minute|hour|day|night|week|weekend|fortnight|month|year|decade)s?`;
/** "3 years and 9 months", "for two weeks", "9 months" — a length of time, not a date. */
const DURATION_PHRASE = new RegExp(
  String.raw`^(?:for\s+|about\s+|around\s+|almost\s+|nearly\s+|over\s+)?${NUMBER}[\s-]+${UNIT}(?:\s*(?:,|and)\s*${NUMBER}[\s-]+${UNIT})*$`,
  'i',
);
/** Words right before a length of time that make it a point in the future: "in 3 weeks". */
const RELATIVE_LEAD = /\b(?:in|within|after|another)\s*$/i;
const RELATIVE_TAIL = /^\s*(?:from\s+now|later|out|away|time)\b/i;

const PAST_MARK = /\b(?:ago|was|were|did|last|yesterday|previous(?:ly)?|earlier\s+(?:this|today)|used\s+to|back\s+in|back\s+when|since)\b/i;
const IRREGULAR_PAST =
  'was|were|had|did|went|got|came|made|took|saw|met|bought|brought|thought|began|found|gave|left|felt|kept|told|said|spent|sent|sold|ran|ate|drank|flew|drove|rode|wrote|read|won|lost|paid|built|caught|taught|heard|held|slept|swam|sang|chose|forgot|broke|fell|grew|knew|threw|wore|became|sat|stood|understood|hung|dug|fed|led|lit|meant|shot|shut|split|quit|hit|hurt|cut|put|set|let|began';
/** A subject then a past verb: "I started", "my sister visited", "we finally moved" ("need", "speed" are not past). */
const PAST_VERB = new RegExp(
  String.raw`\b(?:i|we|he|she|they|you|it|(?:my|our|his|her|their|the)\s+\w+)\s+(?:(?:just|finally|already|recently|actually|also|really|never|even|only)\s+)?(?:${IRREGULAR_PAST}|(?!(?:need|speed|proceed|succeed|exceed|indeed|breed|bleed|embed|shred)\b)\w{3,}ed)\b`,
  'i',
);
const PERFECT =
  /\b(?:i've|i\s+have|we've|we\s+have|i'd|i\s+had)\s+(?:(?:just|already|finally|recently|been)\s+)?(?:\w+ed|been|done|gone|seen|taken|made|had|got(?:ten)?|bought|met|started|finished)\b/i;
/** Past verbs that set up something ahead: "I booked a table for Saturday". */
const ARRANGED =
  /\b(?:booked|scheduled|rescheduled|arranged|planned|reserved|signed\s+up|registered|set\s+up|agreed|promised|decided|moved\s+(?:it|the\s+\w+)\s+to|pushed\s+(?:it|the\s+\w+)\s+to|postponed|invited|confirmed|bought\s+tickets|got\s+tickets)\b/i;

const FUTURE_MARK = new RegExp(
  [
    String.raw`\bwill\b`,
    String.raw`\b\w+'ll\b`,
    String.raw`\bshall\b`,
    String.raw`\bgoing\s+to\b`,
    String.raw`\bgonna\b`,
    String.raw`\b(?:plan|planning|plans|intend|intending|hope|hoping|want|wanting|need|needs|have|has|got)\s+to\b`,
    String.raw`\babout\s+to\b`,
    String.raw`\b(?:scheduled|booked|due|set|supposed|expected|slated)\b`,
    String.raw`\blooking\s+forward\b`,
    String.raw`\bcan'?t\s+wait\b`,
    String.raw`\bremind\s+me\b`,
    String.raw`\blet'?s\b`,
    String.raw`\bwe\s+should\b`,
    String.raw`\bi\s+should\b`,
    String.raw`\b(?:i'?m|i\s+am|we'?re|we\s+are|he'?s|she'?s|they'?re|\w+\s+(?:is|are))\s+(?:\w+ly\s+)?\w+ing\b`,
    String.raw`\b(?:is|are|'s|'re)\s+(?:on|at|this|next|tomorrow|tonight|coming|in|due|set|planned|scheduled)\b`,
    String.raw`\b(?:i|we)\s+(?:have|'ve\s+got|got)\s+(?:a|an|my|our|the|two|three|some)\b`,
    String.raw`\b(?:goes|comes|happens|starts?|begins?|ends?|opens?|closes?|arrives?|leaves?|flies|fly|land|lands|departs?|returns?|expires?|launches?|kicks?\s+off)\b`,
    String.raw`\b(?:appointment|deadline|exam|interview|meeting|flight|trip|party|wedding|birthday|concert|recital|game|match|surgery|checkup|check-up|reservation|vacation|holiday|conference|presentation|move|race|marathon|class|shift|date)\b`,
  ].join('|'),
  'i',
);
/** Date words that only point ahead (so a bare "March" or "Friday" does not count). */
const EXPLICIT_AHEAD =
  /\b(?:tomorrow|tonight|next|coming|upcoming|later|soon|from\s+now|in\s+(?:a|an|\d+|one|two|three|four|five|six|a\s+few|a\s+couple)\b|this\s+(?:weekend|evening|afternoon|coming))\b/i;
const PREFERENCE = /\b(?:favou?rite|love|loves|like|likes|hate|hates|enjoy|enjoys|prefer|prefers)\b/i;
const HABIT = /\b(?:every|each)\s+$|\bon\s+\w+days\b|\b(?:usually|always|normally|typically|often|sometimes)\b/i;
const FUTURE_VERB = /\b(?:will|'ll|going\s+to|gonna|want\s+to|plan\s+to|hope\s+to)\b/i;
/** An assistant's promise to act (an answer's "you could go next week" is advice, not a plan). */
const ASSISTANT_COMMITMENT = /\bi(?:'ll|\s+will)\s+(?:remind|check\s+(?:in|back)|follow\s+up|get\s+back|ask|send)\b/i;

/** The clause of `sentence` holding [start, end): split at , ; : and " but ". */
function clauseAt(sentence: string, start: number, end: number): { clause: string; last: boolean; first: boolean } {
  const boundary = /[,;:]|\s(?:but|although|though|so)\s|\s-\s|\s—\s/g;
  let from = 0;
  let to = sentence.length;
  for (const m of sentence.matchAll(boundary)) {
    const at = m.index;
    if (at + m[0].length <= start) from = at + m[0].length;
    else if (at >= end) {
      to = at;
      break;
    }
  }
  return {
    clause: sentence.slice(from, to).trim(),
    last: sentence.slice(to).replace(/[\s?.!)"']+/g, '').length === 0,
    first: sentence.slice(0, from).trim().length === 0,
  };
}

/** What kind of statement the date mention is in. */
export function classifyDateMention(m: DateMention): DateSentenceKind {
  const sentence = m.sentence.trim();
  // The parser's match can end in punctuation ("next weekend,"): the clause split must see it.
  const phrase = m.phrase.trim().replace(/[\s,.;:!?]+$/, '');
  const at = m.index !== undefined && m.index >= 0 ? m.index : Math.max(0, sentence.toLowerCase().indexOf(phrase.toLowerCase()));
  const end = at + phrase.length;
  const before = sentence.slice(0, at);
  const after = sentence.slice(end);

  if (DURATION_PHRASE.test(phrase) && !RELATIVE_LEAD.test(before) && !RELATIVE_TAIL.test(after)) return 'duration';

  const { clause, last, first } = clauseAt(sentence, at, end);
  const asks = /\?\s*["')]*$/.test(sentence);
  if (QUESTION_START.test(clause) || (asks && (last || QUESTION_START.test(sentence))) || INDIRECT_QUESTION.test(clause)) return 'question';
  if (REQUEST_START.test(first ? clause : sentence)) return 'request';
  if (HABIT.test(before.slice(-20)) || HABIT.test(clause)) return 'habit';
  if (PREFERENCE.test(clause) && !FUTURE_VERB.test(clause)) return 'unclear';

  if (m.role === 'assistant') return ASSISTANT_COMMITMENT.test(clause) ? 'future' : 'unclear';

  const ahead = EXPLICIT_AHEAD.test(phrase) || EXPLICIT_AHEAD.test(before.slice(-16));
  const arranged = ARRANGED.test(clause);
  if (!arranged && (PAST_MARK.test(clause) || PERFECT.test(clause) || PAST_VERB.test(clause)) && !FUTURE_VERB.test(clause)) {
    return ahead ? 'future' : 'past';
  }
  if (arranged || ahead || FUTURE_MARK.test(clause)) return 'future';
  return 'unclear';
}

export function isFutureStatement(m: DateMention): boolean {
  return classifyDateMention(m) === 'future';
}
