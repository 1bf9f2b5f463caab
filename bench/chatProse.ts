/**
 * Generated chat text for the benchmarks that need real-shaped turns (bench/importHistory.ts,
 * bench/crashWorkloads.ts): prose of a given length from common words, topic words and made-up
 * rare words, deterministic for a given random source.
 */
const COMMON =
  'the of and to a in is that for it as with on be this are you can or by not your from at an have will if but more about which one so use also when there their what some may like into than these then other only time how should make each most would any could them way first well because need'.split(
    ' ',
  );
const TOPIC =
  'garden plan trip budget recipe coffee meeting train Lisbon doctor sister project deadline music running weekend book database index query cache latency deploy migration schema server browser worker memory export import sourdough starter ferry Hydra Porto bridge inspection letter chartered engineer headlamp trail Dolomites ticket salary mortgage pension invoice tax kitchen renovation tile grout cabinet paint primer bicycle chain derailleur marathon tempo interval protein lentil quinoa chickpea'.split(
    ' ',
  );
const SYLLABLES = 'ka ri to mu sel ven dor lin pra quo zet ham bri cus tal ne os fi gu lo'.split(' ');

/**
 * Text of `chars` characters shaped like chat prose: common words, topic words and rarer made-up
 * words (names, terms: real text has a long tail of distinct tokens, which is what costs the
 * full-text index), in sentences and paragraphs.
 */
export function prose(chars: number, rnd: () => number): string {
  const out: string[] = [];
  let length = 0;
  let sentence = 0;
  while (length < chars) {
    const r = rnd();
    let w =
      r < 0.6
        ? COMMON[Math.floor(rnd() * COMMON.length)]!
        : r < 0.9
          ? TOPIC[Math.floor(rnd() * TOPIC.length)]!
          : Array.from({ length: 2 + Math.floor(rnd() * 3) }, () => SYLLABLES[Math.floor(rnd() * SYLLABLES.length)]).join('');
    if (sentence === 0) w = w[0]!.toUpperCase() + w.slice(1);
    sentence++;
    const end = sentence > 8 && rnd() < 0.12;
    if (end) sentence = 0;
    const piece = end ? `${w}.${rnd() < 0.2 ? '\n\n' : ' '}` : `${w} `;
    out.push(piece);
    length += piece.length;
  }
  return out.join('').trim();
}

const CODE = [
  '```sh\nrsync -a --delete ~/notes/ /mnt/backup/notes/\ndate >> ~/backup.log\n```',
  '```ts\nconst total = items.reduce((sum, item) => sum + item.price * item.quantity, 0);\nconsole.log(total.toFixed(2));\n```',
  "```sql\nSELECT day, count(*) AS visits FROM visits WHERE day >= date('now', '-7 days') GROUP BY day ORDER BY day;\n```",
];
const TABLES = [
  '| day | distance | pace |\n|---|---|---|\n| Mon | 6 km | 5:40 |\n| Wed | 10 km | 5:55 |\n| Sat | 18 km | 6:10 |',
  '| item | cost | paid by |\n|---|---|---|\n| ferry | 42 € | Ana |\n| room | 180 € | me |\n| dinner | 65 € | Ana |',
];

/**
 * A turn of about `chars` characters (real chat turns average ≈1,100–1,150) starting with `head`:
 * prose, and in some turns a code block or a Markdown table, as people paste them.
 */
export function chatTurn(head: string, rnd: () => number, chars = 1_100): string {
  const target = Math.round(chars * (0.6 + rnd() * 0.8));
  const r = rnd();
  const extra = r < 0.25 ? CODE[Math.floor(rnd() * CODE.length)]! : r < 0.45 ? TABLES[Math.floor(rnd() * TABLES.length)]! : '';
  const body = prose(Math.max(80, target - head.length - extra.length), rnd);
  if (!extra) return `${head} ${body}`;
  const cut = body.indexOf('. ', body.length >> 1);
  return cut < 0 ? `${head} ${body}\n\n${extra}` : `${head} ${body.slice(0, cut + 1)}\n\n${extra}\n\n${body.slice(cut + 2)}`;
}
