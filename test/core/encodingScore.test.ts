import { describe, expect, it } from 'vitest';
import { encodingScore, novelty, salience } from '../../src/core/episodes/encodingScore';
import { findDateForesight } from '../../src/core/episodes/dateForesight';

describe('encoding score', () => {
  it('rates a repeated turn as less novel than a new one', () => {
    const memory = ['We walked the dog in the park this morning and it rained the whole time.'];
    const repeat = novelty('We walked the dog in the park this morning and it rained the whole time.', memory);
    const fresh = novelty('My landlord is raising the rent by 200 euros starting in September.', memory);
    expect(fresh).toBeGreaterThan(repeat);
    expect(novelty('anything at all here', [])).toBe(1);
    expect(novelty('ok', memory)).toBe(0.05);
  });

  it('classifies speech acts and content signals', () => {
    expect(salience("I'm allergic to penicillin.").act).toBe('personal-fact');
    expect(salience("I'll send you the report by Friday.").act).toBe('commitment');
    expect(salience('Actually, the meeting is on Thursday, not Wednesday.').act).toBe('correction');
    expect(salience('We decided to move to Lisbon.').act).toBe('decision');
    expect(salience('What time is it?').act).toBe('question');
    expect(salience('hahaha').act).toBe('laughter');
    expect(salience('Hi!').act).toBe('greeting');
    expect(salience('...').act).toBe('noise');
    const s = salience('The flight to Tokyo costs $840 on March 3.');
    expect(s.signals).toEqual(expect.arrayContaining(['number', 'date', 'money', 'name']));
    expect(salience("I'm allergic to penicillin.").score).toBeGreaterThan(salience('lol').score);
  });

  it('scores a salient new fact above small talk', () => {
    const memory = ['How are you today?', 'Fine thanks, and you?'];
    const fact = encodingScore({ text: "I'm allergic to penicillin, please remember that.", neighbours: memory });
    const chat = encodingScore({ text: 'Fine thanks, and you?', neighbours: memory });
    expect(fact.score).toBeGreaterThan(chat.score);
    for (const v of [fact.novelty, fact.salience, fact.score]) expect(Number.isFinite(v)).toBe(true);
  });
});

describe('foresight from dates', () => {
  const written = Date.UTC(2026, 2, 10, 12, 0); // Tuesday 10 March 2026
  it('turns explicit future dates into validity windows', () => {
    const items = findDateForesight('My exam is next Friday. Wish me luck!', written);
    expect(items).toHaveLength(1);
    expect(items[0]!.content).toBe('My exam is next Friday.');
    expect(new Date(items[0]!.startAt).toISOString().slice(0, 10)).toBe('2026-03-20');
    expect(items[0]!.endAt - items[0]!.startAt).toBeLessThan(86_400_000);
    const march = findDateForesight('We fly to Lisbon on April 3rd for the conference.', written);
    expect(new Date(march[0]!.startAt).toISOString().slice(0, 10)).toBe('2026-04-03');
  });

  it('ignores the past and bare times', () => {
    expect(findDateForesight('Yesterday I went to the dentist.', written)).toEqual([]);
    expect(findDateForesight('Last March we moved house.', written)).toEqual([]);
    expect(findDateForesight('See you at 5.', written)).toEqual([]);
    expect(findDateForesight('', written)).toEqual([]);
  });
});
