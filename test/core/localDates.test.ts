/** Relative dates in the user's language, through both rule-based readers. */
import { describe, expect, it } from 'vitest';
import { findDateForesight } from '../../src/core/episodes/dateForesight';
import { parseDateRanges } from '../../src/core/recall/queryAnalysis';
import { detectLanguage } from '../../src/core/base/language';

// Wednesday 8 January 2025, 10:00 UTC.
const NOW = Date.UTC(2025, 0, 8, 10);
const day = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d);
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const FORESIGHT: [string, string, string][] = [
  // language, turn, first day of the foresight window (UTC)
  ['zh', '我明天要去北京出差。', '2025-01-09'],
  ['zh', '下周五我有一个考试。', '2025-01-17'],
  ['zh', '下个月我们要搬家。', '2025-02-01'],
  ['ja', '来週の金曜日に試験があります。', '2025-01-17'],
  ['ja', '来月、京都に引っ越します。', '2025-02-01'],
  ['ja', '3日後に友達と会います。', '2025-01-11'],
  ['ko', '내일 병원에 가야 해요.', '2025-01-09'],
  ['ko', '다음 주 금요일에 시험이 있어요.', '2025-01-17'],
  ['ko', '다음 달에 이사를 가요.', '2025-02-01'],
  ['de', 'Nächsten Freitag fahren wir mit dem Zug nach München.', '2025-01-17'],
  ['de', 'Morgen habe ich einen Termin beim Arzt.', '2025-01-09'],
  ['fr', 'Vendredi prochain, je pars à Marseille.', '2025-01-17'],
  ['fr', 'La semaine prochaine, nous allons voir mes cousins.', '2025-01-15'],
  ['es', 'El próximo viernes voy a Sevilla con mi pareja.', '2025-01-17'],
  ['es', 'La semana que viene tengo un examen.', '2025-01-13'],
];

describe("date foresight in the user's language", () => {
  for (const [lang, text, first] of FORESIGHT) {
    it(`${lang}: ${text}`, () => {
      expect(detectLanguage(text)).toBe(lang);
      const items = findDateForesight(text, NOW, 'UTC');
      expect(items.map((f) => iso(f.startAt))).toContain(first);
    });
  }

  it('ignores past dates in every language', () => {
    for (const text of [
      '昨天我去了北京。',
      '先月東京に行きました。',
      '지난주에 부산에 갔어요.',
      'Gestern war ich beim Arzt.',
      'Hier, je suis allé au cinéma.',
      'El mes pasado fui al médico.',
    ]) {
      expect(findDateForesight(text, NOW, 'UTC'), text).toEqual([]);
    }
  });
});

describe("query analysis: date ranges in the question's language", () => {
  const cases: [string, string, number, number][] = [
    ['zh', '我上个月做了什么？', day(2024, 12, 1), day(2025, 1, 1)],
    ['zh', '我去年去了哪里？', day(2024, 1, 1), day(2025, 1, 1)],
    ['ja', '先月、何を買いましたか？', day(2024, 12, 1), day(2025, 1, 1)],
    ['ja', '昨日どこに行きましたか？', day(2025, 1, 7), day(2025, 1, 8)],
    ['ko', '지난주에 뭐 했어요?', day(2024, 12, 30), day(2025, 1, 6)],
    ['ko', '어제 누구를 만났어요?', day(2025, 1, 7), day(2025, 1, 8)],
    ['ko', '작년에 어디에 갔어요?', day(2024, 1, 1), day(2025, 1, 1)],
    ['de', 'Was habe ich gestern gegessen?', day(2025, 1, 7), day(2025, 1, 8)],
    ['fr', "Qu'est-ce que j'ai fait hier ?", day(2025, 1, 7), day(2025, 1, 8)],
    ['es', '¿Qué hice el mes pasado?', day(2024, 12, 1), day(2025, 1, 1)],
  ];
  for (const [lang, question, start, end] of cases) {
    it(`${lang}: ${question}`, () => {
      const ranges = parseDateRanges(question, NOW);
      expect(ranges.map((r) => [iso(r.start), iso(r.end)])).toContainEqual([iso(start), iso(end)]);
    });
  }

  it('leaves English as it was', () => {
    expect(parseDateRanges('What did I do last month?', NOW).map((r) => [iso(r.start), iso(r.end)])).toEqual([
      ['2024-12-01', '2025-01-01'],
    ]);
  });
});
