/** Benchmark loaders and scoring on toy datasets whose answers are known by hand. */
import { describe, expect, it } from 'vitest';
import {
  loadBeamChat,
  loadDataset,
  loadLocomo,
  loadLongMemEval,
  parseBeamDate,
  parseLocomoDate,
  parseLocomoEvidence,
  parseLongMemEvalDate,
} from '../../bench/datasets';
import { aggregate, byCategory, contextRecall, scoreQuestion } from '../../bench/scoring';

const turn = (speaker: string, dia_id: string, text: string, extra: Record<string, unknown> = {}) => ({ speaker, dia_id, text, ...extra });

const LOCOMO = [
  {
    sample_id: 'toy',
    conversation: {
      speaker_a: 'Ann',
      speaker_b: 'Bob',
      session_1_date_time: '1:56 pm on 8 May, 2023',
      session_1: [turn('Ann', 'D1:1', 'hi'), turn('Bob', 'D1:2', 'hello'), turn('Ann', 'D1:3', '', { blip_caption: 'a photo of a cat' })],
      session_2_date_time: '10:05 am on 1 June, 2023',
      session_2: [turn('Bob', 'D2:1', 'bye'), turn('Ann', 'D2:2', 'see you')],
      session_3_date_time: '9:00 am on 2 June, 2023', // a date key without a session
    },
    qa: [
      { question: 'q0', answer: 'a', evidence: ['D1:2'], category: 4 },
      { question: 'q1', answer: 'a', evidence: ['D1:3; D2:1'], category: 1 },
      { question: 'q2', answer: 'a', evidence: ['D', 'D:2:2', 'D9:9'], category: 2 },
      { question: 'q3', answer: 'a', evidence: [], category: 3 },
      { question: 'q4', adversarial_answer: 'x', evidence: ['D2:02'], category: 5 },
    ],
  },
];

describe('LoCoMo loading', () => {
  it('parses session dates and lenient evidence ids', () => {
    expect(parseLocomoDate('1:56 pm on 8 May, 2023')).toBe(Date.UTC(2023, 4, 8, 13, 56));
    expect(parseLocomoDate('12:48 am on 1 February, 2023')).toBe(Date.UTC(2023, 1, 1, 0, 48));
    expect(parseLocomoDate('sometime')).toBeNaN();
    expect(parseLocomoEvidence(['D8:6; D9:17', 'D', 'D:11:26', 'D30:05', 'D1:2 D1:3'])).toEqual({
      ids: ['D8:6', 'D9:17', 'D11:26', 'D30:5', 'D1:2', 'D1:3'],
      unparsable: ['D'],
    });
  });

  it('builds sessions from session lists only, and keeps only evidence that exists', () => {
    const ds = loadLocomo(LOCOMO);
    const c = ds.corpora[0]!;
    expect(c.speakers).toEqual(['Ann', 'Bob']);
    expect(c.sessions.map((s) => s.id)).toEqual(['D1', 'D2']);
    expect(c.sessions[0]!.turns[2]).toMatchObject({ id: 'D1:3', caption: 'a photo of a cat', role: 'user' });
    expect(c.sessions[0]!.turns[1]).toMatchObject({ role: 'assistant', speaker: 'Bob' });
    const q = c.questions;
    expect(q[1]).toMatchObject({ evidenceTurns: ['D1:3', 'D2:1'], evidenceSessions: ['D1', 'D2'] });
    expect(q[2]).toMatchObject({ evidenceTurns: ['D2:2'], invalidEvidence: ['D', 'D9:9'] });
    expect(q[3]!.evidenceTurns).toEqual([]);
    expect(q[4]).toMatchObject({ headline: false, evidenceTurns: ['D2:2'] });
  });
});

describe('scoring', () => {
  const ds = loadLocomo(LOCOMO);
  const c = ds.corpora[0]!;
  const sessionOf = (id: string) => /^(D\d+):/.exec(id)?.[1];
  const ks = [1, 3];

  it('scores turn recall, hits, session recall and reciprocal rank', () => {
    const s = scoreQuestion(c.questions[1]!, ['D1:1', 'D2:1', 'D9:9', 'D1:3'], sessionOf, ks);
    expect(s.recallTurn).toEqual({ 1: 0, 3: 0.5 });
    expect(s.hitTurn).toEqual({ 1: 0, 3: 0 });
    // Top-1 turn D1:1 is in session D1 (one of two evidence sessions).
    expect(s.recallSession).toEqual({ 1: 0.5, 3: 1 });
    expect(s.recallAnySession).toEqual({ 1: 1, 3: 1 });
    expect(s.recallAllSession).toEqual({ 1: 0, 3: 1 });
    expect(s.reciprocalRank).toBe(0.5);

    const miss = scoreQuestion(c.questions[0]!, ['D2:1'], sessionOf, ks);
    expect(miss.reciprocalRank).toBe(0);
    expect(miss.recallTurn).toEqual({ 1: 0, 3: 0 });
  });

  it('averages only over questions with evidence, and groups by category', () => {
    const scores = [
      scoreQuestion(c.questions[0]!, ['D1:2'], sessionOf, ks), // found at 1
      scoreQuestion(c.questions[1]!, ['D1:3', 'D1:1', 'D2:1'], sessionOf, ks), // half at 1, all at 3
      scoreQuestion(c.questions[2]!, ['D1:1'], sessionOf, ks), // missed
      scoreQuestion(c.questions[3]!, ['D1:1'], sessionOf, ks), // no valid evidence: not counted
    ];
    const agg = aggregate(scores, ks);
    expect(agg.questions).toBe(3);
    expect(agg.recall.turn[1]).toBeCloseTo((1 + 0.5 + 0) / 3, 12);
    expect(agg.recall.turn[3]).toBeCloseTo((1 + 1 + 0) / 3, 12);
    expect(agg.hit.turn[1]).toBeCloseTo(1 / 3, 12);
    expect(agg.mrr).toBeCloseTo((1 + 1 + 0) / 3, 12);
    const cats = byCategory(scores, ks, { '1': 'multi-hop', '4': 'single-hop' });
    expect(Object.keys(cats)).toEqual(['2', '3', 'multi-hop', 'single-hop']);
    expect(cats['multi-hop']!.recall.turn[1]).toBe(0.5);
    expect(cats['3']!.questions).toBe(0);
  });

  it('scores context recall as the fraction of evidence turns the composed context cites', () => {
    expect(contextRecall(c.questions[1]!, ['D1:3', 'D1:1'])).toBe(0.5);
    expect(contextRecall(c.questions[1]!, ['D2:1', 'D1:3'])).toBe(1);
    expect(contextRecall(c.questions[0]!, [])).toBe(0);
    expect(contextRecall(c.questions[3]!, ['D1:1'])).toBe(0); // no valid evidence
    // Aggregated over the questions that had a context composed, with turn evidence only.
    const scores = [
      { ...scoreQuestion(c.questions[0]!, ['D1:2'], sessionOf, ks), contextRecall: 1 },
      { ...scoreQuestion(c.questions[1]!, ['D1:2'], sessionOf, ks), contextRecall: 0.5 },
      { ...scoreQuestion(c.questions[3]!, ['D1:2'], sessionOf, ks), contextRecall: 0 },
    ];
    expect(aggregate(scores, ks).contextRecall).toBeCloseTo(0.75, 12);
    expect(aggregate([scoreQuestion(c.questions[0]!, ['D1:2'], sessionOf, ks)], ks).contextRecall).toBeNull();
  });
});

describe('LongMemEval loading', () => {
  it('takes has_answer turns and answer sessions as evidence, in time order', () => {
    const ds = loadLongMemEval([
      {
        question_id: 'q1_abs',
        question_type: 'temporal-reasoning',
        question: 'When did I go?',
        question_date: '2023/05/30 (Tue) 10:00',
        haystack_dates: ['2023/05/20 (Sat) 02:21', '2023/05/10 (Wed) 08:00'],
        haystack_session_ids: ['late', 'early'],
        haystack_sessions: [
          [
            { role: 'user', content: 'I went hiking', has_answer: true },
            { role: 'assistant', content: 'Nice' },
          ],
          [{ role: 'user', content: 'hello' }],
        ],
        answer_session_ids: ['late', 'missing'],
      },
    ]);
    expect(parseLongMemEvalDate('2023/05/20 (Sat) 02:21')).toBe(Date.UTC(2023, 4, 20, 2, 21));
    const c = ds.corpora[0]!;
    expect(c.sessions.map((s) => s.id)).toEqual(['early', 'late']);
    expect(c.questions[0]).toMatchObject({
      headline: false,
      category: 'temporal-reasoning',
      evidenceTurns: ['late:0'],
      evidenceSessions: ['late'],
      invalidEvidence: ['missing'],
      askedAt: Date.UTC(2023, 4, 30, 10),
    });
  });

  it('keys a session repeated in one haystack by position, scoring both copies as the dataset session', () => {
    const ds = loadLongMemEval([
      {
        question_id: 'q2',
        question_type: 'multi-session',
        question: 'What did I buy?',
        question_date: '2023/06/01 (Thu) 10:00',
        haystack_dates: ['2023/05/01 (Mon) 10:00', '2023/05/02 (Tue) 10:00', '2023/05/03 (Wed) 10:00'],
        haystack_session_ids: ['filler', 'answer', 'filler'],
        haystack_sessions: [
          [
            { role: 'user', content: 'weather?' },
            { role: 'assistant', content: 'sunny' },
          ],
          [{ role: 'user', content: 'I bought a bike', has_answer: true }],
          [
            { role: 'user', content: 'weather?' },
            { role: 'assistant', content: 'sunny' },
          ],
        ],
        answer_session_ids: ['answer'],
      },
    ]);
    const c = ds.corpora[0]!;
    expect(c.sessions.map((s) => s.id)).toEqual(['filler', 'answer', 'filler#1']);
    const turnIds = c.sessions.flatMap((s) => s.turns.map((t) => t.id));
    expect(new Set(turnIds).size).toBe(turnIds.length);
    expect(c.sessions[2]!.turns.map((t) => t.sessionId)).toEqual(['filler', 'filler']);
    expect(c.questions[0]!.evidenceTurns).toEqual(['answer:0']);
  });
});

describe('BEAM loading', () => {
  const message = (role: string, id: number, content: string, extra: Record<string, unknown> = {}) => ({ role, id, content, ...extra });
  const chat = [
    {
      batch_number: 1,
      time_anchor: null,
      turns: [
        [
          message('user', 0, 'I am building a Flask budget app ->-> 1,1', { time_anchor: 'March-15-2024', index: '1,1' }),
          message('assistant', 1, 'Great, start with the routes.'),
        ],
        [message('user', 2, 'The first sprint ends on March 29 ->-> 1,2'), message('assistant', 3, 'Noted.')],
      ],
    },
    {
      batch_number: 2,
      time_anchor: null,
      turns: [
        [
          message('user', 4, 'My API now answers in 250ms ->-> 2,1', { time_anchor: 'April-05-2024' }),
          message('assistant', 5, 'Caching helped.'),
        ],
      ],
    },
  ];
  const probing = {
    information_extraction: [{ question: 'When does my first sprint end?', source_chat_ids: [2] }],
    knowledge_update: [
      { question: 'How fast is the API?', source_chat_ids: { original_info: [0], updated_info: [4] } },
      { question: 'Nothing updated', source_chat_ids: { original_info: [0], updated_info: [] } },
    ],
    temporal_reasoning: [{ question: 'Days between?', source_chat_ids: { first_event: [2], second_event: [4, 99] } }],
    event_ordering: [{ question: 'In what order?', source_chat_ids: [[0], [2, 4]] }],
    abstention: [{ question: 'What is my background?', source_chat_ids: null }],
  };

  it('dates batches by their time anchor, strips the generator marker and keeps message ids as turn ids', () => {
    expect(parseBeamDate('March-15-2024')).toBe(Date.UTC(2024, 2, 15, 12));
    expect(parseBeamDate('15/03/2024')).toBeNaN();
    const c = loadBeamChat('7', chat, probing);
    expect(c.id).toBe('beam-7');
    expect(c.speakers).toEqual(['User', 'Assistant']);
    expect(c.sessions.map((s) => [s.id, s.date])).toEqual([
      ['B1', Date.UTC(2024, 2, 15, 12)],
      ['B2', Date.UTC(2024, 3, 5, 12)],
    ]);
    expect(c.sessions[0]!.turns.map((t) => [t.id, t.role, t.text])).toEqual([
      ['M0', 'user', 'I am building a Flask budget app'],
      ['M1', 'assistant', 'Great, start with the routes.'],
      ['M2', 'user', 'The first sprint ends on March 29'],
      ['M3', 'assistant', 'Noted.'],
    ]);
  });

  it('asks every question after the last session; a knowledge update counts the updated statement; abstention is apart', () => {
    const c = loadBeamChat('7', chat, probing);
    const by = Object.fromEntries(c.questions.map((q) => [q.text, q]));
    expect(c.questions.every((q) => q.askedAt === Date.UTC(2024, 3, 6, 12))).toBe(true);
    expect(by['When does my first sprint end?']).toMatchObject({
      category: 'information_extraction',
      headline: true,
      evidenceTurns: ['M2'],
      evidenceSessions: ['B1'],
    });
    expect(by['How fast is the API?']).toMatchObject({ evidenceTurns: ['M4'], evidenceSessions: ['B2'] });
    expect(by['Nothing updated']!.evidenceTurns).toEqual([]);
    expect(by['Days between?']).toMatchObject({ evidenceTurns: ['M2', 'M4'], invalidEvidence: ['M99'] });
    expect(by['In what order?']!.evidenceTurns).toEqual(['M0', 'M2', 'M4']);
    expect(by['What is my background?']).toMatchObject({ headline: false, category: 'abstention', evidenceTurns: [] });
  });

  it('reads the shared BEAM-100K folder: 20 chats, 400 questions, 354 with evidence that exists', async () => {
    const ds = await loadDataset(new URL('../../../shared/data/beam-100k', import.meta.url).pathname);
    expect(ds.name).toBe('beam');
    expect(ds.corpora.map((c) => c.id).slice(0, 3)).toEqual(['beam-1', 'beam-2', 'beam-3']);
    const questions = ds.corpora.flatMap((c) => c.questions);
    expect(questions).toHaveLength(400);
    expect(questions.filter((q) => q.headline && q.evidenceTurns.length > 0)).toHaveLength(354);
    expect(questions.reduce((n, q) => n + q.invalidEvidence.length, 0)).toBe(0);
    const turns = ds.corpora.flatMap((c) => c.sessions.flatMap((s) => s.turns));
    expect(turns).toHaveLength(5094);
    expect(turns.some((t) => t.text.includes('->->'))).toBe(false);
  });
});
