/**
 * Finds an explicit request to remember something in a user's message — "remember that I'm
 * vegetarian", "merk dir, dass ich Vegetarier bin", "记住：我对花生过敏" — and returns the thing to
 * remember, so it is saved at once instead of waiting for the episode's synthesis (the frugal
 * lifecycle keeps everything else). Rule-based and conservative, in the languages the app reads
 * dates in (DATE_LANGUAGES): the imperative must open a sentence (or, in the trailing form, close
 * it: "I'm vegetarian, please remember that"), and a question ("do you remember…?", "¿recuerdas
 * cuando…?"), a memory being recalled ("remember when we…") or a sentence that merely contains the
 * verb ("I can't remember where…") is not a request. Code blocks and quoted lines are never read.
 * Pure: no I/O, no model.
 */
import type { DATE_LANGUAGES } from '../base/localDates';

export type RememberLanguage = (typeof DATE_LANGUAGES)[number];

export interface RememberRequest {
  /** What to remember, in the person's words, without the request around it. */
  readonly text: string;
  readonly language: RememberLanguage;
}

// ---- sentences ---------------------------------------------------------------------------------

/** Lines outside fenced code blocks and quotes: pasted text is not the person talking to us. */
function ownLines(message: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of message.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      out.push('');
      continue;
    }
    out.push(fenced || /^\s*>/.test(line) ? '' : line);
  }
  return out;
}

/**
 * A line's sentences, each with its closing punctuation (which says whether it is a question).
 * Latin sentences end at . ! ? before a space or the line's end ("3.5", "e.g" do not end one); CJK
 * ones at 。！？ wherever they are.
 */
function sentences(line: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    const cjk = c === '。' || c === '！' || c === '？';
    if (!cjk && c !== '.' && c !== '!' && c !== '?') continue;
    let end = i + 1;
    while (end < line.length && '.!?。！？'.includes(line[end]!)) end++;
    if (!cjk && end < line.length && !/\s/.test(line[end]!)) continue;
    out.push(line.slice(start, end).trim());
    start = end;
    i = end - 1;
  }
  out.push(line.slice(start).trim());
  return out.filter(Boolean);
}

const isQuestion = (sentence: string): boolean =>
  /[?？]\s*["”』」)]*$/u.test(sentence) || /^[¿]/.test(sentence) || /(吗|嗎|か)$/u.test(sentence.replace(/[。.!！\s]+$/u, ''));

// ---- per language ------------------------------------------------------------------------------

interface Rule {
  readonly language: RememberLanguage;
  /** Tried on one sentence; the group named `what` is the thing to remember. */
  readonly pattern: RegExp;
  /** Rejects what the pattern caught (a recalled memory, a task, a bare noun). */
  readonly reject?: (what: string, match: RegExpMatchArray) => boolean;
  /** Turns the caught clause into a statement (German "dass"-clauses, Korean quotatives). */
  readonly tidy?: (what: string, match: RegExpMatchArray) => string;
}

const EN_LEAD = String.raw`(?:(?:ok(?:ay)?|oh|hey|hi|also|and|so|btw|by the way|one more thing|from now on|going forward|in (?:the )?future|for future reference|for the future|for later)\s*[,:]?\s+)*`;
const EN_VERB = String.raw`(?:remember|don['’]t forget|do not forget|never forget|keep in mind|bear in mind|make a note|note down|take note)`;
const EN_FILL = String.raw`(?:\s+(?:this|the following|for me|for later|for the future|from now on|going forward|please))*`;
/** "remember that time…", "remember that day we…": a memory being recalled, not a fact. */
const EN_RECALLED = /^(?:time|day|night|week|weekend|year|summer|trip|one|place|thing|guy|girl|song|movie|film|book|restaurant)\b/i;
/** "remember when / how / where…": recalling or asking, not telling. */
const EN_WH = /^(?:when|how|where|what|who|whom|which|why|whether|if|back|the time|the day|us|me|you)\b/i;
/** The "remember I'm…" form without "that" wants a clause: a subject and a verb, not "my name". */
const EN_CLAUSE =
  /^(?:i|i['’]m|i['’]ve|i['’]ll|i['’]d|my|we|we['’]re|our|mine)\b.*\b(?:am|is|are|was|were|have|has|had|do|does|did|don['’]t|doesn['’]t|can|can['’]t|will|won['’]t|like|love|hate|prefer|live|work|use|need|want|eat|drink|speak|go|own|'m|'s|'re|'ve|'d)\b|^(?:i['’]m|i['’]ve|i['’]ll|i['’]d|we['’]re)\b/i;

const DE_LEAD = String.raw`(?:(?:ok|also|und|übrigens|ach ja|ab jetzt|ab sofort|von jetzt an|in zukunft|für die zukunft|noch was)\s*[,:]?\s+)*`;
const DE_VERB = String.raw`(?:merk(?:e)? dir|merken sie sich|vergiss nicht|vergessen sie nicht|denk(?:e)? dran|denk(?:e)? daran|denken sie daran|behalte? (?:im (?:hinter)?kopf|in erinnerung)|behalten sie (?:im (?:hinter)?kopf|in erinnerung)|notier(?:e)? dir|notieren sie sich|erinnere dich daran)`;
const DE_FILL = String.raw`(?:\s+(?:bitte|mal|doch|das|folgendes|für später|für die zukunft))*`;
const DE_WH = /^(?:wann|wie|wo|was|wer|warum|wieso|ob|als|wir damals)\b/i;
const DE_SUBJECT = /^(?:(?:ich|du|er|sie|es|wir|ihr|man)|(?:mein|meine|unser|unsere|dein|deine|sein|seine|ihr|ihre)\s+\S+)\s/i;

const FR_LEAD = String.raw`(?:(?:ok|d['’]accord|alors|aussi|et|au fait|désormais|dorénavant|à partir de maintenant|à l['’]avenir|pour info|pour la suite)\s*[,:]?\s+)*`;
const FR_PLEASE = String.raw`(?:s['’]il (?:te|vous) pla[iî]t|stp|svp)`;
const FR_VERB = String.raw`(?:souviens[- ]toi|souvenez[- ]vous|rappelle[- ]toi|rappelez[- ]vous|n['’]oublie pas|n['’]oubliez pas|retiens|retenez|garde(?:z)? (?:bien )?en (?:t[eê]te|m[ée]moire)|m[ée]morise(?:z)?|prends note|prenez note)`;
const FR_FILL = String.raw`(?:\s+(?:bien|ceci|cela|[çc]a|${FR_PLEASE}|pour la suite|pour plus tard))*`;
const FR_WH = /^(?:quand|comment|où|ce que|qui|pourquoi|si|lorsque|la fois)\b/i;

const ES_LEAD = String.raw`(?:(?:ok|vale|bueno|también|y|por cierto|a partir de ahora|de ahora en adelante|en el futuro|para el futuro)\s*[,:]?\s+)*`;
const ES_VERB = String.raw`(?:recuerda|recuerde|acuérdate de|acuérdese de|no olvides|no olvide|ten en cuenta|tenga en cuenta|toma nota de|tome nota de|apunta|anota|memoriza)`;
const ES_FILL = String.raw`(?:\s+(?:esto|por favor|bien|siempre))*`;
const ES_WH = /^(?:cuando|cuándo|cómo|como|dónde|donde|qué|quién|por qué|si|lo que|la vez)\b/i;

const JA_VERB =
  '(?:覚えて(?:おいて(?:ください|ね|ほしい|くれ)?|ください|ね)?|覚えといて|忘れないで(?:ください|ね|ほしい)?|記憶して(?:おいて|ください)?)';
const ZH_VERB = '(?:记住|記住|记好|記好|别忘了|別忘了|不要忘记|不要忘記|别忘记|別忘記|记一下|記一下|牢记|牢記)';
const KO_VERB =
  '(?:기억해\\s*(?:줘|둬|주세요|두세요|줄래)|기억해\\s*놔|기억하세요|기억해|잊지\\s*마(?:세요|라)?|잊지\\s*말아\\s*(?:줘|주세요))';

/** The separator after the verb: "that", a colon, a comma or a dash. */
const latin = (lead: string, please: string, verb: string, fill: string, that: string): RegExp =>
  new RegExp(
    String.raw`^${lead}(?:${please}\s*,?\s+)?(?:always\s+)?${verb}${fill}\s*(?:(?<sep>,?\s*${that})|\s*(?<sep2>[:,–—-])\s*)(?<what>.*)$`,
    'iu',
  );

const RULES: readonly Rule[] = [
  {
    language: 'en',
    pattern: latin(EN_LEAD, 'please', EN_VERB, EN_FILL, String.raw`that\s+`),
    reject: (what, m) => (m.groups?.sep ? EN_RECALLED.test(what) : EN_WH.test(what)),
  },
  {
    // "Remember I'm vegetarian." — no "that", so the rest must read as a clause about the person.
    language: 'en',
    pattern: new RegExp(String.raw`^${EN_LEAD}(?:please\s*,?\s+)?${EN_VERB}${EN_FILL}\s+(?<what>.+)$`, 'iu'),
    reject: (what) => !EN_CLAUSE.test(what),
  },
  {
    // "I'm vegetarian, please remember that."
    language: 'en',
    pattern: new RegExp(
      String.raw`^(?<what>.+?)\s*[,;–—-]\s*(?:so\s+)?(?:please\s+)?${EN_VERB}\s+(?:that|this|it)(?:,?\s*please)?\s*[.!]*$`,
      'iu',
    ),
  },
  {
    language: 'de',
    pattern: latin(DE_LEAD, 'bitte', DE_VERB, DE_FILL, String.raw`dass\s+`),
    // "Vergiss nicht, den Müll rauszubringen": a task ("zu" infinitive), not a fact.
    reject: (what, m) => DE_WH.test(what) || (!m.groups?.sep && /(?:\bzu\s+\S+|\S+zu\S+en)$/i.test(what.replace(/[.!]+$/, ''))),
    // "dass ich Vegetarier bin" → "ich bin Vegetarier": the final verb moves after the subject.
    tidy: (what, m) => {
      if (!m.groups?.sep || what.includes(',')) return what;
      const subject = DE_SUBJECT.exec(what);
      const words = what.replace(/[.!]+$/, '').split(/\s+/);
      if (!subject || words.length < 3) return what;
      const lead = subject[0].trim().split(/\s+/).length;
      const verb = words.pop()!;
      return [...words.slice(0, lead), verb, ...words.slice(lead)].join(' ');
    },
  },
  {
    language: 'fr',
    pattern: latin(FR_LEAD, FR_PLEASE, FR_VERB, FR_FILL, String.raw`(?:que\s+|qu['’]\s*)`),
    reject: (what) => FR_WH.test(what),
  },
  {
    language: 'es',
    pattern: latin(ES_LEAD, 'por favor', ES_VERB, ES_FILL, String.raw`que\s+`),
    reject: (what) => ES_WH.test(what),
  },
  {
    // "私はベジタリアンだということを覚えておいて"
    language: 'ja',
    reject: (what) => /[なの]$/u.test(what),
    pattern: new RegExp(
      `^(?:(?:これから|今後|あと)[、,]?\\s*)?(?<what>.+?)(?:ということ|ってこと|という事|こと|事|(?<=[だすたるい])と)を?(?:ちゃんと|しっかり)?${JA_VERB}(?:ください|ね|よ|ほしい|くれ)*[。！!]*$`,
      'u',
    ),
  },
  {
    // "覚えておいてください：私はベジタリアンです"
    language: 'ja',
    pattern: new RegExp(
      `^(?:(?:これから|今後|あと)[、,]?\\s*)?${JA_VERB}(?:ほしい(?:んだけど|のですが|んですが|こと(?:が(?:ある|あります))?)?)?\\s*[:：、,]\\s*(?<what>.+)$`,
      'u',
    ),
  },
  {
    // "请记住：我是素食者" / "记住我对花生过敏" (not "记住了", which is "got it").
    language: 'zh',
    pattern: new RegExp(
      `^(?:(?:以后|今后|從現在開始|从现在开始|另外|还有|還有|对了|對了)[，,、]?\\s*)?(?:请|請|麻烦|麻煩|帮我|幫我|你要|你得|要)?\\s*${ZH_VERB}(?:一下|这一点|這一點|这件事|這件事)?\\s*[：:，,、]?\\s*(?<what>[^了吗嗎].*)$`,
      'u',
    ),
  },
  {
    // "我是素食者，请记住"
    language: 'zh',
    pattern: new RegExp(`^(?<what>.+?)[，,、]\\s*(?:请|請)?${ZH_VERB}(?:这一点|這一點|哦|喔|啊)?[。！!]*$`, 'u'),
  },
  {
    // "기억해 줘: 나는 채식주의자야"
    language: 'ko',
    pattern: new RegExp(`^(?:(?:앞으로|이제부터|그리고)\\s*)?${KO_VERB}\\s*[:：,]\\s*(?<what>.+)$`, 'u'),
  },
  {
    // "나는 채식주의자라는 걸 기억해 줘" — a quoted clause ("…라는 걸", "…다는 것을") before the verb.
    language: 'ko',
    pattern: new RegExp(
      `^(?:(?:앞으로|이제부터)\\s*)?(?<what>.+?)(?:이?라는|는)\\s*(?:것|걸|거|사실)을?\\s*(?:꼭\\s*)?${KO_VERB}[.!。！]*$`,
      'u',
    ),
  },
];

// ---- the thing to remember ---------------------------------------------------------------------

const TRAILING_PLEASE =
  /(?:[,\s]+(?:please|thanks|thank you|for me|for the future|bitte|danke|s['’]il (?:te|vous) pla[iî]t|stp|svp|merci|por favor|gracias|ok\??))+\s*$/iu;

function tidyText(raw: string): string {
  let t = raw
    .trim()
    .replace(/^["“”'‘’«»「『]+|["“”'‘’«»」』]+$/gu, '')
    .trim();
  t = t
    .replace(/[.!。！;；,，、:：\s]+$/u, '')
    .replace(TRAILING_PLEASE, '')
    .replace(/[.!。！;；,，、:：\s]+$/u, '')
    .trim();
  // Latin scripts: the first letter up, as a sentence of its own.
  return t.replace(/^\p{Ll}/u, (c) => c.toUpperCase());
}

function fromSentence(sentence: string, next: () => string | null): RememberRequest | null {
  if (isQuestion(sentence)) return null;
  for (const rule of RULES) {
    const m = sentence.match(rule.pattern);
    const caught = m?.groups?.what;
    let what = caught === undefined ? null : caught.trim();
    if (!m || what === null) continue;
    // "Please remember the following:" with the list on the next lines.
    if (what.replace(/[.!。！]+$/u, '').trim() === '') what = next() ?? '';
    if (rule.reject?.(what, m)) continue;
    const text = tidyText(rule.tidy ? rule.tidy(what, m) : what);
    if ([...text].length < 2 || !/\p{L}/u.test(text)) continue;
    return { text, language: rule.language };
  }
  return null;
}

/** The thing `message` explicitly asks to be remembered (the first such request), or null. */
export function rememberRequest(message: string): RememberRequest | null {
  if (typeof message !== 'string' || !message.trim()) return null;
  const lines = ownLines(message);
  for (let i = 0; i < lines.length; i++) {
    const parts = sentences(lines[i]!);
    for (let j = 0; j < parts.length; j++) {
      const last = j === parts.length - 1;
      // A sentence ending the line with a colon announces what follows: the next lines, up to a blank one.
      const following = (): string | null => {
        if (!last || !/[:：]\s*$/u.test(parts[j]!)) return null;
        const items: string[] = [];
        for (let k = i + 1; k < lines.length && lines[k]!.trim(); k++)
          items.push(
            lines[k]!.trim()
              .replace(/^(?:[-*•]|\d+[.)])\s+/u, '')
              .replace(/[.;]+$/, ''),
          );
        return items.length ? items.join('; ') : null;
      };
      const found = fromSentence(parts[j]!, following);
      if (found) return found;
    }
  }
  return null;
}
