import { describe, expect, it } from 'vitest';
import { analyzeQuery, findSpeakers, parseDateRanges, TIME_EXPRESSION } from '../../src/core/recall/queryAnalysis';

const NOW = Date.UTC(2023, 7, 15, 12, 0); // Tue 15 Aug 2023, 12:00 UTC
const day = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d);

describe('analyzeQuery: terms', () => {
  it('drops question words, stop words and named speakers, keeps content words once', () => {
    const a = analyzeQuery('When did Caroline go to the LGBTQ support group, the support group?', { speakers: ['Caroline', 'Melanie'] });
    expect(a.terms).toEqual(['go', 'lgbtq', 'support', 'group']);
    expect(a.speakers).toEqual(['Caroline']);
    expect(a.questionType).toBe('when');
  });

  it('keeps every word when nothing is a stop word, and gives no terms for only stop words', () => {
    expect(analyzeQuery('pottery classes Tokyo').terms).toEqual(['pottery', 'classes', 'tokyo']);
    expect(analyzeQuery('What was it?').terms).toEqual([]);
  });

  it('classifies question types', () => {
    expect(analyzeQuery('Who is Jon dating?').questionType).toBe('who');
    expect(analyzeQuery('Where did she move?').questionType).toBe('where');
    expect(analyzeQuery('What year did he start?').questionType).toBe('when');
    expect(analyzeQuery('Did Gina open her store?').questionType).toBe('yes-no');
  });
});

describe('findSpeakers', () => {
  it('finds full names, first names and possessives, in question order, case-insensitively', () => {
    expect(findSpeakers("What is melanie's hobby and does Caroline share it?", ['Caroline', 'Melanie'])).toEqual(['Melanie', 'Caroline']);
    expect(findSpeakers('What did Jon say?', ['Jon Snow', 'Gina'])).toEqual(['Jon Snow']);
  });

  it('does not match a name inside another word', () => {
    expect(findSpeakers('Did Jonathan or Ginajones call?', ['Jon', 'Gina'])).toEqual([]);
  });
});

describe('temporal analysis', () => {
  it('marks questions that ask for a time', () => {
    expect(analyzeQuery('When did Melanie paint a sunrise?').temporal.asksForTime).toBe(true);
    expect(analyzeQuery('How many days before the meeting did I attend the workshop?').temporal.asksForTime).toBe(true);
    expect(analyzeQuery('What did Melanie paint?').temporal.asksForTime).toBe(false);
  });

  it('resolves an absolute day, month and year', () => {
    expect(parseDateRanges('Where did Jon go on 8 May, 2023?', NOW)).toMatchObject([{ start: day(2023, 5, 8), end: day(2023, 5, 9) }]);
    expect(parseDateRanges('What happened in May 2023?', NOW)).toMatchObject([{ start: day(2023, 5, 1), end: day(2023, 6, 1) }]);
    expect(parseDateRanges('What did Melanie paint in 2022?', NOW)).toMatchObject([
      { start: day(2022, 1, 1), end: day(2023, 1, 1), text: '2022' },
    ]);
  });

  it('reads "the past N weeks / months" as the span up to now, in four languages; "last month" stays the calendar month', () => {
    const span = (q: string) =>
      parseDateRanges(q, NOW).map((r) => [new Date(r.start).toISOString().slice(0, 10), new Date(r.end).toISOString().slice(0, 10)]);
    // Chrono alone read this as the week two weeks ago (29 Jul – 4 Aug), leaving out the last ten days.
    expect(span('How many times did I bake something in the past two weeks?')).toEqual([['2023-08-01', '2023-08-16']]);
    expect(span('Which store did I spend the most at in the past month?')).toEqual([['2023-07-15', '2023-08-16']]);
    expect(span('What have I cooked over the last 3 months?')).toEqual([['2023-05-15', '2023-08-16']]);
    expect(span('What did I try in the past few days?')).toEqual([['2023-08-12', '2023-08-16']]);
    expect(span('Was habe ich in den letzten zwei Wochen gekocht?')).toEqual([['2023-08-01', '2023-08-16']]);
    expect(span("Qu'ai-je lu ces trois derniers mois ?")).toEqual([['2023-05-15', '2023-08-16']]);
    expect(span('¿Qué compré en las últimas dos semanas?')).toEqual([['2023-08-01', '2023-08-16']]);
    expect(span('What did I do last month?')).toEqual([['2023-07-01', '2023-08-01']]);
  });

  it('resolves relative dates against the question time', () => {
    expect(parseDateRanges('What did we eat yesterday?', NOW)).toMatchObject([{ start: day(2023, 8, 14), end: day(2023, 8, 15) }]);
    const week = parseDateRanges('What did I buy last week?', NOW)[0]!;
    expect(week.start).toBeLessThanOrEqual(day(2023, 8, 8));
    expect(week.end).toBeGreaterThan(day(2023, 8, 8));
    expect(week.end).toBeLessThanOrEqual(day(2023, 8, 15));
    // The same words asked a year earlier name a different day.
    expect(parseDateRanges('What did we eat yesterday?', Date.UTC(2022, 0, 10))).toMatchObject([{ start: day(2022, 1, 9) }]);
  });

  it('names no range without a date, and only with a question time', () => {
    expect(parseDateRanges('What is her favourite colour?', NOW)).toEqual([]);
    expect(analyzeQuery('What happened in May 2023?').temporal.ranges).toEqual([]);
    expect(analyzeQuery('What happened in May 2023?', { now: NOW }).temporal.ranges).toHaveLength(1);
  });

  it('recognises time expressions in turn text', () => {
    expect(TIME_EXPRESSION.test('I went to a support group yesterday')).toBe(true);
    expect(TIME_EXPRESSION.test('We moved here in 2019.')).toBe(true);
    expect(TIME_EXPRESSION.test('I love painting sunsets')).toBe(false);
  });
});

describe('whoseWords', () => {
  it("tells questions about the assistant's words from first-person ones and from third-person ones", async () => {
    const { whoseWords } = await import('../../src/core/recall/queryAnalysis');
    expect(whoseWords('Can you remind me which state you mentioned as an example?')).toBe('assistant');
    expect(whoseWords('I was going through our previous conversation about omelettes - how many eggs?')).toBe('assistant');
    expect(whoseWords('How many eggs did you say we need?')).toBe('assistant');
    expect(whoseWords('What breed is my dog?')).toBe('user');
    expect(whoseWords('How long have I been collecting vinyl?')).toBe('user');
    expect(whoseWords('When did Caroline go to the LGBTQ support group?')).toBeNull();
    expect(whoseWords('What did Melanie paint in Part II of her series?')).toBeNull();
  });
});

describe('advice, current state and stated preferences', () => {
  it('tells a request for advice now from a question about advice given before', async () => {
    const { asksForAdvice, analyzeQuery } = await import('../../src/core/recall/queryAnalysis');
    expect(asksForAdvice('Can you suggest a hotel for my upcoming trip to Miami?')).toBe(true);
    expect(asksForAdvice("I've been having trouble with the battery life on my phone lately. Any tips?")).toBe(true);
    expect(asksForAdvice('I am planning another theme park weekend; do you have any suggestions?')).toBe(true);
    expect(asksForAdvice('What hotel did you recommend for Miami?')).toBe(false);
    expect(asksForAdvice('In our previous chat, can you remind me which tips you gave?')).toBe(false);
    expect(asksForAdvice('When did Caroline go to the LGBTQ support group?')).toBe(false);
    expect(analyzeQuery('How many titles are currently on my to-watch list?').asksForCurrent).toBe(true);
    expect(analyzeQuery('What type of camera lens did I purchase most recently?').asksForCurrent).toBe(true);
    expect(analyzeQuery('Where did I buy my new tennis racket from?').asksForCurrent).toBe(false);
  });

  it('tells a request for help now (wider than advice) from a question about earlier replies', async () => {
    const { asksForHelp } = await import('../../src/core/recall/queryAnalysis');
    expect(asksForHelp('Could you show me how to implement a login feature?')).toBe(true);
    expect(asksForHelp('How should I list the sources I used in my paper?')).toBe(true);
    expect(asksForHelp('Which libraries are used in this project?')).toBe(true);
    expect(asksForHelp('Can you suggest a hotel for my upcoming trip to Miami?')).toBe(true);
    expect(asksForHelp('What hotel did you recommend for Miami?')).toBe(false);
    expect(asksForHelp('How many commits have been merged into the main branch?')).toBe(false);
    expect(asksForHelp('When did Caroline go to the LGBTQ support group?')).toBe(false);
  });

  it("finds a user's standing instructions to the assistant in a turn", async () => {
    const { STATES_INSTRUCTION } = await import('../../src/core/recall/queryAnalysis');
    expect(
      STATES_INSTRUCTION.test('Always format all code snippets with syntax highlighting when I ask about implementation details.'),
    ).toBe(true);
    expect(STATES_INSTRUCTION.test('Always include version numbers when I ask about software dependencies.')).toBe(true);
    expect(STATES_INSTRUCTION.test('From now on, answer in French.')).toBe(true);
    expect(STATES_INSTRUCTION.test('I want you to keep answers short.')).toBe(true);
    expect(STATES_INSTRUCTION.test('The build always fails on Mondays.')).toBe(false);
    expect(STATES_INSTRUCTION.test('I never liked that restaurant.')).toBe(false);
  });

  it('tells a standing instruction (an imperative rule, a rule for later questions) from a one-off request or a remark', async () => {
    const { STANDING_INSTRUCTION } = await import('../../src/core/recall/queryAnalysis');
    const rules = [
      'Always format all code snippets with syntax highlighting when I ask about implementation details.',
      'Thanks. Never use semicolons in JavaScript examples.',
      'From now on, answer everything in British English',
      'going forward please be more decisive and concise in your responses.',
      'Include the error status codes whenever I ask about API error handling.',
    ];
    for (const t of rules) expect(STANDING_INSTRUCTION.test(t), t).toBe(true);
    const others = [
      'I want you to keep this answer short.',
      'The build always fails on Mondays.',
      "I'll make sure to be polite when I ask her about the earrings.",
      'I never liked that restaurant.',
      "I'll track my social media usage from now on.",
    ];
    for (const t of others) expect(STANDING_INSTRUCTION.test(t), t).toBe(false);
  });

  it('marks questions about many occasions over time', () => {
    for (const q of [
      'Can you list the order in which I brought up different aspects of my app throughout our conversations?',
      'Can you summarize how my reading goals have developed over time?',
      'How many different shoe sizes have I mentioned across my messages?',
      'How many hours did I spend on the course in total?',
    ])
      expect(analyzeQuery(q).asksAcrossTime, q).toBe(true);
    for (const q of [
      'Where did I buy my new tennis racket from?',
      'What did Caroline paint last week?',
      'How many cats does Melanie have?',
    ]) {
      expect(analyzeQuery(q).asksAcrossTime, q).toBe(false);
    }
  });

  it('finds first-person statements of taste in a turn', async () => {
    const { STATES_PREFERENCE } = await import('../../src/core/recall/queryAnalysis');
    expect(STATES_PREFERENCE.test('I prefer winding down by 9:30 pm.')).toBe(true);
    expect(STATES_PREFERENCE.test("I'm vegetarian, so no meat please.")).toBe(true);
    expect(STATES_PREFERENCE.test('Besides great views, I also like hotels with a rooftop pool.')).toBe(true);
    expect(STATES_PREFERENCE.test('The hotel has a rooftop pool.')).toBe(false);
  });
});
