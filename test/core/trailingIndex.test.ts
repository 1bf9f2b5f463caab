import { describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { createEngine } from '../../src/host/createEngine';
import type { Embedder, EmbedderProvider } from '../../src/core/base/ports';
import type { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import { TrailingIndex, type IndexingStatus } from '../../src/core/engine/trailingIndex';
import type { EmbeddingStatus } from '../../src/core/capture/embeddingStatus';

/** A ChatGPT export of `conversations` × `turns` turns, each with a word of its own (`w<c>x<k>`). */
function exportFile(conversations: number, turns: number): File {
  const t0 = Date.UTC(2024, 0, 1) / 1000;
  const data = Array.from({ length: conversations }, (_, c) => {
    const mapping: Record<string, unknown> = { root: { id: 'root', parent: null, children: [`c${c}m0`], message: null } };
    for (let k = 0; k < turns; k++) {
      const id = `c${c}m${k}`;
      mapping[id] = {
        id, parent: k ? `c${c}m${k - 1}` : 'root', children: k < turns - 1 ? [`c${c}m${k + 1}`] : [],
        message: { id, author: { role: k % 2 ? 'assistant' : 'user' }, create_time: t0 + c * 86_400 + k * 30, content: { content_type: 'text', parts: [`turn ${k} of chat ${c} mentions w${c}x${k} and the garden`] }, metadata: {} },
      };
    }
    return { id: `conv-${c}`, title: `Chat ${c}`, create_time: t0 + c * 86_400, current_node: `c${c}m${turns - 1}`, mapping };
  });
  return new File([JSON.stringify(data)], 'conversations.json');
}

function letters(calls: number[]): Embedder {
  return {
    id: 'a@1', dim: 26,
    async embed(texts) {
      calls.push(texts.length);
      return texts.map((t) => {
        const v = new Float32Array(26);
        for (const ch of t.toLowerCase()) if (ch >= 'a' && ch <= 'z') v[ch.charCodeAt(0) - 97]! += 1;
        const n = Math.hypot(...v) || 1;
        return v.map((x) => x / n);
      });
    },
  };
}

const provider = (calls: number[]): EmbedderProvider => ({ defaultModelId: 'a', embedder: () => letters(calls) });

async function turnIndexRows(store: SqliteMemoryStore): Promise<number> {
  const [row] = await store.db.query<{ n: number }>('SELECT count(*) AS n FROM turns_fts_docsize');
  return Number(row?.n ?? 0);
}

async function queued(store: SqliteMemoryStore): Promise<number> {
  const [row] = await store.db.query<{ n: number }>('SELECT count(*) AS n FROM turn_index_queue');
  return Number(row?.n ?? 0);
}

describe('the indexing that trails a history import', () => {
  it('stores words at once, holds embedding during the import, then indexes everything and says so', async () => {
    const store = await openNodeStore();
    const calls: number[] = [];
    const engine = createEngine(store, { only: ['episodes', 'recall'], embedders: provider(calls) });
    const statuses: IndexingStatus[] = [];
    engine.on((e) => { if (e.type === 'indexing-status') statuses.push(e.status); });
    await engine.start();
    await engine.idle();
    const before = calls.length;
    const report = await engine.importHistory(exportFile(12, 10), { format: 'chatgpt', importId: 'i', policy: 'off' });
    expect(report.turns).toBe(120);
    // Embedding waited for the import (the model would have competed with it for the cores).
    expect(calls.length).toBe(before);
    // Every turn is found by its own words as soon as the import has reported it stored.
    for (const [c, k] of [[0, 0], [5, 7], [11, 9]] as const) {
      const [hit] = await engine.searchMessages(`w${c}x${k}`);
      expect(hit?.message.id).toBe(`chatgpt:conv-${c}:c${c}m${k}`);
    }
    // The turn index with neighbour context and the vectors trail the import.
    expect((await engine.indexingStatus()).state).toBe('running');

    await engine.idle();
    expect(await queued(store)).toBe(0);
    expect(await turnIndexRows(store)).toBe(120);
    expect(await store.countVectors('message', 'a@1')).toBe(120);
    expect(await engine.indexingStatus()).toMatchObject({ state: 'idle', indexed: 120, total: 120, importing: false });
    expect(statuses.some((s) => s.importing)).toBe(true);
    expect(statuses.some((s) => s.state === 'running' && s.indexed < s.total && !s.importing)).toBe(true);
    // Recall reads the turn index again once nothing is queued: a neighbour's word finds the turn.
    const recalled = await engine.recall('w3x4');
    expect(recalled.turns.map((t) => t.message.id)).toContain('chatgpt:conv-3:c3m4');
    await store.db.close();
  });

  it('resumes after a restart (a reload mid-indexing) and leaves nothing unindexed', async () => {
    const store = await openNodeStore();
    const first = createEngine(store, { only: ['episodes', 'recall'], embedders: provider([]) });
    await first.start();
    await first.importHistory(exportFile(8, 10), { format: 'chatgpt', importId: 'i', policy: 'off' });
    first.stop(); // the tab closes right after the import's report
    await first.idle();
    // Every imported turn is either indexed or still queued, and the stop left some queued.
    const left = await queued(store);
    expect(left + (await turnIndexRows(store))).toBe(80);
    expect(left).toBeGreaterThanOrEqual(1);
    expect(await store.countVectors('message', 'a@1')).toBeLessThan(80);

    const reopened = createEngine(store, { only: ['episodes', 'recall'], embedders: provider([]) });
    await reopened.start();
    await reopened.idle();
    expect(await queued(store)).toBe(0);
    expect(await turnIndexRows(store)).toBe(80);
    expect(await store.countVectors('message', 'a@1')).toBe(80);
    expect(await reopened.indexingStatus()).toMatchObject({ state: 'idle', indexed: 80, total: 80 });
    // Episodes followed the vectors: every turn belongs to one.
    const [row] = await store.db.query<{ n: number }>(`SELECT count(*) AS n FROM messages m WHERE NOT EXISTS (
      SELECT 1 FROM memcells c WHERE c.conversation_id = m.conversation_id AND m.seq BETWEEN c.first_seq AND c.last_seq)`);
    expect(Number(row?.n ?? 0)).toBe(0);
    await store.db.close();
  });

  it('indexing the queue in steps gives the same turn index as indexing it in the append', async () => {
    const direct = await openNodeStore();
    const stepped = await openNodeStore();
    for (const store of [direct, stepped]) {
      await store.createConversations([{ id: 'c', title: 't' }, { id: 'd', title: 'u' }]);
    }
    const turns = Array.from({ length: 23 }, (_, i) => ({
      id: `t${i}`, conversationId: i % 3 ? 'c' : 'd', role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant', content: `turn ${i} says word${i}`, occurredAt: Date.UTC(2024, 0, 1) + i * 60_000,
    }));
    await direct.appendTurns(turns);
    await stepped.appendTurns(turns, { deferTurnIndex: true });
    expect(await stepped.turnIndexBacklog()).toBe(23);
    const left: number[] = [];
    for (let n = await stepped.turnIndexBacklog(); n > 0;) left.push((n = await stepped.indexQueuedTurns(5)));
    expect(left).toEqual([18, 13, 8, 3, 0]);
    // Same rows, and the same neighbour context in each (a turn is found by its neighbours' words).
    for (const store of [direct, stepped]) expect(await turnIndexRows(store)).toBe(23);
    for (let i = 0; i < 23; i++) {
      const q = `SELECT rowid FROM turns_fts WHERE turns_fts MATCH ? ORDER BY rowid`;
      const a = await direct.db.query<{ rowid: number }>(q, [`word${i}`]);
      const b = await stepped.db.query<{ rowid: number }>(q, [`word${i}`]);
      expect(b.map((r) => Number(r.rowid))).toEqual(a.map((r) => Number(r.rowid)));
      expect(a.length).toBeGreaterThan(1);
    }
    await direct.db.close();
    await stepped.db.close();
  });
});

describe('the indexing status at open', () => {
  it('does not say "Indexing 0 of N" while the embedder has not counted yet, and shows the real backlog once it has', async () => {
    let embedding: EmbeddingStatus = { activeModel: 'a', targetModel: 'a', embedded: 0, total: 0, state: 'running', error: null, kinds: null };
    const statuses: IndexingStatus[] = [];
    const trailing = new TrailingIndex({
      backlog: async () => 0, indexSome: async () => 0, countTurns: async () => 5_048,
      embedding: () => embedding, pauseEmbedding: () => () => undefined, kickEmbedding: () => undefined,
      episodesBusy: () => false, onStatus: (s) => statuses.push(s),
    });
    // Just opened: the turns are counted, the embedder's count is still held back.
    expect(await trailing.status()).toMatchObject({ indexed: 5_048, total: 5_048 });
    // Counted: every turn has its vector.
    embedding = { ...embedding, embedded: 5_048, total: 5_048, state: 'idle' };
    expect(await trailing.status()).toEqual({ state: 'idle', indexed: 5_048, total: 5_048, importing: false });
    // Counted, with 48 turns still waiting for their vector: that is what it says.
    embedding = { ...embedding, embedded: 5_000, state: 'running' };
    expect(await trailing.status()).toEqual({ state: 'running', indexed: 5_000, total: 5_048, importing: false });
    expect(statuses).toEqual([]);
  });
});
