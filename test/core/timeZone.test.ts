/**
 * The user's time zone drives day boundaries, date foresight and the answer prompt's dates
 *: checked in Tokyo, New York and Berlin, both of the latter across a DST change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayKey, offsetMinutes, startOfDay } from '../../src/core/base/timeZone';
import { DEFAULT_SEGMENTER_CONFIG, segmentTurns } from '../../src/core/episodes/segmenter';
import { findDateForesight } from '../../src/core/episodes/dateForesight';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { LlmClient } from '../../src/llm/LlmClient';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { createEngine } from '../../src/host/createEngine';
import { META_KEYS } from '../../src/core/base/settings';
import { buildMemCellPrompt, formatDateTime } from '../../src/core/synthesis/synthesisPrompts';
import { parseDate } from '../../src/core/synthesis/synthesis';
import { parseDateRanges } from '../../src/core/recall/queryAnalysis';
import { cachedTimeZone } from '../../src/core/engine/EngineSettings';

const H = 3_600_000;
const iso = (t: number) => new Date(t).toISOString();

describe('time zone arithmetic', () => {
  it('follows DST: Berlin is +60 in winter and +120 in summer; its 29 March 2026 lasts 23 hours', () => {
    expect(offsetMinutes('Europe/Berlin', Date.UTC(2026, 0, 10))).toBe(60);
    expect(offsetMinutes('Europe/Berlin', Date.UTC(2026, 6, 10))).toBe(120);
    expect(offsetMinutes('America/New_York', Date.UTC(2026, 0, 10))).toBe(-300);
    const start = startOfDay('Europe/Berlin', Date.UTC(2026, 2, 29, 12));
    expect(iso(start)).toBe('2026-03-28T23:00:00.000Z');
    expect(iso(startOfDay('Europe/Berlin', Date.UTC(2026, 2, 30, 12)))).toBe('2026-03-29T22:00:00.000Z');
    expect(dayKey('Asia/Tokyo', Date.UTC(2026, 2, 10, 14, 59))).not.toBe(dayKey('Asia/Tokyo', Date.UTC(2026, 2, 10, 15, 1)));
  });
});

describe('offsets remembered by the hour', () => {
  it('stay exact in an hour that holds a change: Lord Howe moves by 30 minutes at 15:30 UTC', () => {
    const at = (iso: string) => offsetMinutes('Australia/Lord_Howe', Date.parse(iso));
    // The hour's ends disagree, so no instant of it may take a remembered offset; asked twice, in both orders.
    for (let pass = 0; pass < 2; pass++) {
      expect(at('2026-10-03T15:59:59Z')).toBe(660);
      expect(at('2026-10-03T15:00:00Z')).toBe(630);
      expect(at('2026-10-03T15:29:59Z')).toBe(630);
      expect(at('2026-10-03T15:30:00Z')).toBe(660);
    }
    // An hour without a change shares one offset, at any instant of it.
    expect(at('2026-10-03T14:10:00Z')).toBe(630);
    expect(at('2026-10-03T14:59:59.999Z')).toBe(630);
    expect(offsetMinutes('UTC', Date.parse('2026-10-03T15:30:00Z'))).toBe(0);
  });
});

describe("the segmenter splits at the user's midnight", () => {
  const turn = (id: string, t: number) => ({ id, seq: 0, occurredAt: t, tokenCount: 5 });
  const split = (timeZone: string, a: number, b: number) =>
    segmentTurns([turn('a', a), turn('b', b)], { ...DEFAULT_SEGMENTER_CONFIG, timeZone }).length === 2;

  it('Tokyo: 23:30 and 00:30 local are two days, though the same UTC day', () => {
    const a = Date.UTC(2026, 2, 10, 14, 30);
    expect(split('Asia/Tokyo', a, a + H)).toBe(true);
    expect(split('UTC', a, a + H)).toBe(false);
  });

  it('Berlin on the day after the DST change: 23:30 and 00:30 summer time split (a fixed winter offset would not)', () => {
    const a = Date.UTC(2026, 2, 29, 21, 30); // 23:30 CEST
    expect(split('Europe/Berlin', a, a + H)).toBe(true);
    expect(split('Etc/GMT-1', a, a + H)).toBe(false); // fixed +01:00: 22:30 and 23:30
  });

  it('New York: evening turns stay together though UTC midnight falls between them', () => {
    const a = Date.UTC(2026, 6, 10, 23, 30); // 19:30 EDT
    expect(split('America/New_York', a, a + H)).toBe(false);
    expect(split('UTC', a, a + H)).toBe(true);
  });
});

describe("date foresight in the user's time zone", () => {
  it('Tokyo: "tomorrow" written at 23:30 local is the next Tokyo day', () => {
    const written = Date.UTC(2026, 2, 10, 14, 30); // 23:30 JST on 10 March
    const [item] = findDateForesight('My exam is tomorrow.', written, 'Asia/Tokyo');
    expect(iso(item!.startAt)).toBe('2026-03-10T15:00:00.000Z');
    expect(iso(item!.endAt + 1)).toBe('2026-03-11T15:00:00.000Z');
  });

  it('New York across the spring DST change: "tomorrow" is 8 March local, a 23-hour day', () => {
    const written = Date.UTC(2026, 2, 8, 2); // 21:00 EST on 7 March
    const [item] = findDateForesight('The movers come tomorrow.', written, 'America/New_York');
    expect(iso(item!.startAt)).toBe('2026-03-08T05:00:00.000Z');
    expect(iso(item!.endAt + 1)).toBe('2026-03-09T04:00:00.000Z');
  });

  it('Berlin: "next Friday" lands on the Berlin Friday', () => {
    const written = Date.UTC(2026, 2, 25, 23, 30); // 00:30 CET on Thursday 26 March
    const [item] = findDateForesight('My flight is next Friday.', written, 'Europe/Berlin');
    expect(new Date(item!.startAt + offsetMinutes('Europe/Berlin', item!.startAt) * 60_000).getUTCDay()).toBe(5);
    expect(item!.startAt).toBe(startOfDay('Europe/Berlin', item!.startAt)); // from the Berlin midnight
  });
});

describe('the engine keeps the zone and uses it', () => {
  let mock: MockLlmServer;
  beforeAll(async () => {
    mock = await startMockLlmServer({ responder: () => 'Noted [1].' });
  });
  afterAll(async () => mock.close());

  it('stores a chosen zone in meta, refuses an unknown one, follows the browser when cleared, and dates the answer prompt in it', async () => {
    const store = await openNodeStore();
    const llm = new LlmClient({ baseUrl: mock.url, model: 'mock' }, { sink: store.llmCalls, maxAttempts: 1 });
    const engine = createEngine(store, {
      only: ['episodes', 'recall'],
      llm,
      platformTimeZone: () => 'America/New_York',
      clock: { now: () => Date.UTC(2026, 2, 10, 14, 30) },
    });
    await engine.start();
    expect(await engine.settings.timeZone()).toEqual({ timeZone: 'America/New_York', source: 'browser' });
    await expect(engine.settings.setTimeZone('Mars/Olympus')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await engine.settings.setTimeZone('Asia/Tokyo')).toEqual({ timeZone: 'Asia/Tokyo', source: 'user' });
    expect(await store.getMeta(META_KEYS.timeZone)).toBe('Asia/Tokyo');

    await store.createConversation({ id: 'c', title: 't' });
    await engine.conversations.appendTurn({ id: 'q', conversationId: 'c', role: 'user', speaker: 'You', content: 'What day is it?' });
    await engine.answers.ask({ conversationId: 'c', userMessageId: 'q', answerId: 'a' }, () => undefined);
    const body = JSON.stringify(mock.requests.at(-1)!.body);
    expect(body).toContain('Tuesday, 10 March 2026 at 23:30 (Asia/Tokyo)');

    const again = createEngine(store, { only: ['episodes'], platformTimeZone: () => 'America/New_York' });
    // Asked while the engine starts (the sidebar's date groups do, at open): the kept zone, not the browser's.
    const starting = again.start();
    expect(await again.settings.timeZone()).toEqual({ timeZone: 'Asia/Tokyo', source: 'user' }); // survives a restart
    await starting;
    expect(await again.settings.setTimeZone(null)).toEqual({ timeZone: 'America/New_York', source: 'browser' });
    engine.stop();
    again.stop();
  });
});

describe("synthesis and query analysis read the user's calendar", () => {
  const LA = 'America/Los_Angeles';
  // Tuesday 10 March 2026, 20:00 in Los Angeles = Wednesday 11 March, 03:00 UTC.
  const evening = Date.UTC(2026, 2, 11, 3);

  it('the synthesis prompt shows a turn at 20:00 Los Angeles time, on its Los Angeles day', () => {
    const [, user] = buildMemCellPrompt({
      startAt: evening,
      endAt: evening,
      timeZone: LA,
      known: [],
      turns: [{ speaker: 'You', role: 'user', content: 'I fly to Lisbon on Friday.', occurredAt: evening }],
    });
    expect(user!.content).toContain('Episode: Tuesday 10 March 2026, 20:00 to Tuesday 10 March 2026, 20:00 (America/Los_Angeles)');
    expect(user!.content).toContain('[1] Tuesday 10 March 2026, 20:00 | You (user)');
    expect(formatDateTime(evening)).toBe('Wednesday 11 March 2026, 03:00'); // UTC stays the default (benchmarks)
  });

  it("a day the model returns is that day in the user's zone", () => {
    expect(parseDate('2026-03-13', 'start', LA)).toBe(Date.UTC(2026, 2, 13, 7)); // PDT, UTC-7
    expect(parseDate('2026-03-13', 'end', LA)).toBe(Date.UTC(2026, 2, 14, 7) - 1);
    expect(parseDate('2026-03', 'start', LA)).toBe(Date.UTC(2026, 2, 1, 8)); // still PST on 1 March
    expect(parseDate('2026-03-13', 'start')).toBe(Date.UTC(2026, 2, 13));
  });

  it('"yesterday" asked at 20:00 in Los Angeles is the Los Angeles yesterday', () => {
    const [range] = parseDateRanges('what did I eat yesterday?', evening, LA);
    expect(range).toMatchObject({ start: Date.UTC(2026, 2, 9, 7), end: Date.UTC(2026, 2, 10, 7) });
    const [utc] = parseDateRanges('what did I eat yesterday?', evening);
    expect(utc).toMatchObject({ start: Date.UTC(2026, 2, 10), end: Date.UTC(2026, 2, 11) });
  });
});

describe('the platform zone read once a minute', () => {
  it('reads the zone again only when the last read is a minute old', () => {
    let t = 0;
    const reads: string[] = [];
    const zones = ['Europe/Berlin', 'Asia/Tokyo'];
    const zone = cachedTimeZone(
      () => {
        reads.push('read');
        return zones[Math.min(reads.length - 1, 1)]!;
      },
      60_000,
      () => t,
    );
    expect([zone(), zone(), zone()]).toEqual(['Europe/Berlin', 'Europe/Berlin', 'Europe/Berlin']);
    expect(reads).toHaveLength(1);
    t = 59_999;
    expect(zone()).toBe('Europe/Berlin');
    t = 60_000;
    expect(zone()).toBe('Asia/Tokyo');
    expect(reads).toHaveLength(2);
  });
});
