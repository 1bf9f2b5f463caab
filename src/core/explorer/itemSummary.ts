/**
 * The summary made with no model at all: the items themselves, grouped by topic and written one
 * sentence per item, or one per group of items that say the same (the same profile key, or the same
 * words compared by memoryIdentity). Deterministic: the same items give the same summary, whatever
 * order they come in.
 *
 * Topics are read from the words (English word lists: a memory in another language lands in "About
 * you" or "Things you mentioned", never nowhere). Plans ahead are always "Plans". Each paragraph
 * keeps at most SUMMARY_LIMITS.sentences sentences: the person's own memories first, then the
 * newest facts, so the page stays a page at 20,000 facts.
 */
import { memoryIdentity } from '../base/carriedMemory';
import { profileLine } from '../recall/answerContext';
import { formatDay } from '../synthesis/synthesisPrompts';
import { asSentence, SUMMARY_LIMITS, type SummaryItem, type SummaryParagraph, type SummarySentence } from './memorySummary';

export const TOPICS = {
  about: 'About you',
  work: 'Work',
  people: 'People',
  preferences: 'Preferences',
  plans: 'Plans',
  other: 'Things you mentioned',
} as const;
type Topic = keyof typeof TOPICS;
const ORDER: readonly Topic[] = ['about', 'work', 'people', 'preferences', 'plans', 'other'];

const PEOPLE =
  /\b(?:wife|husband|partner|spouse|girlfriend|boyfriend|fianc[ée]e?|daughters?|sons?|child|children|kids?|baby|mother|mom|mum|father|dad|parents?|sisters?|brothers?|siblings?|family|friends?|grand(?:mother|father|ma|pa|parents?)|aunt|uncle|cousins?|niece|nephew|neighbou?rs?|roommate|flatmate)\b/i;
const WORK =
  /\b(?:work|works|working|worked|job|jobs|career|company|employer|employed|office|colleagues?|co-?workers?|manager|boss|team|clients?|customers?|profession|engineer|developer|designer|teacher|nurse|doctor|lawyer|researcher|business|startup|salary|promotion|interview|meetings?|deadline|shift|freelanc\w*|studies|studying|university|degree|thesis)\b/i;
const PREFERENCES =
  /\b(?:prefers?|preferred|preference|likes?|loves?|enjoys?|dislikes?|hates?|favou?rite|allergic|allergy|allergies|vegetarian|vegan|diet|rather|fan of|can't stand|cannot stand)\b/i;

function topicOf(item: SummaryItem): Topic {
  if (item.kind === 'plan') return 'plans';
  const words = `${item.key ?? ''} ${item.text}`;
  if (PEOPLE.test(words)) return 'people';
  if (WORK.test(words)) return 'work';
  if (PREFERENCES.test(words)) return 'preferences';
  return item.kind === 'profile' ? 'about' : 'other';
}

/** "Dentist check-up (12 May 2026)", "Trip to Porto (3 June 2026 to 9 June 2026)". */
function planText(item: SummaryItem, zone: string): string {
  const text = item.text.replace(/[.\s]+$/u, '');
  if (item.at === null) return item.until ? `${text} (until ${formatDay(item.until, zone)})` : text;
  const start = formatDay(item.at, zone);
  const end = item.until ? formatDay(item.until, zone) : start;
  return `${text} (${start === end ? start : `${start} to ${end}`})`;
}

/** The sentence words of one item. */
function itemWords(item: SummaryItem, zone: string): string {
  if (item.kind === 'plan') return planText(item, zone);
  if (item.kind === 'profile' && !item.byUser && item.key) return profileLine(item.key, item.text);
  return item.text;
}

/** Order inside a paragraph: the person's own first, then plans soonest / facts newest, then by id. */
function compare(a: SummaryItem, b: SummaryItem): number {
  if (a.byUser !== b.byUser) return a.byUser ? -1 : 1;
  if (a.kind !== b.kind) return ['profile', 'plan', 'fact'].indexOf(a.kind) - ['profile', 'plan', 'fact'].indexOf(b.kind);
  const at = a.kind === 'plan' ? (a.at ?? Infinity) - (b.at ?? Infinity) : (b.at ?? -Infinity) - (a.at ?? -Infinity);
  if (at !== 0 && Number.isFinite(at)) return at;
  if ((a.key ?? '') !== (b.key ?? '')) return (a.key ?? '') < (b.key ?? '') ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The summary's paragraphs made from `items` alone. */
export function summariseItems(items: readonly SummaryItem[], zone = 'UTC'): SummaryParagraph[] {
  const groups = new Map<Topic, { key: string; items: SummaryItem[] }[]>();
  for (const item of [...items].sort(compare)) {
    if (!item.text.trim()) continue;
    const topic = topicOf(item);
    const list = groups.get(topic) ?? [];
    groups.set(topic, list);
    // Profile items the pipeline keyed alike merge into one sentence; any items with the same words too.
    const byKey = item.kind === 'profile' && !item.byUser && item.key ? `key:${item.key.trim().toLowerCase()}` : null;
    const byWords = `words:${memoryIdentity(item.text)}`;
    const same = list.find((g) => g.key === byWords || (byKey !== null && g.key === byKey));
    if (same) {
      // A sentence cites every item whose words it holds, so one that would cite too many takes no more.
      if (same.items.length < SUMMARY_LIMITS.refs) same.items.push(item);
    } else list.push({ key: byKey ?? byWords, items: [item] });
  }
  const out: SummaryParagraph[] = [];
  for (const topic of ORDER) {
    const list = groups.get(topic);
    if (!list?.length) continue;
    const sentences: SummarySentence[] = list.slice(0, SUMMARY_LIMITS.sentences).map((g) => {
      const first = g.items[0]!;
      const keyed = g.key.startsWith('key:') && g.items.length > 1;
      const words = keyed
        ? `${first.key}: ${[...new Set(g.items.map((i) => i.text.replace(/[.\s]+$/u, '')))].join('; ')}`
        : itemWords(first, zone);
      return { text: asSentence(words), items: g.items.map((i) => ({ id: i.id, kind: i.kind })) };
    });
    out.push({ topic: TOPICS[topic], sentences });
  }
  return out;
}
