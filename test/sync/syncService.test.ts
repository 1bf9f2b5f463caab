/**
 * Sync step 3 end to end in Node: two (or three) engines over their own SQLite stores, paired by a
 * recovery phrase through the Durable Streams relay started in-process on 127.0.0.1, as
 * encryptedRelay.test.ts does. Each test drives the engines' public API (engine.sync, engine.conversations,
 * engine.profile) and checks what the other device's store holds afterwards. Turns are real-shaped
 * (≈1,100 characters with a code block and a table, syncFixtures.ts).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { DurableStreamTestServer } from '@durable-streams/server';
import { DurableStream, stream } from '@durable-streams/client';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { createEngine } from '../../src/host/createEngine';
import type { MemoryEngine } from '../../src/core/engine/MemoryEngine';
import type { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import { DurableStreamsRelay } from '../../src/relay/durableStreamsRelay';
import { deriveSyncKeys, sealEvent } from '../../src/core/sync/syncEnvelope';
import { HybridClock, SKEW_LIMIT_MS } from '../../src/core/sync/hybridClock';
import { stampEvent } from '../../src/core/sync/syncEvents';
import { MemorySettingsStore } from '../support/MemorySettingsStore';
import { closeDevices, filesUnder, stopRelay } from '../support/relayServer';
import { RelayCable } from '../support/relayCable';
import { turnText } from './syncFixtures';
import { longTurnExport } from '../support/longTurnExport';

interface Device {
  readonly engine: MemoryEngine;
  readonly store: SqliteMemoryStore;
  readonly cable: RelayCable;
}

const devices: Device[] = [];

async function device(clockAheadMs = 0): Promise<Device> {
  const store = await openNodeStore();
  const cable = new RelayCable();
  const engine = createEngine(store, {
    llm: null,
    settings: new MemorySettingsStore(),
    relayFor: (url) => cable.wrap(new DurableStreamsRelay(url)),
    ...(clockAheadMs ? { clock: { now: () => Date.now() + clockAheadMs } } : {}),
  });
  await engine.start();
  await engine.synthesis.setPolicy('off');
  const d = { engine, store, cable };
  devices.push(d);
  return d;
}

/** A unique word FTS can find (no punctuation to split it). */
const uniqueWord = () => `zq${randomUUID().replaceAll('-', '').slice(0, 12)}`;

async function chat(d: Device, conversationId: string, words: readonly string[], title = 'Greenhouse sensors'): Promise<string[]> {
  if (!(await d.store.getConversation(conversationId))) await d.engine.conversations.create({ id: conversationId, title });
  const ids = words.map(() => randomUUID());
  await d.engine.conversations.appendTurns(
    words.map((w, i) => ({
      id: ids[i]!,
      conversationId,
      role: i % 2 ? ('assistant' as const) : ('user' as const),
      content: turnText(w),
      occurredAt: Date.UTC(2026, 10, 20, 9, i),
    })),
  );
  return ids;
}

const logRows = async (d: Device) => Number((await d.store.db.query<{ n: number }>('SELECT count(*) AS n FROM sync_log'))[0]!.n);
const logHolds = async (d: Device, text: string) =>
  Number((await d.store.db.query<{ n: number }>('SELECT count(*) AS n FROM sync_log WHERE body LIKE ?', [`%${text}%`]))[0]!.n);

describe('sync between two engines through a relay on 127.0.0.1', () => {
  let dataDir: string;
  let relay: DurableStreamTestServer;
  let relayUrl: string;
  let port: number;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'recollect-sync3-'));
    relay = new DurableStreamTestServer({ host: '127.0.0.1', port: 0, dataDir, longPollTimeout: 1_000 });
    await relay.start();
    relayUrl = relay.url;
    port = Number(new URL(relayUrl).port);
  });

  afterEach(async () => {
    await closeDevices(devices);
    await stopRelay(relay);
    await rm(dataDir, { recursive: true, force: true });
  });

  async function paired(): Promise<[Device, Device, string]> {
    const a = await device();
    const b = await device();
    const { phrase } = await a.engine.sync.enable({ relayUrl });
    await a.engine.sync.syncNow();
    await b.engine.sync.join({ phrase, relayUrl });
    await b.engine.sync.syncNow();
    return [a, b, phrase];
  }

  it("pairs by phrase: A's turns appear in B, B's search finds them, and the relay's files hold no plaintext", async () => {
    const a = await device();
    const marker = uniqueWord();
    const ids = await chat(a, 'c-green', [marker, uniqueWord(), uniqueWord(), uniqueWord()]);
    await a.engine.profile.addMemory('Prefers metric units and 24-hour times.');
    const { phrase } = await a.engine.sync.enable({ relayUrl });
    expect(phrase.split(' ')).toHaveLength(12);
    expect((await a.engine.sync.syncNow()).state).toBe('synced');

    const b = await device();
    await expect(b.engine.sync.join({ phrase: phrase.split(' ').slice(0, 11).join(' '), relayUrl })).rejects.toThrow(/12 words/);
    const progress: { turns: number; total: number }[] = [];
    b.engine.on((event) => {
      if (event.type === 'sync-status' && event.status.progress) progress.push(event.status.progress);
    });
    await b.engine.sync.join({ phrase, relayUrl });
    const status = await b.engine.sync.syncNow();
    expect(status.state).toBe('synced');
    expect(status.progress).toBeNull();
    // "n of total turns": the total is A's checkpoint, and the count reaches it.
    expect(progress.at(-1)).toEqual({ turns: 4, total: 4 });
    expect(status.lastSyncedAt).not.toBeNull();

    const turnsOnB = await b.engine.conversations.messages('c-green');
    expect(turnsOnB.map((m) => m.id)).toEqual(ids);
    expect(turnsOnB[0]!.content).toBe(turnText(marker));
    expect(turnsOnB[0]!.content.length).toBeGreaterThan(1_000);
    expect((await b.engine.conversations.list()).map((c) => c.title)).toEqual(['Greenhouse sensors']);
    const hits = await b.engine.conversations.search(marker);
    expect(hits.map((h) => h.message.id)).toEqual([ids[0]]);
    expect((await b.engine.profile.list()).map((p) => p.value)).toContain('Prefers metric units and 24-hour times.');
    expect(await b.engine.sync.stateHash()).toBe(await a.engine.sync.stateHash());

    // Live: a turn A writes now reaches B through B's long-poll, with no syncNow on B.
    const later = uniqueWord();
    const [laterId] = await chat(a, 'c-green', [later]);
    await vi.waitFor(async () => expect(await b.store.getMessage(laterId!)).not.toBeNull(), { timeout: 30_000, interval: 200 });
    expect((await b.engine.conversations.search(later)).map((h) => h.message.id)).toEqual([laterId]);

    // The relay holds only ciphertext: the marker is nowhere in its files (the control is encryptedRelay.test.ts).
    for (const d of devices.splice(0)) {
      d.engine.stop();
      await d.store.db.close();
    }
    await relay.stop();
    const files = await filesUnder(dataDir);
    expect(files.length).toBeGreaterThan(0);
    expect(files.some((bytes) => bytes.includes(Buffer.from(marker)))).toBe(false);
    expect(files.some((bytes) => bytes.includes(Buffer.from('read_humidity')))).toBe(false);
    relay = new DurableStreamTestServer({ host: '127.0.0.1', port, dataDir, longPollTimeout: 1_000 });
    await relay.start();
  }, 120_000);

  it('offline conflicting edits: after reconnecting both devices hold the later edit and the same state hash', async () => {
    const a = await device();
    await chat(a, 'c-drift', [uniqueWord(), uniqueWord()]);
    const memory = await a.engine.profile.addMemory('Prefers metric units.');
    const { phrase } = await a.engine.sync.enable({ relayUrl });
    await a.engine.sync.syncNow();
    const b = await device(1_500); // B's wall clock runs 1.5 s ahead: its edits, made after A's, carry later clocks
    await b.engine.sync.join({ phrase, relayUrl });
    await b.engine.sync.syncNow();

    a.cable.plugged = false;
    b.cable.plugged = false;
    await a.engine.conversations.rename('c-drift', 'Humidity drift');
    await a.engine.profile.edit(memory.id, 'Prefers metric units, except for oven temperatures.');
    const [aTurn] = await chat(a, 'c-drift', [uniqueWord()]);
    await new Promise((r) => setTimeout(r, 20));
    await b.engine.conversations.rename('c-drift', 'Sensor drift at night');
    await b.engine.profile.edit(memory.id, 'Prefers metric units and Celsius.');
    const [bTurn] = await chat(b, 'c-drift', [uniqueWord()]);
    const down = await a.engine.sync.syncNow();
    expect(down.state).toBe('relay-unreachable');
    expect(down.pending).toBeGreaterThan(0);
    expect(down.message).toMatch(/cannot be reached/);

    a.cable.plugged = true;
    b.cable.plugged = true;
    await a.engine.sync.syncNow();
    await b.engine.sync.syncNow();
    await a.engine.sync.syncNow();

    for (const d of [a, b]) {
      expect((await d.store.getConversation('c-drift'))!.title).toBe('Sensor drift at night');
      const saved = (await d.engine.profile.list()).filter((p) => p.id === memory.id);
      expect(saved.map((p) => p.value)).toEqual(['Prefers metric units and Celsius.']);
      const turnIds = (await d.engine.conversations.messages('c-drift')).map((m) => m.id);
      expect(turnIds).toHaveLength(4); // both appends kept, nothing doubled
      expect(turnIds).toEqual(expect.arrayContaining([aTurn, bTurn]));
      expect(turnIds.slice(2)).toEqual([aTurn, bTurn]); // one order on both: A wrote first
      expect((await d.engine.sync.status()).pending).toBe(0);
    }
    expect(await a.engine.sync.stateHash()).toBe(await b.engine.sync.stateHash());
  }, 120_000);

  /** Lets the note of a write be stamped before the next write (syncNow waits for it; offline it only fails to send). */
  const recorded = async (...ds: Device[]) => {
    for (const d of ds) await d.engine.sync.syncNow();
    await new Promise((r) => setTimeout(r, 15));
  };
  const exchange = async (a: Device, b: Device) => {
    for (const d of [a, b, a, b]) await d.engine.sync.syncNow();
  };
  const shownIds = async (d: Device, conversationId: string) => (await d.engine.conversations.messages(conversationId)).map((m) => m.id);

  it('two devices writing into one chat while cut off show the same order afterwards: by the clock of each write', async () => {
    const [a, b] = await paired();
    const [first] = await chat(a, 'c-both', [uniqueWord()]);
    await exchange(a, b);
    expect(await shownIds(b, 'c-both')).toEqual([first]);
    a.cable.plugged = false;
    b.cable.plugged = false;
    const written: string[] = [first!];
    for (const d of [a, b, a, b]) {
      const conversationId = 'c-both';
      const id = randomUUID();
      await d.engine.conversations.appendTurns([
        { id, conversationId, role: 'user', content: turnText(uniqueWord()), occurredAt: Date.now() },
      ]);
      written.push(id);
      await recorded(d);
    }
    a.cable.plugged = true;
    b.cable.plugged = true;
    await exchange(a, b);
    // A holds its own two turns first and B's arrive between them (and the other way round on B).
    expect(await shownIds(a, 'c-both')).toEqual(written);
    expect(await shownIds(b, 'c-both')).toEqual(written);
    const seqs = (await a.store.listMessages('c-both')).map((m) => m.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(await a.engine.sync.stateHash()).toBe(await b.engine.sync.stateHash());
  }, 120_000);

  it('the same message edited on two devices while cut off: both show the later edit, the earlier stays a version on its device', async () => {
    const [a, b] = await paired();
    await a.engine.conversations.create({ id: 'c-edit', title: 'Edits' });
    const question = await a.engine.conversations.send({ id: randomUUID(), conversationId: 'c-edit', content: turnText(uniqueWord()) });
    const [answer] = await a.engine.conversations.appendTurns([
      { id: randomUUID(), conversationId: 'c-edit', role: 'assistant', content: turnText(uniqueWord()), occurredAt: Date.now() },
    ]);
    await exchange(a, b);
    expect(await shownIds(b, 'c-edit')).toEqual([question.id, answer!.message.id]);

    a.cable.plugged = false;
    b.cable.plugged = false;
    const editOn = async (d: Device) => {
      const edit = await d.engine.conversations.send({
        id: randomUUID(),
        conversationId: 'c-edit',
        content: turnText(uniqueWord()),
        replaces: question.id,
      });
      const [reply] = await d.engine.conversations.appendTurns([
        { id: randomUUID(), conversationId: 'c-edit', role: 'assistant', content: turnText(uniqueWord()), occurredAt: Date.now() },
      ]);
      await recorded(d);
      return [edit.id, reply!.message.id];
    };
    const onA = await editOn(a);
    const onB = await editOn(b); // later by the clock: it wins
    a.cable.plugged = true;
    b.cable.plugged = true;
    await exchange(a, b);

    for (const d of [a, b]) expect(await shownIds(d, 'c-edit')).toEqual(onB);
    expect(await a.engine.sync.stateHash()).toBe(await b.engine.sync.stateHash());
    // Nothing lost: A keeps its own edit as a version and can show it again, and then both show it.
    const [place] = await a.engine.conversations.versions('c-edit');
    expect(place).toEqual(expect.objectContaining({ afterId: '', count: 3, shown: 3 }));
    await a.engine.conversations.showVersion('c-edit', '', 2);
    await exchange(a, b);
    for (const d of [a, b]) expect(await shownIds(d, 'c-edit')).toEqual(onA);
    expect(await a.engine.sync.stateHash()).toBe(await b.engine.sync.stateHash());
  }, 120_000);

  it('a deletion on A removes the turn on B with its search entry, its date foresight and its text in the sync log', async () => {
    const [a, b] = await paired();
    const marker = uniqueWord();
    const plan = `${marker} I will repot the tomatoes on 15 December 2026 and check the vents.`;
    await a.engine.conversations.create({ id: 'c-plan', title: 'Garden plans' });
    const doomed = randomUUID();
    const kept = randomUUID();
    await a.engine.conversations.appendTurns([
      {
        id: doomed,
        conversationId: 'c-plan',
        role: 'user',
        content: `${turnText(uniqueWord())}\n\n${plan}`,
        occurredAt: Date.UTC(2026, 10, 20, 9),
      },
      { id: kept, conversationId: 'c-plan', role: 'assistant', content: turnText(uniqueWord()), occurredAt: Date.UTC(2026, 10, 20, 9, 1) },
    ]);
    await a.engine.sync.syncNow();
    await b.engine.sync.syncNow();
    await b.engine.closeOpenCells();
    const foresightOnB = async () =>
      Number(
        (
          await b.store.db.query<{ n: number }>(
            "SELECT count(*) AS n FROM foresights WHERE source = 'date-parser' AND content LIKE '%repot%'",
          )
        )[0]!.n,
      );
    expect(await b.store.getMessage(doomed)).not.toBeNull();
    expect(await foresightOnB()).toBeGreaterThan(0);
    expect((await b.engine.conversations.search(marker)).length).toBe(1);

    expect(await a.engine.conversations.deleteMessage(doomed)).toBe(true);
    await a.engine.sync.syncNow();
    await b.engine.sync.syncNow();
    await b.engine.idle();

    expect(await b.store.getMessage(doomed)).toBeNull();
    expect(await b.store.getMessage(kept)).not.toBeNull();
    expect(await b.engine.conversations.search(marker)).toEqual([]);
    expect(await foresightOnB()).toBe(0);
    for (const d of [a, b]) expect(await logHolds(d, marker)).toBe(0); // the log keeps that it existed, not its words
    expect(await a.engine.sync.stateHash()).toBe(await b.engine.sync.stateHash());
  }, 120_000);

  it('a duplicated delivery doubles nothing', async () => {
    const [a, b, phrase] = await paired();
    await chat(a, 'c-dup', [uniqueWord(), uniqueWord(), uniqueWord()]);
    await a.engine.sync.syncNow();
    await b.engine.sync.syncNow();
    const before = {
      turns: (await b.engine.conversations.messages('c-dup')).length,
      log: await logRows(b),
      hash: await b.engine.sync.stateHash(),
    };
    expect(before.turns).toBe(3);

    // Every sealed item on the relay appended a second time, as a retried request or a buggy relay would.
    const { ownerId } = await deriveSyncKeys(phrase);
    const url = `${relayUrl}/v1/stream/${ownerId}`;
    const items = await (await stream<unknown>({ url, live: false })).json();
    const writer = new DurableStream({ url, contentType: 'application/json' });
    for (const item of items) await writer.append(JSON.stringify(item));
    expect((await (await stream<unknown>({ url, live: false })).json()).length).toBe(2 * items.length);

    await b.engine.sync.syncNow();
    expect((await b.engine.conversations.messages('c-dup')).length).toBe(before.turns);
    expect(await logRows(b)).toBe(before.log);
    expect(await b.engine.sync.stateHash()).toBe(before.hash);
  }, 120_000);

  it('a relay wiped and restarted gets the memory back from a device, and a new device joins from it', async () => {
    const [a, , phrase] = await paired();
    const marker = uniqueWord();
    const ids = await chat(a, 'c-wipe', [marker, uniqueWord()]);
    await a.engine.sync.syncNow();

    await stopRelay(relay);
    await rm(dataDir, { recursive: true, force: true });
    relay = new DurableStreamTestServer({ host: '127.0.0.1', port, dataDir, longPollTimeout: 1_000 });
    await relay.start();

    expect((await a.engine.sync.syncNow()).state).toBe('synced');
    const c = await device();
    await c.engine.sync.join({ phrase, relayUrl });
    await c.engine.sync.syncNow();
    expect((await c.engine.conversations.messages('c-wipe')).map((m) => m.id)).toEqual(ids);
    expect((await c.engine.conversations.search(marker)).map((h) => h.message.id)).toEqual([ids[0]]);
    expect(await c.engine.sync.stateHash()).toBe(await a.engine.sync.stateHash());
  }, 120_000);

  it('with sync off (the default) nothing is contacted and nothing is written to the outbox', async () => {
    const off = await device();
    await chat(off, 'c-off', [uniqueWord(), uniqueWord()]);
    await off.engine.conversations.rename('c-off', 'Still local');
    await off.engine.conversations.send({ id: randomUUID(), conversationId: 'c-off', content: turnText(uniqueWord()) });
    const memory = await off.engine.profile.addMemory('Grows tomatoes and basil.');
    await off.engine.profile.edit(memory.id, 'Grows tomatoes, basil and chillies.');
    const [gone] = await chat(off, 'c-off', [uniqueWord()]);
    await off.engine.conversations.deleteMessage(gone!);
    await off.engine.idle();

    expect(await off.engine.sync.status()).toMatchObject({ state: 'off', pending: 0 });
    expect((await off.engine.sync.syncNow()).state).toBe('off');
    expect(off.cable.calls).toBe(0);
    expect(await logRows(off)).toBe(0);
    expect(await off.store.db.query('SELECT * FROM sync_state')).toEqual([]);

    // The same writes with sync on do reach the log: the check above can fail.
    await off.engine.sync.enable({ relayUrl });
    await off.engine.conversations.rename('c-off', 'Now synced');
    await off.engine.sync.syncNow();
    expect(await logRows(off)).toBeGreaterThan(0);
    expect(off.cable.calls).toBeGreaterThan(0);
  }, 120_000);

  it("an edit written elsewhere replaces the turn's text, and a clock far ahead is reported while the order holds", async () => {
    const [a, b, phrase] = await paired();
    const [turn] = await chat(a, 'c-edit', [uniqueWord()]);
    await a.engine.sync.syncNow();
    await b.engine.sync.syncNow();

    // A third device, its clock 11 minutes ahead, edits the turn (as versioned edits will).
    const keys = await deriveSyncKeys(phrase);
    const ahead = new HybridClock('phone-ahead', { now: () => Date.now() + SKEW_LIMIT_MS + 60_000 });
    const marker = uniqueWord();
    const edit = stampEvent({ kind: 'turn.edited', turnId: turn!, text: turnText(marker) }, ahead);
    await new DurableStream({ url: `${relayUrl}/v1/stream/${keys.ownerId}`, contentType: 'application/json' }).append(
      JSON.stringify(await sealEvent(keys, edit)),
    );

    for (const d of [a, b]) {
      const status = await d.engine.sync.syncNow();
      expect(status.clockSkewMs).toBeGreaterThan(SKEW_LIMIT_MS);
      expect((await d.store.getMessage(turn!))!.content).toBe(turnText(marker));
      expect((await d.engine.conversations.search(marker)).map((h) => h.message.id)).toEqual([turn]);
    }
    // A later local rename still orders after the skewed edit (the clock moved past it), and both agree.
    await a.engine.conversations.rename('c-edit', 'Edited elsewhere');
    await a.engine.sync.syncNow();
    await b.engine.sync.syncNow();
    expect((await b.store.getConversation('c-edit'))!.title).toBe('Edited elsewhere');
    expect(await a.engine.sync.stateHash()).toBe(await b.engine.sync.stateHash());
  }, 120_000);

  it('settings that follow the person sync; the endpoint and the time zone stay on the device', async () => {
    const [a, b] = await paired();
    // Both devices set 'off' before pairing (device()); B joined, so it kept the memory's setting and sent none of its own.
    expect((await b.store.db.query("SELECT count(*) AS n FROM sync_log WHERE origin = 'local' AND kind = 'setting.set'"))[0]!.n).toBe(0);
    await a.engine.synthesis.setPolicy('eager');
    await a.engine.settings.setAnswerSettings({ budgetTokens: 4000 });
    await a.engine.settings.setGlobalMemory({ useChatHistory: false });
    await a.engine.settings.setTimeZone('Asia/Tokyo');
    await a.engine.sync.syncNow();
    await b.engine.sync.syncNow();
    expect(await b.engine.synthesis.policy()).toBe('eager');
    expect((await b.engine.settings.answerSettings()).budgetTokens).toBe(4000);
    expect((await b.engine.settings.globalMemory()).useChatHistory).toBe(false);
    expect((await b.engine.settings.timeZone()).source).toBe('browser');
    expect(await logHolds(a, 'Asia/Tokyo')).toBe(0);
    // B changes one back; A follows (the later change wins), and nothing echoes.
    await b.engine.synthesis.setPolicy('off');
    await b.engine.sync.syncNow();
    await a.engine.sync.syncNow();
    expect(await a.engine.synthesis.policy()).toBe('off');
    expect((await a.engine.sync.status()).pending).toBe(0);
    expect(await a.engine.sync.stateHash()).toBe(await b.engine.sync.stateHash());
  }, 120_000);

  it('events that could not be applied (a failed write) come again on the next read instead of being lost', async () => {
    const [a, b] = await paired();
    const append = b.store.appendTurns.bind(b.store);
    let failures = 1;
    b.store.appendTurns = async (...args) => {
      if (failures-- > 0) throw new Error('The disk is full.');
      return append(...args);
    };
    const messages: string[] = [];
    b.engine.on((event) => {
      if (event.type === 'sync-status' && event.status.message) messages.push(event.status.message);
    });
    const ids = await chat(a, 'c-retry', [uniqueWord(), uniqueWord()]);
    await a.engine.sync.syncNow();
    // B's live tail or this call meets the failure first; either way a later read must bring the turns.
    await b.engine.sync.syncNow();
    await vi.waitFor(
      async () => {
        await b.engine.sync.syncNow();
        expect((await b.engine.conversations.messages('c-retry')).map((m) => m.id)).toEqual(ids);
      },
      { timeout: 30_000, interval: 300 },
    );
    expect(failures).toBeLessThan(0); // the write did fail once
    expect(messages.some((m) => /disk is full/.test(m))).toBe(true);
    expect(await b.engine.sync.stateHash()).toBe(await a.engine.sync.stateHash());
  }, 120_000);

  it('a device killed while it pulls a memory in gets every turn when it opens again', async () => {
    const a = await device();
    const words = Array.from({ length: 450 }, () => uniqueWord()); // more than two apply batches
    const ids = await chat(a, 'c-big', words);
    const { phrase } = await a.engine.sync.enable({ relayUrl });
    await a.engine.sync.syncNow();

    // B: the first batch of turns is written, then the tab dies in the middle of the second.
    const store = await openNodeStore();
    const settings = new MemorySettingsStore();
    const append = store.appendTurns.bind(store);
    let calls = 0;
    let dead = false;
    store.appendTurns = async (...args) => {
      if (dead) return new Promise(() => undefined); // a dead tab never finishes a write
      if (++calls === 2) {
        dead = true;
        first.stop();
        return new Promise(() => undefined);
      }
      return append(...args);
    };
    const first = createEngine(store, { llm: null, settings, relayFor: (url) => new DurableStreamsRelay(url) });
    await first.start();
    await first.synthesis.setPolicy('off');
    void first.sync.join({ phrase, relayUrl }).catch(() => undefined);
    await vi.waitFor(() => expect(dead).toBe(true), { timeout: 30_000, interval: 100 });
    const before = (await store.listMessages('c-big')).length;
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(ids.length);

    // Opened again: sync resumes from the kept phrase and the missing turns arrive.
    store.appendTurns = append;
    const again = createEngine(store, { llm: null, settings, relayFor: (url) => new DurableStreamsRelay(url) });
    await again.start();
    devices.push({ engine: again, store, cable: new RelayCable() });
    await vi.waitFor(
      async () => {
        await again.sync.syncNow();
        expect((await store.listMessages('c-big')).map((m) => m.id)).toEqual(ids);
      },
      { timeout: 60_000, interval: 500 },
    );
    expect(await again.sync.stateHash()).toBe(await a.engine.sync.stateHash());
  }, 120_000);

  it('a large history imported while syncing reaches the other device once, and the same import there adds nothing', async () => {
    const [a, b] = await paired();
    const file = longTurnExport(40); // 400 turns of about 20,000 characters
    const importing = a.engine.data.importHistory(file, { format: 'chatgpt', importId: 'big', policy: 'off' });
    // Sync never blocks writing: B chats (and its turn syncs) while A's import runs.
    const [onB] = await chat(b, 'c-during', [uniqueWord()]);
    const report = await importing;
    expect(report).toMatchObject({ conversations: 40, turns: 400 });
    await vi.waitFor(
      async () => {
        await a.engine.sync.syncNow();
        await b.engine.sync.syncNow();
        expect((await b.engine.data.stats()).messageCount).toBe(401);
        expect(await a.store.getMessage(onB!)).not.toBeNull();
      },
      { timeout: 90_000, interval: 1_000 },
    );
    // The same export imported on B: every turn is there already, nothing is doubled anywhere.
    const again = await b.engine.data.importHistory(file, { format: 'chatgpt', importId: 'again', policy: 'off' });
    expect(again).toMatchObject({ turns: 0, alreadyPresent: 400 });
    await b.engine.sync.syncNow();
    await a.engine.sync.syncNow();
    for (const d of [a, b]) expect((await d.engine.data.stats()).messageCount).toBe(401);
    expect(await a.engine.sync.stateHash()).toBe(await b.engine.sync.stateHash());
    expect(await a.engine.conversations.messages('chatgpt:conv-7')).toHaveLength(10);
    expect((await a.engine.conversations.messages('chatgpt:conv-7')).map((m) => m.content)).toEqual(
      (await b.engine.conversations.messages('chatgpt:conv-7')).map((m) => m.content),
    );
  }, 180_000);

  it('versions: an edit hides the earlier version on both devices, showing it again brings it back, deleting the message deletes every version', async () => {
    const [a, b] = await paired();
    await a.engine.conversations.create({ id: 'c-ver', title: 'Versions' });
    const first = uniqueWord();
    const sent = await a.engine.conversations.send({ id: randomUUID(), conversationId: 'c-ver', content: turnText(first) });
    await a.engine.sync.syncNow();
    await vi.waitFor(async () => expect(await b.store.getMessage(sent.id)).not.toBeNull(), { timeout: 30_000, interval: 200 });

    // A edits the message: a new version; the first is kept on A, and leaves B's chat.
    const second = uniqueWord();
    const edited = await a.engine.conversations.send({
      id: randomUUID(),
      conversationId: 'c-ver',
      content: turnText(second),
      replaces: sent.id,
    });
    const shownOn = async (d: Device) => (await d.engine.conversations.messages('c-ver')).map((m) => m.id);
    await vi.waitFor(
      async () => {
        await a.engine.sync.syncNow();
        await b.engine.sync.syncNow();
        expect(await shownOn(b)).toEqual([edited.id]);
      },
      { timeout: 30_000, interval: 300 },
    );
    expect(await shownOn(a)).toEqual([edited.id]);
    expect(await a.engine.conversations.versions('c-ver')).toEqual([expect.objectContaining({ afterId: '', shown: 2, count: 2 })]);
    // Hidden is not deleted: its words stay in the synced log for showing it again.
    expect(await logHolds(b, first)).toBeGreaterThan(0);

    // A shows the first version again: B shows it again too.
    await a.engine.conversations.showVersion('c-ver', '', 1);
    await vi.waitFor(
      async () => {
        await a.engine.sync.syncNow();
        await b.engine.sync.syncNow();
        expect(await shownOn(b)).toEqual([sent.id]);
      },
      { timeout: 30_000, interval: 300 },
    );
    expect((await b.engine.conversations.search(first)).map((h) => h.message.id)).toEqual([sent.id]);
    expect(await a.engine.sync.stateHash()).toBe(await b.engine.sync.stateHash());

    // Deleting the message deletes every version, on every device, words and all.
    await a.engine.conversations.deleteMessage(sent.id);
    await vi.waitFor(
      async () => {
        await a.engine.sync.syncNow();
        await b.engine.sync.syncNow();
        expect(await shownOn(b)).toEqual([]);
        for (const d of [a, b]) for (const word of [first, second]) expect(await logHolds(d, word)).toBe(0);
      },
      { timeout: 30_000, interval: 300 },
    );
    expect(await a.engine.sync.stateHash()).toBe(await b.engine.sync.stateHash());
  }, 120_000);

  it('leaving keeps the memory here and forgets the phrase and the log', async () => {
    const [a, b] = await paired();
    await chat(a, 'c-stay', [uniqueWord(), uniqueWord()]);
    await a.engine.sync.syncNow();
    await b.engine.sync.syncNow();
    const before = await b.engine.conversations.list();
    expect(before.map((c) => c.id)).toEqual(['c-stay']);
    await b.engine.sync.leave();
    expect((await b.engine.sync.status()).state).toBe('off');
    expect(await logRows(b)).toBe(0);
    expect(await b.engine.conversations.list()).toEqual(before);
  }, 60_000);
  it('remove from relay: a new phrase, the old copy deleted on the relay, devices on the old phrase stop and keep their memory', async () => {
    const [a, b, phrase] = await paired();
    const marker = uniqueWord();
    const [turnId] = await chat(a, 'c-move', [marker, uniqueWord()]);
    await a.engine.sync.syncNow();
    await vi.waitFor(async () => expect(await b.store.getMessage(turnId!)).not.toBeNull(), { timeout: 30_000, interval: 200 });
    const oldOwner = (await deriveSyncKeys(phrase)).ownerId;
    const oldUrl = `${relayUrl}/v1/stream/${oldOwner}`;
    const oldItems = (await (await stream<{ ct: string }>({ url: oldUrl, live: false })).json()) as { ct: string }[];
    expect(oldItems.length).toBeGreaterThan(2);

    const moved = await a.engine.sync.removeFromRelay();
    expect(moved.phrase.split(' ')).toHaveLength(12);
    expect(moved.phrase).not.toBe(phrase);
    expect(moved.status.state).toBe('synced');
    // The old copy is gone from the relay (a HEAD finds no stream) …
    expect((await DurableStream.head({ url: oldUrl })).exists).toBe(false);
    // … and B, which still holds the old phrase, stops instead of uploading it all again, keeping its memory.
    await vi.waitFor(
      async () => {
        const status = await b.engine.sync.status();
        expect(status.state).toBe('off');
        expect(status.message).toMatch(/join again with the new phrase/);
      },
      { timeout: 30_000, interval: 200 },
    );
    expect(await b.store.getMessage(turnId!)).not.toBeNull();
    expect(await logRows(b)).toBe(0);
    expect((await DurableStream.head({ url: oldUrl })).exists).toBe(false);

    // The old phrase opens nothing any more; the new one brings the whole memory to a new device.
    const c = await device();
    await expect(c.engine.sync.join({ phrase, relayUrl })).rejects.toThrow(/no longer opens this memory/);
    await c.engine.sync.join({ phrase: moved.phrase, relayUrl });
    await c.engine.sync.syncNow();
    expect((await c.engine.conversations.search(marker)).map((h) => h.message.id)).toEqual([turnId]);
    expect(await c.engine.sync.stateHash()).toBe(await a.engine.sync.stateHash());

    // No ciphertext of the old owner is left in the relay's files.
    for (const d of devices.splice(0)) {
      d.engine.stop();
      await d.store.db.close();
    }
    await stopRelay(relay);
    const files = await filesUnder(dataDir);
    for (const item of oldItems.slice(0, 5)) expect(files.some((bytes) => bytes.includes(Buffer.from(item.ct.slice(0, 64))))).toBe(false);
    relay = new DurableStreamTestServer({ host: '127.0.0.1', port, dataDir, longPollTimeout: 1_000 });
    await relay.start();
  }, 120_000);
  it('a removal made while the relay cannot be reached deletes the old copy once it can', async () => {
    const [a, , phrase] = await paired();
    await chat(a, 'c-later', [uniqueWord(), uniqueWord()]);
    await a.engine.sync.syncNow();
    const oldUrl = `${relayUrl}/v1/stream/${(await deriveSyncKeys(phrase)).ownerId}`;
    a.cable.plugged = false;
    const moved = await a.engine.sync.removeFromRelay();
    expect(moved.status.state).toBe('relay-unreachable');
    expect((await DurableStream.head({ url: oldUrl })).exists).toBe(true); // nothing could be deleted yet
    a.cable.plugged = true;
    expect((await a.engine.sync.syncNow()).state).toBe('synced');
    expect((await DurableStream.head({ url: oldUrl })).exists).toBe(false);
    const newUrl = `${relayUrl}/v1/stream/${(await deriveSyncKeys(moved.phrase)).ownerId}`;
    expect((await DurableStream.head({ url: newUrl })).exists).toBe(true);
  }, 60_000);
  it('projects sync: created with their mode and instructions, chats moved in, edits both ways, deleted with chats kept or deleted', async () => {
    const [a, b] = await paired();
    const thesis = await a.engine.projects.create({
      name: 'Thesis',
      instructions: 'Answer in British English.',
      memory: 'project-only',
      useProfile: false,
    });
    await chat(a, 'c-ch1', [uniqueWord(), uniqueWord()], 'Chapter one');
    await a.engine.projects.move('c-ch1', thesis.id);
    const house = await a.engine.projects.create({ name: 'House move', memory: 'shared' });
    const [doomed] = await chat(a, 'c-boxes', [uniqueWord()], 'Boxes');
    await a.engine.projects.move('c-boxes', house.id);
    await a.engine.sync.syncNow();
    await vi.waitFor(
      async () => {
        await b.engine.sync.syncNow();
        expect((await b.engine.conversations.list()).find((c) => c.id === 'c-boxes')?.projectId).toBe(house.id);
      },
      { timeout: 30_000, interval: 200 },
    );
    const onB = await b.engine.projects.list();
    expect(onB.find((p) => p.id === thesis.id)).toMatchObject({
      name: 'Thesis',
      instructions: 'Answer in British English.',
      memory: 'project-only',
      useProfile: false,
      archived: false,
    });
    expect((await b.engine.conversations.list()).find((c) => c.id === 'c-ch1')?.projectId).toBe(thesis.id);

    // B renames and archives; A follows.
    await b.engine.projects.edit(thesis.id, { name: 'Thesis (final)', archived: true });
    await b.engine.sync.syncNow();
    await vi.waitFor(
      async () => {
        await a.engine.sync.syncNow();
        expect(await a.engine.projects.list()).toContainEqual(
          expect.objectContaining({ id: thesis.id, name: 'Thesis (final)', archived: true }),
        );
      },
      { timeout: 30_000, interval: 200 },
    );

    // A deletes one project keeping its chats, and the other with its chats; B follows both.
    await a.engine.projects.delete(thesis.id, 'keep');
    await a.engine.projects.delete(house.id, 'delete');
    await a.engine.sync.syncNow();
    await vi.waitFor(
      async () => {
        await b.engine.sync.syncNow();
        expect((await b.engine.projects.list()).map((p) => p.id)).toEqual([]);
        expect(await b.store.getMessage(doomed!)).toBeNull();
      },
      { timeout: 30_000, interval: 200 },
    );
    expect((await b.engine.conversations.list()).find((c) => c.id === 'c-ch1')?.projectId).toBeNull();
    expect(await b.engine.sync.stateHash()).toBe(await a.engine.sync.stateHash());
  }, 120_000);
  it('Forget on one device removes the turns, the title words and the hand-written memory on the other', async () => {
    const [a, b] = await paired();
    const word = uniqueWord();
    const [kept, gone] = await chat(a, 'c-forget', [uniqueWord(), word], `Plans for ${word} weekend`);
    const memory = await a.engine.profile.addMemory(`Keeps the ${word} key under the mat.`);
    await a.engine.sync.syncNow();
    await vi.waitFor(
      async () => {
        await b.engine.sync.syncNow();
        expect(await b.store.getMessage(gone!)).not.toBeNull();
        expect((await b.engine.profile.list()).map((p) => p.id)).toContain(memory.id);
      },
      { timeout: 30_000, interval: 200 },
    );

    const candidates = await a.engine.memory.forgetPreview(word);
    expect(candidates.map((c) => c.kind)).toEqual(expect.arrayContaining(['turn', 'title']));
    await a.engine.memory.forget(
      candidates.map((c) => ({ kind: c.kind, id: c.id })),
      word,
    );
    expect(await a.store.getMessage(gone!)).toBeNull();
    await a.engine.sync.syncNow();
    await vi.waitFor(
      async () => {
        await b.engine.sync.syncNow();
        expect(await b.store.getMessage(gone!)).toBeNull();
        expect((await b.engine.conversations.list()).find((c) => c.id === 'c-forget')?.title).not.toContain(word);
      },
      { timeout: 30_000, interval: 200 },
    );
    expect(await b.store.getMessage(kept!)).not.toBeNull();
    expect(await b.engine.conversations.search(word)).toEqual([]);
    expect(JSON.stringify(await b.engine.profile.list())).not.toContain(word);
    expect(await logHolds(b, word)).toBe(0);
    expect(await b.engine.sync.stateHash()).toBe(await a.engine.sync.stateHash());
  }, 120_000);
  it('memories asked for in a message and memories imported from another assistant sync; the first goes with its message', async () => {
    const [a, b] = await paired();
    await a.engine.conversations.create({ id: 'c-diet', title: 'Dinner plans' });
    const asked = await a.engine.conversations.send({
      id: randomUUID(),
      conversationId: 'c-diet',
      content: 'Remember that I am vegetarian and allergic to walnuts.',
    });
    await a.engine.profile.importMemories({ source: 'ChatGPT', items: [{ text: 'Lives in Lisbon since 2021.', kind: 'about', at: null }] });
    const onA = await a.engine.profile.list();
    const fromMessage = onA.find((p) => /vegetarian/.test(p.value))!;
    const imported = onA.find((p) => /Lisbon/.test(p.value))!;
    expect(fromMessage.evidence).toEqual([`message:${asked.id}`]);
    await a.engine.sync.syncNow();
    await vi.waitFor(
      async () => {
        await b.engine.sync.syncNow();
        expect((await b.engine.profile.list()).map((p) => p.id)).toEqual(expect.arrayContaining([fromMessage.id, imported.id]));
      },
      { timeout: 30_000, interval: 200 },
    );
    const onB = await b.engine.profile.list();
    expect(onB.find((p) => p.id === fromMessage.id)?.evidence).toEqual([`message:${asked.id}`]);
    // The import's origin travels: B's history says where the memory came from.
    expect(onB.find((p) => p.id === imported.id)?.history.find((h) => h.op === 'add')?.reason).toBe(
      onA.find((p) => p.id === imported.id)?.history.find((h) => h.op === 'add')?.reason,
    );

    // Deleting the message on A takes its memory away on both devices.
    await a.engine.conversations.deleteMessage(asked.id);
    expect((await a.engine.profile.list()).map((p) => p.id)).not.toContain(fromMessage.id);
    await a.engine.sync.syncNow();
    await vi.waitFor(
      async () => {
        await b.engine.sync.syncNow();
        expect((await b.engine.profile.list()).map((p) => p.id)).not.toContain(fromMessage.id);
      },
      { timeout: 30_000, interval: 200 },
    );
    expect((await b.engine.profile.list()).map((p) => p.id)).toContain(imported.id);
    expect(await b.engine.sync.stateHash()).toBe(await a.engine.sync.stateHash());
  }, 120_000);
  it('the endpoint key stays on the device unless "also sync the endpoint key" is ticked, and stops going when it is unticked', async () => {
    const [a, b, phrase] = await paired();
    const key = `sk-${uniqueWord()}`;
    await a.engine.settings.saveLlm({ baseUrl: 'http://127.0.0.1:9/v1', model: 'small-model', apiKey: key });
    await chat(a, 'c-key', [uniqueWord()]);
    await a.engine.sync.syncNow();
    await b.engine.sync.syncNow();
    expect((await b.engine.settings.llm()).configured).toBe(false);
    expect(await logHolds(a, key)).toBe(0);

    expect((await a.engine.sync.shareEndpoint(true)).sharesEndpoint).toBe(true);
    await vi.waitFor(
      async () => {
        await b.engine.sync.syncNow();
        expect(await b.engine.settings.llm()).toMatchObject({ baseUrl: 'http://127.0.0.1:9/v1', model: 'small-model', hasKey: true });
      },
      { timeout: 30_000, interval: 200 },
    );
    // A new key on A follows while sharing.
    const key2 = `sk-${uniqueWord()}`;
    await a.engine.settings.saveLlm({ baseUrl: 'http://127.0.0.1:9/v1', model: 'bigger-model', apiKey: key2 });
    await a.engine.sync.syncNow();
    await vi.waitFor(
      async () => {
        await b.engine.sync.syncNow();
        expect((await b.engine.settings.llm()).model).toBe('bigger-model');
      },
      { timeout: 30_000, interval: 200 },
    );

    // Unticked: a device joining later does not get the endpoint.
    expect((await a.engine.sync.shareEndpoint(false)).sharesEndpoint).toBe(false);
    const c = await device();
    await c.engine.sync.join({ phrase, relayUrl });
    await c.engine.sync.syncNow();
    expect((await c.engine.conversations.list()).map((x) => x.id)).toContain('c-key');
    expect((await c.engine.settings.llm()).configured).toBe(false);
    // B keeps what it was given; B's own later endpoint is not sent back (B does not share).
    await b.engine.settings.saveLlm({ baseUrl: 'http://127.0.0.1:8/v1', model: 'b-model', apiKey: null });
    await b.engine.sync.syncNow();
    await a.engine.sync.syncNow();
    expect((await a.engine.settings.llm()).model).toBe('bigger-model');
  }, 120_000);
  it('a device offline for weeks catches up: hundreds of turns, renames and deletions, nothing lost or doubled', async () => {
    const [a, b] = await paired();
    b.cable.plugged = false;
    const kept: string[] = [];
    const dropped: string[] = [];
    for (let c = 0; c < 6; c++) {
      const ids = await chat(
        a,
        `c-away-${c}`,
        Array.from({ length: 40 }, () => uniqueWord()),
        `Week ${c + 1}`,
      );
      kept.push(...ids.slice(0, 35));
      dropped.push(...ids.slice(35));
      await a.engine.conversations.rename(`c-away-${c}`, `Week ${c + 1} (done)`);
    }
    for (const id of dropped) await a.engine.conversations.deleteMessage(id);
    await a.engine.sync.syncNow();
    expect((await b.engine.sync.syncNow()).state).not.toBe('synced'); // still cut off
    b.cable.plugged = true;
    await vi.waitFor(
      async () => {
        await b.engine.sync.syncNow();
        expect(await b.engine.sync.stateHash()).toBe(await a.engine.sync.stateHash());
      },
      { timeout: 60_000, interval: 300 },
    );
    const count = Number((await b.store.db.query<{ n: number }>('SELECT count(*) AS n FROM messages'))[0]!.n);
    expect(count).toBe(kept.length);
    for (const id of dropped) expect(await b.store.getMessage(id)).toBeNull();
    expect((await b.engine.conversations.list()).map((c) => c.title).sort()).toEqual(
      Array.from({ length: 6 }, (_, c) => `Week ${c + 1} (done)`).sort(),
    );
  }, 120_000);
});
