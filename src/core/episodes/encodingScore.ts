/**
 * The encoding score of a captured turn, no LLM (after True Memory's encoding gate): it never
 * decides what is *kept* — every turn is stored verbatim — only what deserves synthesis early.
 *
 * - novelty: how much the turn adds to its nearest stored turns, as extra compressed bytes
 *   (|gz(M‖e)| − |gz(M)|) / |gz(e)|, clamped to [0.05, 1]; 1 when memory is empty.
 * - salience: a rule-based speech-act and content score (commitments, corrections, decisions and
 *   personal facts high; greetings, laughter and filler low; numbers, dates, names add).
 * - score: the weighted mean of the two (the reference's weights 0.25 / 0.20).
 *
 * The reference's third signal, prediction error (1 − cos of the turn and its nearest neighbour),
 * was computed here for a while but decided nothing — synthesis order reads novelty and salience
 * (consolidationPriority) — so it was removed with the extra vector read per turn it cost.
 */
import { deflateSync, strToU8 } from 'fflate';

export type SpeechAct =
  'commitment' | 'correction' | 'decision' | 'personal-fact' | 'question' | 'greeting' | 'laughter' | 'noise' | 'statement';

export interface Salience {
  readonly score: number;
  readonly act: SpeechAct;
  /** Which content signals fired: 'number', 'date', 'name', 'money'. */
  readonly signals: readonly string[];
}

export interface EncodingScore {
  readonly novelty: number;
  readonly salience: number;
  readonly score: number;
  readonly act: SpeechAct;
  readonly signals: readonly string[];
}

export const ENCODING_WEIGHTS = { novelty: 0.25, salience: 0.2 } as const;

/** Compressed size with raw DEFLATE level 6 (gzip's compressor without its ~20 bytes of framing,
 * which would otherwise dominate the ratio for chat-sized turns). */
function gz(text: string): number {
  return deflateSync(strToU8(text), { level: 6 }).byteLength;
}

export function novelty(text: string, neighbours: readonly string[]): number {
  const own = gz(text);
  if (neighbours.length === 0) return 1;
  if (own < 10) return 0.05; // trivially short
  const m = neighbours.join(' ');
  const extra = gz(`${m} ${text}`) - gz(m);
  return Math.min(1, Math.max(0.05, extra / own));
}

const ACTS: readonly [SpeechAct, number, RegExp][] = [
  ['correction', 0.6, /\b(actually|no longer|not any ?more|instead|correction|i meant|scratch that|changed my mind|update:)\b/i],
  ['commitment', 0.8, /\b(i('ll| will| am going to|'m going to)|i promise|remind me|i have to|i need to|we('ll| will))\b/i],
  ['decision', 0.7, /\b(i|we) (decided|chose|picked|settled on|agreed)\b|\blet'?s go with\b/i],
  [
    'personal-fact',
    0.7,
    /\b(i('m| am) (allergic|married|pregnant|vegetarian|vegan|diabetic)|my (name|birthday|wife|husband|partner|son|daughter|mother|father|sister|brother|job|address) is|i (live|work|moved|study|was born)\b)/i,
  ],
  ['greeting', 0.05, /^(hi|hey|hello|good (morning|evening|night|afternoon)|thanks?( you)?|bye|see you)\b[\s!.,]*$/i],
  ['laughter', 0.08, /^(ha(ha)+|lol|lmao|hehe|wow|omg|nice|cool|ok(ay)?|yeah|yes|no|sure)[\s!.,]*$/i],
];
const QUESTION = /\?\s*$|^(who|what|when|where|why|how|which|do you|did you|are you|can you|could you|would you|is it|have you)\b/i;
const MONTHS =
  /\b(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t(ember)?)?|oct(ober)?|nov(ember)?|dec(ember)?|monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|yesterday|tonight|next week|last week)\b/i;

export function salience(text: string): Salience {
  const t = text.trim();
  const signals: string[] = [];
  if (/\d/.test(t)) signals.push('number');
  if (MONTHS.test(t) || /\b\d{1,2}[/.-]\d{1,2}([/.-]\d{2,4})?\b/.test(t)) signals.push('date');
  if (/[$€£¥]\s?\d|\b\d+(\.\d+)? ?(dollars|euros|pounds|usd|eur)\b/i.test(t)) signals.push('money');
  // A capitalised word that does not start a sentence and is not "I": a likely name.
  if (/(?<![.!?]\s|^)\b(?!I\b)[A-Z][a-z]{2,}/.test(t)) signals.push('name');
  if (t.length === 0 || /^[\p{P}\p{S}\s]*$/u.test(t)) return { score: 0.02, act: 'noise', signals };
  let act: SpeechAct = 'statement';
  let base = t.split(/\s+/).length >= 5 ? 0.5 : 0.25;
  for (const [name, score, re] of ACTS) {
    if (re.test(t)) {
      act = name;
      base = score;
      break;
    }
  }
  if (act === 'statement' && QUESTION.test(t)) {
    act = 'question';
    base = 0.2;
  }
  const bonus = act === 'greeting' || act === 'laughter' ? 0 : 0.05 * signals.length;
  // Content signals alone never make small talk or a plain statement as salient as a speech act,
  // and a commitment without a date ("I'll call you") is everyday chat, not a plan to remember.
  const cap = act === 'statement' || act === 'question' || (act === 'commitment' && !signals.includes('date')) ? 0.65 : 1;
  return { score: Math.min(cap, base + bonus), act, signals };
}

export function encodingScore(input: { readonly text: string; readonly neighbours: readonly string[] }): EncodingScore {
  const n = novelty(input.text, input.neighbours);
  const s = salience(input.text);
  const w = ENCODING_WEIGHTS;
  const score = (w.novelty * n + w.salience * s.score) / (w.novelty + w.salience);
  return { novelty: n, salience: s.score, score, act: s.act, signals: s.signals };
}

/** Novelty at which a turn counts as new rather than a repeat (compression ratios of short,
 * unrelated chat turns land around 0.6–0.8; verbatim repeats near 0.1). */
export const NOVEL_ENOUGH = 0.5;

/** How urgently a turn asks for synthesis: its speech-act salience, discounted when it repeats memory. */
export function consolidationPriority(e: EncodingScore): number {
  return e.novelty >= NOVEL_ENOUGH ? e.salience : e.salience * e.novelty;
}
