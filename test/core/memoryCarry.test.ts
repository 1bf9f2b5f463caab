/**
 * Import memory… and Export memory… through the engine: imported memories are saved memories
 * (profile items written by the person) dated as the other assistant dated them and marked
 * "imported from <source>"; what is already known — a saved memory, a fact, a plan — is not
 * written again, so a second paste adds nothing; a bad request stores nothing; and an export read
 * into a fresh memory keeps every item once with its date, in each format.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { SqlExplorerStore } from '../../src/storage/explorerRepo';
import { MemoryEngine } from '../../src/core/engine/MemoryEngine';
import { RecollectError } from '../../src/core/base/errors';
import { dayString, parseCarriedMemory } from '../../src/core/base/carriedMemory';
import { importedFrom } from '../../src/core/engine/savedMemories';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { synthesisResponder } from '../support/synthesisResponder';
import { MemorySettingsStore } from '../support/MemorySettingsStore';
import { synthesisedEngine } from '../support/synthesisedEngine';
import { immediateTimer, topicProvider } from '../support/topicEmbedder';

const T0 = Date.UTC(2026, 2, 10, 9);
let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: synthesisResponder });
});
afterAll(async () => mock.close());

/** A memory with facts and a plan written by synthesis, and one memory added by hand. */
async function knowingEngine(apiKey: string | null = null) {
  const settings = new MemorySettingsStore();
  await settings.saveLlm({ baseUrl: mock.url, model: 'mock-model', apiKey });
  const { engine } = await synthesisedEngine({
    mockUrl: mock.url,
    topics: ['dog', 'flight'],
    turns: [
      'I adopted a dog named Biscuit, a beagle mix from the shelter in Porto.',
      'I am going to Lisbon next week, the flight leaves at noon.',
    ],
    t0: T0,
    settings,
    timeZone: 'Europe/Lisbon',
    memory: 'I am vegetarian and cook lentils every Sunday.',
  });
  return engine;
}

async function freshEngine() {
  const store = await openNodeStore();
  const engine = new MemoryEngine({
    store,
    embedders: topicProvider(['x']),
    episodes: store.episodes,
    jobs: store.jobs,
    knowledge: store.knowledge,
    explorer: new SqlExplorerStore(store.db),
    timer: immediateTimer,
  });
  await engine.start();
  await engine.settings.setTimeZone('Europe/Lisbon');
  return engine;
}

const PASTE = `\`\`\`
[2025-01-14] - Works as a backend engineer at a logistics start-up in Rotterdam, mostly in Go and PostgreSQL.
[2025-03-22] - Is planning a two-week cycling trip through the Loire valley in June 2026 with their partner, Sam.
[unknown] - Has a cat called Miso who is allergic to chicken.
[2025-04-02] - Project Atlas runs on PostgreSQL 16 with logical replication to a reporting replica.
[2025-05-05] - i am Vegetarian and cook lentils every sunday
\`\`\``;

function parsed(text: string) {
  const r = parseCarriedMemory(text, { zone: 'Europe/Lisbon', now: Date.now() });
  if (!r.ok) throw new Error(r.message);
  return r.items.map(({ text: t, kind, at }) => ({ text: t, kind, at }));
}

describe('Import memory…', () => {
  it('stores new memories as saved memories from their source, dated, and skips what is known', async () => {
    const engine = await knowingEngine();
    const facts = (await engine.memory.listFacts({ limit: 50 })).items.map((f) => f.content);
    const plans = (await engine.plans.list()).map((f) => f.content);
    expect(facts.length).toBeGreaterThan(0);
    expect(plans.length).toBeGreaterThan(0);
    // A fact and a plan already known, in other capitals and spacing, are not written again.
    const items = [
      ...parsed(PASTE),
      { text: `  ${facts[0]!.toUpperCase()} `, kind: 'fact' as const, at: null },
      { text: plans[0]!, kind: 'plan' as const, at: null },
    ];
    expect(await engine.profile.knownMemories(items.map((m) => m.text))).toEqual([false, false, false, false, true, true, true]);

    const before = (await engine.profile.list()).length;
    expect(await engine.profile.importMemories({ source: 'ChatGPT', items })).toEqual({ added: 4, alreadyKnown: 3 });
    const profile = await engine.profile.list();
    expect(profile).toHaveLength(before + 4);
    const trip = profile.find((p) => p.value.startsWith('Is planning a two-week cycling trip'))!;
    expect(trip).toMatchObject({ kind: 'explicit', editedByUser: true, status: 'active' });
    expect(dayString('Europe/Lisbon', trip.createdAt)).toBe('2025-03-22');
    expect(importedFrom(trip.history[0]!.reason)).toEqual({ source: 'ChatGPT', kind: 'plan' });
    const miso = profile.find((p) => p.value.startsWith('Has a cat called Miso'))!;
    expect(importedFrom(miso.history[0]!.reason)).toEqual({ source: 'ChatGPT', kind: 'about' });
    expect(Date.now() - miso.createdAt).toBeLessThan(600_000); // undated: dated when imported

    // The same paste again adds nothing.
    expect(await engine.profile.importMemories({ source: 'ChatGPT', items })).toEqual({ added: 0, alreadyKnown: 7 });
    expect(await engine.profile.list()).toHaveLength(before + 4);
  });

  it('refuses a bad request whole, storing nothing', async () => {
    const engine = await freshEngine();
    const good = { text: 'Speaks Portuguese at home.', kind: 'about' as const, at: null };
    for (const request of [
      { source: 'Claude', items: [good, { text: 'x'.repeat(601), kind: 'fact' as const, at: null }] },
      { source: 'Claude', items: [good, { text: '   ', kind: 'fact' as const, at: null }] },
      { source: '  ', items: [good] },
      { source: 'Claude', items: [] },
    ]) {
      const err = await engine.profile.importMemories(request).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RecollectError);
      expect((err as RecollectError).code).toBe('INVALID_INPUT');
    }
    expect(await engine.profile.list()).toEqual([]);
  });
});

describe('Export memory…', () => {
  it('writes profile, plans and facts — not turns — and an export imported into a fresh memory keeps each item once with its date', async () => {
    const source = await knowingEngine('proj_SECRET-0123456789');
    await source.profile.importMemories({ source: 'Claude', items: parsed(PASTE) });
    await source.profile.addMemory(
      'The lab endpoint key proj_SECRET-0123456789 was pasted here by mistake, and so was sk-live-4f9a8b7c6d5e.',
    );

    for (const format of ['dated-lines', 'pam', 'markdown'] as const) {
      const file = await source.profile.exportMemories(format);
      expect(file.text).not.toContain('SECRET-0123456789');
      expect(file.text).not.toContain('4f9a8b7c6d5e');
      expect(file.text).toContain('The lab endpoint key [redacted] was pasted here by mistake, and so was [redacted]');
      // Turns are not exported: the turn's words appear only inside the fact ("Ana said: …") and profile lines made from it.
      const lines = file.text.split('\n').filter((l) => l.includes('I adopted a dog named Biscuit'));
      expect(lines.length).toBeGreaterThan(0);
      expect(
        lines.every((l) => l.includes('said: I adopted a dog')),
        format,
      ).toBe(true);
      const exported = parseCarriedMemory(file.text, { zone: 'Europe/Lisbon', now: Date.now() });
      if (!exported.ok) throw new Error(exported.message);
      expect(exported.items.length, format).toBe(file.count);

      const target = await freshEngine();
      const items = exported.items.map(({ text, kind, at }) => ({ text, kind, at }));
      expect(await target.profile.importMemories({ source: 'Recollect', items })).toEqual({ added: items.length, alreadyKnown: 0 });
      const profile = await target.profile.list();
      // Every item once, with its day.
      const day = (at: number | null, fallback: number) => dayString('Europe/Lisbon', at ?? fallback);
      const got = profile.map((p) => `${dayString('Europe/Lisbon', p.createdAt)} ${p.value}`).sort();
      const want = exported.items.map((m) => `${day(m.at, Date.now())} ${m.text}`).sort();
      expect(got, format).toEqual(want);
      expect(new Set(profile.map((p) => p.value)).size).toBe(profile.length);
      for (const text of [
        'Is planning a two-week cycling trip through the Loire valley in June 2026 with their partner, Sam.',
        'I am vegetarian and cook lentils every Sunday.',
      ]) {
        expect(
          profile.map((p) => p.value),
          format,
        ).toContain(text);
      }
      expect(dayString('Europe/Lisbon', profile.find((p) => p.value.startsWith('Is planning a two-week'))!.createdAt)).toBe('2025-03-22');
      // A second import of the same export adds nothing.
      expect(await target.profile.importMemories({ source: 'Recollect', items }), format).toEqual({ added: 0, alreadyKnown: items.length });
      // A kind survives the trip: an imported plan is exported as a plan again.
      const again = await target.profile.exportMemories('pam');
      const trip = JSON.parse(again.text).memories.find((m: { content: string }) => m.content.startsWith('Is planning a two-week'));
      expect(trip.metadata.recollect_kind).toBe('plan');
    }
  });
});
