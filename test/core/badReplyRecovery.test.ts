/**
 * Synthesis comes back after bad replies, over the mock server's fault switches: for each of seven
 * replies that arrive but cannot be used (malformed JSON, an HTML page with status 200, empty
 * `choices`, an error object with status 200, a reply cut by `finish_reason: length`, a non-JSON
 * body labelled JSON, an empty 200), episodes fail after their attempts (LLM_BAD_OUTPUT); while the
 * endpoint stays bad only the small check is sent, never the episodes again; once it heals, the
 * failed episodes are synthesised without anyone doing anything, each asked for once, and the one
 * that had succeeded before the trouble is not asked for again. Time is a fake clock driven by the
 * test: nothing here waits for wall-clock time.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { MemorySettingsStore } from '../support/MemorySettingsStore';
import { LlmClient } from '../../src/llm/LlmClient';
import { createEngine } from '../../src/host/createEngine';
import type { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import type { MemoryEngine } from '../../src/core/engine/MemoryEngine';
import {
  FIRST_CHECK_MS,
  MAX_CHECK_MS,
  MAX_FAILED_CANARIES,
  MAX_REVIVALS,
  RECOVERY_CHECK_STAGE,
  REVIVED_ATTEMPTS,
} from '../../src/core/synthesis/synthesisRecovery';
import { startMockLlmServer, type MockBehaviour, type MockLlmServer } from '../llm/mockLlmServer';
import { createSynthesisResponder, synthesisResponder } from '../support/synthesisResponder';
import { topicProvider } from '../support/topicEmbedder';
import { fakeTime } from '../support/fakeTime';

const provider = topicProvider(['dog', 'flight', 'piano']);
const DAY = 86_400_000;
const ALWAYS = 1_000_000;

type Fault = keyof Pick<
  MockBehaviour,
  'malformedJsonNext' | 'htmlNext' | 'emptyChoicesNext' | 'errorObjectNext' | 'truncateNext' | 'mislabelledNext' | 'emptyNext'
>;
const FAULTS: [string, Fault][] = [
  ['malformed JSON', 'malformedJsonNext'],
  ['an HTML page with status 200', 'htmlNext'],
  ['empty choices', 'emptyChoicesNext'],
  ['an error object with status 200', 'errorObjectNext'],
  ['a reply cut by finish_reason length', 'truncateNext'],
  ['a non-JSON body labelled JSON', 'mislabelledNext'],
  ['an empty body with status 200', 'emptyNext'],
];
const HEALTHY = Object.fromEntries(FAULTS.map(([, f]) => [f, 0])) as Record<Fault, number>;

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: synthesisResponder });
});
afterAll(async () => mock.close());
afterEach(() => mock.setBehaviour(HEALTHY));

type Time = ReturnType<typeof fakeTime>;

/** An engine over `store` talking to the mock through the real client, its ledger hooked like the app's. */
async function session(store: SqliteMemoryStore, settings: MemorySettingsStore, t: Time) {
  const engine = createEngine(store, {
    only: ['episodes', 'synthesis', 'recall'],
    embedders: provider,
    settings,
    clock: t.clock,
    timer: t.timer,
    profileDebounceMs: 0,
    llmFactory: (s, sink) =>
      new LlmClient({ baseUrl: s.baseUrl, model: s.model }, { ...(sink ? { sink } : {}), timeoutMs: 5_000, maxAttempts: 1 }),
  });
  await engine.start();
  if (!(await engine.settings.llm()).baseUrl) {
    await engine.settings.saveLlm({ baseUrl: mock.url, model: 'mock-model' });
    await engine.synthesis.setPolicy('eager');
    await store.createConversation({ id: 'c', title: 't' });
  }
  return engine;
}

const cellStatuses = (store: SqliteMemoryStore) => async () =>
  (await store.db.query<{ status: string }>('SELECT status FROM memcells ORDER BY start_at')).map((r) => r.status);

/** Moves the clock past every retry back-off, letting the queue run after each step. */
async function pastEveryBackoff(engine: MemoryEngine, t: Time) {
  for (let i = 0; i < 6; i++) {
    t.advance(16 * 60_000);
    await engine.idle();
  }
}

/** Ana's dog, then her flight two days later: the first episode closes when the second turn comes. */
async function dogThenFlight(engine: MemoryEngine, t0: number) {
  await engine.conversations.appendTurn({
    id: 'm1',
    conversationId: 'c',
    role: 'user',
    speaker: 'Ana',
    content: 'I adopted a dog named Biscuit.',
    occurredAt: t0,
  });
  await engine.conversations.appendTurn({
    id: 'm2',
    conversationId: 'c',
    role: 'user',
    speaker: 'Ana',
    content: 'My flight to Lisbon is on Friday.',
    occurredAt: t0 + 2 * DAY,
  });
}

/** Two episodes (dog, flight) closed while the endpoint is bad, run until they failed for good. */
async function twoFailedEpisodes(engine: MemoryEngine, t: Time) {
  await dogThenFlight(engine, t.clock.now() - 10 * DAY);
  await engine.idle();
  await engine.closeOpenCells();
  await engine.idle();
  await pastEveryBackoff(engine, t);
}

/** The chat requests the mock received since `from`, as the first user message's text. */
function prompts(from: number): string[] {
  return mock.requests
    .slice(from)
    .filter((r) => r.path.endsWith('/chat/completions') && r.body)
    .map((r) => (r.body!.messages as { role: string; content: string }[]).find((m) => m.role === 'user')?.content ?? '');
}
const episodePrompts = (from: number, word: string) => prompts(from).filter((p) => p.includes('\nTURNS:\n') && p.includes(word)).length;
const checks = (from: number) => prompts(from).filter((p) => p.includes('{"ok": true}')).length;

describe('synthesis recovers after bad replies once the endpoint heals', () => {
  it.each(FAULTS)(
    '%s',
    async (_name, fault) => {
      const t = fakeTime(Date.now());
      const store = await openNodeStore({ clock: t.clock });
      const engine = await session(store, new MemorySettingsStore(), t);
      const statuses = cellStatuses(store);
      const start = mock.requests.length;

      // Healthy: the first episode closes when the next turn comes two days later, and is synthesised.
      const t0 = t.clock.now() - 10 * DAY;
      await dogThenFlight(engine, t0);
      await engine.idle();
      expect(await statuses()).toEqual(['synthesised', 'raw']);

      // The endpoint goes bad: the next two episodes fail after their attempts.
      mock.setBehaviour({ [fault]: ALWAYS });
      await engine.conversations.appendTurn({
        id: 'm3',
        conversationId: 'c',
        role: 'user',
        speaker: 'Ana',
        content: 'I started piano lessons on Tuesdays.',
        occurredAt: t0 + 4 * DAY,
      });
      await engine.idle();
      await engine.closeOpenCells();
      await engine.idle();
      await pastEveryBackoff(engine, t);
      expect(await statuses()).toEqual(['synthesised', 'failed', 'failed']);
      const errors = await store.db.query<{ last_error: string }>("SELECT last_error FROM jobs WHERE status = 'failed'");
      expect(errors.map((e) => e.last_error.split(':')[0])).toEqual(['LLM_BAD_OUTPUT', 'LLM_BAD_OUTPUT']);
      expect(await engine.synthesis.failures()).toMatchObject({ episodes: 2, retryingByThemselves: 2, canRetry: true });

      // Still bad: only the small check goes out, with a back-off; the episodes are not asked for again.
      const stillBad = mock.requests.length;
      for (let i = 0; i < 6; i++) {
        t.advance(MAX_CHECK_MS);
        await engine.idle();
      }
      expect(episodePrompts(stillBad, 'Lisbon') + episodePrompts(stillBad, 'piano')).toBe(0);
      expect(checks(stillBad)).toBeGreaterThan(0);
      expect(checks(stillBad)).toBeLessThanOrEqual(2 * 6); // one check per back-off step (a bad reply is asked for twice)
      expect(await statuses()).toEqual(['synthesised', 'failed', 'failed']);

      // Healed: no one does anything; the next check passes and the failed episodes come back.
      mock.setBehaviour(HEALTHY);
      const healed = mock.requests.length;
      for (let i = 0; i < 10 && (await statuses()).some((s) => s !== 'synthesised'); i++) {
        t.advance(MAX_CHECK_MS);
        await engine.idle();
      }
      expect(await statuses()).toEqual(['synthesised', 'synthesised', 'synthesised']);
      // Each failed episode was asked for once after the endpoint healed; the one that had succeeded never again.
      expect(episodePrompts(healed, 'Lisbon')).toBe(1);
      expect(episodePrompts(healed, 'piano')).toBe(1);
      expect(episodePrompts(start, 'Biscuit')).toBe(1);
      expect(checks(healed)).toBe(1);
      expect(await engine.synthesis.failures()).toMatchObject({ episodes: 0, themes: 0, profileUpdates: 0, retryingByThemselves: 0 });
      const [checked] = await store.db.query<{ n: number }>('SELECT count(*) AS n FROM llm_calls WHERE stage = ?', [RECOVERY_CHECK_STAGE]);
      expect(Number(checked!.n)).toBeGreaterThan(0); // the check is in the ledger like any call
      engine.stop();
    },
    60_000,
  );
});

/** A small model that answers the check but never writes synthesis JSON (prose instead). */
const cannotSynthesise = createSynthesisResponder();
const proseForSynthesis: typeof synthesisResponder = (req) => {
  const prompt = req.messages.find((m) => m.role === 'user')?.content ?? '';
  return prompt.includes('\nTURNS:\n') ? 'Sure! Ana talked about her dog and a trip.' : cannotSynthesise(req);
};

describe('automatic recovery is bounded, survives a reload, and Retry brings back the rest', () => {
  afterEach(() => mock.setBehaviour({ responder: synthesisResponder }));

  it('a model that passes the check but cannot write synthesis costs a bounded number of calls, across sessions', async () => {
    const t = fakeTime(Date.now());
    const store = await openNodeStore({ clock: t.clock });
    const settings = new MemorySettingsStore();
    const statuses = cellStatuses(store);
    const begin = mock.requests.length;
    mock.setBehaviour({ responder: proseForSynthesis });
    let engine = await session(store, settings, t);
    await twoFailedEpisodes(engine, t);
    expect(await statuses()).not.toContain('synthesised');

    // Hours of checks that pass: canaries run, fail, and stop after MAX_FAILED_CANARIES in a row.
    const afterFailure = mock.requests.length;
    for (let i = 0; i < 40; i++) {
      t.advance(MAX_CHECK_MS);
      await engine.idle();
    }
    // Each canary is one revived job's run: REVIVED_ATTEMPTS attempts of 2 calls (the structured-output retry).
    const spent = episodePrompts(afterFailure, 'Biscuit') + episodePrompts(afterFailure, 'Lisbon');
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBeLessThanOrEqual(MAX_FAILED_CANARIES * REVIVED_ATTEMPTS * 2);
    expect(await statuses()).toEqual(['failed', 'failed']);
    expect((await engine.synthesis.failures()).retryingByThemselves).toBe(0); // given up for this session
    engine.stop();

    // Reloads start checking again, but each job's revivals are counted in the database: after a
    // few sessions nothing is revivable and a new session sends nothing at all.
    for (let n = 0; n < 2 * MAX_REVIVALS; n++) {
      engine = await session(store, settings, t);
      for (let i = 0; i < 20; i++) {
        t.advance(MAX_CHECK_MS);
        await engine.idle();
      }
      engine.stop();
    }
    const revivals = await store.db.query<{ revivals: number }>("SELECT revivals FROM jobs WHERE kind = 'synthesise-memcell'");
    expect(revivals.map((r) => Number(r.revivals))).toEqual([MAX_REVIVALS, MAX_REVIVALS]);
    // In all, each episode was asked for at most its first run and its revived runs (2 calls an attempt).
    for (const word of ['Biscuit', 'Lisbon'])
      expect(episodePrompts(begin, word)).toBeLessThanOrEqual((5 + MAX_REVIVALS * REVIVED_ATTEMPTS) * 2);
    const quiet = mock.requests.length;
    engine = await session(store, settings, t);
    for (let i = 0; i < 20; i++) {
      t.advance(MAX_CHECK_MS);
      await engine.idle();
    }
    expect(mock.requests.length).toBe(quiet);
    expect(await engine.synthesis.failures()).toMatchObject({ episodes: 2, retryingByThemselves: 0, canRetry: true });

    // The person's Retry brings them back at once, whatever their count (the model writes JSON again).
    mock.setBehaviour({ responder: synthesisResponder });
    expect(await engine.synthesis.retryFailed()).toBe(2);
    await engine.idle();
    expect(await statuses()).toEqual(['synthesised', 'synthesised']);
    const reset = await store.db.query<{ revivals: number }>("SELECT revivals FROM jobs WHERE kind = 'synthesise-memcell'");
    expect(reset.map((r) => Number(r.revivals))).toEqual([0, 0]);
    engine.stop();
  }, 120_000);

  it('episodes that failed in one session are synthesised in the next once the endpoint is healthy', async () => {
    const t = fakeTime(Date.now());
    const store = await openNodeStore({ clock: t.clock });
    const settings = new MemorySettingsStore();
    const statuses = cellStatuses(store);
    mock.setBehaviour({ htmlNext: ALWAYS });
    let engine = await session(store, settings, t);
    await twoFailedEpisodes(engine, t);
    expect(await statuses()).toEqual(['failed', 'failed']);
    engine.stop(); // the tab closes

    mock.setBehaviour({ htmlNext: 0 });
    const reopened = mock.requests.length;
    engine = await session(store, settings, t);
    // A new session checks at once, or after the first back-off if its queue was busy starting.
    for (let i = 0; i < 3 && (await statuses()).some((x) => x !== 'synthesised'); i++) {
      t.advance(i === 0 ? 0 : FIRST_CHECK_MS);
      await engine.idle();
    }
    expect(await statuses()).toEqual(['synthesised', 'synthesised']);
    expect(episodePrompts(reopened, 'Biscuit')).toBe(1);
    expect(episodePrompts(reopened, 'Lisbon')).toBe(1);
    engine.stop();
  }, 60_000);
});
