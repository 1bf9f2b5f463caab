/**
 * The summary made with no model at all: the items themselves, grouped by topic and written one
 * sentence per item, or one per group of items that say the same (the same profile key, or the same
 * words compared by memoryIdentity). Deterministic: the same items give the same summary, whatever
 * order they come in.
 *
 * Topics are read from the words, in the seven languages the app reads dates in (English, German,
 * French, Spanish, Chinese, Japanese, Korean; a memory in any other lands in "About you" or "Things
 * you mentioned", never nowhere). Plans ahead are always "Plans". Each paragraph
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

/**
 * The same three topics in German, French, Spanish (by word, accents kept; `\p{L}` bounds since
 * `\b` stops at accented letters) and Chinese, Japanese, Korean (by substring: no spaces between
 * words, and Korean particles follow the noun).
 */
const SPACED_PEOPLE =
  /(?<!\p{L})(?:frau|mann|ehefrau|ehemann|freundin|freund|freunde|tochter|sohn|kinder|kind|mutter|vater|eltern|schwester|bruder|geschwister|familie|oma|opa|großmutter|großvater|tante|onkel|cousine?|nachbarn?|mitbewohner(?:in)?|femme|mari|épouse|époux|fille|fils|enfants?|mère|maman|père|papa|parents|sœur|frère|famille|amie?s?|grand-mère|grand-père|tante|oncle|cousine?s?|voisine?s?|colocataire|esposa|esposo|marido|novia|novio|pareja|hija|hijo|hijos|niños?|madre|mamá|padre|papá|padres|hermanas?|hermanos?|familia|amigas?|amigos?|abuela|abuelo|tía|tío|primas?|primos?|vecinas?|vecinos?|compañer[oa] de piso)(?!\p{L})/iu;
const SPACED_WORK =
  /(?<!\p{L})(?:arbeit|arbeitet|arbeite|beruf|firma|büro|kollegen|kollegin|kollege|chef|chefin|team|kunden?|ingenieur(?:in)?|entwickler(?:in)?|lehrer(?:in)?|ärztin|arzt|krankenpfleger(?:in)?|gehalt|beförderung|vorstellungsgespräch|besprechung|studium|studiert|universität|abschlussarbeit|travail|travaille|emploi|métier|boulot|entreprise|bureau|collègues?|patron|patronne|équipe|clients?|ingénieure?|développeuse|développeur|enseignante?|infirmière|infirmier|médecin|salaire|promotion|entretien|réunion|études|étudie|université|thèse|trabajo|trabaja|trabajar|empleo|empresa|oficina|compañeros de trabajo|jefa|jefe|equipo|clientes?|ingenier[oa]|desarrollador(?:a)?|profesor(?:a)?|enfermer[oa]|médic[oa]|sueldo|salario|ascenso|entrevista|reunión|estudios|estudia|universidad|tesis)(?!\p{L})/iu;
const SPACED_PREFERENCES =
  /(?<!\p{L})(?:mag|mögen|liebt|liebe|lieblings\p{L}*|bevorzugt|vorziehen|hasst|allergisch|allergie|vegetarisch|vegetarier(?:in)?|vegan|veganer(?:in)?|aime|adore|préfère|préférée?|déteste|allergique|allergie|végétarienne?|végane?|régime|gusta|gustan|encanta|encantan|prefiere|prefiero|favorit[oa]|odia|alérgic[oa]|alergia|vegetarian[oa]|vegan[oa]|dieta)(?!\p{L})/iu;
const CJK_PEOPLE =
  /妻子|(?<!大)丈夫|老婆|老公|女朋友|男朋友|女儿|儿子|孩子|母亲|妈妈|父亲|爸爸|父母|姐姐|妹妹|哥哥|弟弟|家人|朋友|奶奶|爷爷|邻居|室友|娘|息子|子供|母|父|両親|姉|妹|兄|弟|家族|友達|友人|祖母|祖父|隣人|아내|남편|여자친구|남자친구|아들|엄마|어머니|아빠|아버지|부모님|누나|언니|동생|가족|친구|할머니|할아버지|이웃|룸메이트/u;
const CJK_WORK =
  /工作|上班|公司|办公室|同事|老板|经理|团队|客户|工程师|老师|护士|医生|工资|升职|面试|会议|大学|论文|仕事|会社|職場|同僚|上司|チーム|顧客|エンジニア|教師|看護師|医者|給料|昇進|面接|会議|大学|論文|직장|회사|사무실|동료|상사|팀|고객|엔지니어|선생님|간호사|의사|월급|승진|면접|회의|대학교|논문/u;
const CJK_PREFERENCES =
  /喜欢|最爱|讨厌|偏好|过敏|素食|吃素|好き|大好き|嫌い|苦手|アレルギー|ベジタリアン|菜食|좋아|싫어|선호|알레르기|채식/u;

function topicOf(item: SummaryItem): Topic {
  if (item.kind === 'plan') return 'plans';
  const words = `${item.key ?? ''} ${item.text}`;
  if (PEOPLE.test(words) || SPACED_PEOPLE.test(words) || CJK_PEOPLE.test(words)) return 'people';
  if (WORK.test(words) || SPACED_WORK.test(words) || CJK_WORK.test(words)) return 'work';
  if (PREFERENCES.test(words) || SPACED_PREFERENCES.test(words) || CJK_PREFERENCES.test(words)) return 'preferences';
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
