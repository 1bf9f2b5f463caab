/**
 * Import is all or nothing: every step after the swap that can
 * fail is made to fail once, and the previous memory must be back byte for byte, started again,
 * with an error that says so. Also: a successful import restarts the settings readers and the
 * job queue, and an unknown embedder falls back to the bundled model with a notice.
 */
import { describe, expect, it, vi } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { MemoryEngine } from '../../src/core/engine/MemoryEngine';
import type { EmbedderProvider } from '../../src/core/base/ports';
import type { JobStore } from '../../src/core/base/jobs';
import { topicEmbedder } from '../support/topicEmbedder';
import { base } from './importFuzzCases';
import type { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';

const embedder = topicEmbedder(['bees', 'tomatoes']);
/** Knows only its bundled model, like the app. */
const provider: EmbedderProvider = {
  defaultModelId: embedder.id,
  embedder: (id) => {
    if (id !== embedder.id) throw Object.assign(new Error(`Unknown model ${id}`), { code: 'MODEL_UNAVAILABLE' });
    return embedder;
  },
};

/** Methods made to throw once, after the swap (armed when stageImport resolves). */
type Faults = { store?: string[]; jobs?: string[]; rollback?: boolean };

function faulty<T extends object>(target: T, methods: string[], armed: () => boolean): T {
  const pending = new Set(methods);
  return new Proxy(target, {
    get(t, prop, _r) {
      const v = Reflect.get(t, prop, t) as unknown;
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        if (armed() && pending.has(String(prop))) {
          pending.delete(String(prop));
          return Promise.reject(new Error(`injected failure in ${String(prop)}`));
        }
        return (v as (...a: unknown[]) => unknown).apply(t, args);
      };
    },
  });
}

async function setup(faults: Faults = {}) {
  const store = await openNodeStore();
  let armed = false;
  const wrapped = faulty(store, faults.store ?? [], () => armed);
  const stage = store.stageImport.bind(store);
  (wrapped as { stageImport: SqliteMemoryStore['stageImport'] }).stageImport = async (bytes, options) => {
    const staged = await stage(bytes, options);
    armed = true;
    if (!faults.rollback) return staged;
    return { summary: staged.summary, rollback: () => Promise.reject(new Error('injected restore failure')) };
  };
  const jobs = faulty<JobStore>(store.jobs, faults.jobs ?? [], () => armed);
  const engine = new MemoryEngine({ store: wrapped, embedders: provider, episodes: store.episodes, jobs, knowledge: store.knowledge });
  await engine.start();
  await engine.conversations.create({ id: 'mine', title: 'My own memory' });
  await engine.conversations.appendTurn({ id: 'own0', conversationId: 'mine', role: 'user', content: 'I keep bees on the roof.' });
  await engine.synthesis.setPolicy('eager');
  await engine.idle();
  return { store, engine };
}

/**
 * Byte-for-byte equality of two database images, except the 4-byte schema cookie (header offset
 * 40): SQLite's backup API bumps it on every replacement so other connections re-read the schema.
 */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i] && !(i >= 40 && i < 44)) return false;
  return true;
}

const FAILURE_POINTS: Array<[string, Faults]> = [
  ['settings reload (consolidation policy)', { store: ['getMeta'] }],
  ['indexer start-up (counting turns)', { store: ['countItems'] }],
  ['re-embedding set-up (unknown model replaced)', { store: ['setMeta'] }],
  ['job queue start', { jobs: ['recoverInterrupted'] }],
];

describe('import is all or nothing', () => {
  for (const [point, faults] of FAILURE_POINTS) {
    it(`a failure in ${point} puts the previous memory back byte for byte`, async () => {
      const { store, engine } = await setup(faults);
      const before = await store.db.serialize();
      // The unknown embedder makes the indexer set up re-embedding (writes embedder.* to meta).
      const file = await (async () => {
        const s = await openNodeStore();
        await s.db.deserialize(await base());
        await s.db.exec("INSERT OR REPLACE INTO meta VALUES ('embedder.active', 'gone/model')");
        return s.db.serialize();
      })();
      const err = await engine.data.importDatabase(file).then(
        () => null,
        (e: unknown) => e as { code: string; message: string; detail?: string },
      );
      expect(err?.code).toBe('IMPORT_ROLLED_BACK');
      expect(err?.message).toMatch(/previous memory was put back unchanged/);
      expect(err?.detail).toMatch(/injected failure/);
      expect(sameBytes(await store.db.serialize(), before)).toBe(true);
      // and it runs again: new turns are stored and embedded, the policy was re-read
      await engine.conversations.appendTurn({ id: 'own1', conversationId: 'mine', role: 'user', content: 'The bees swarmed.' });
      await engine.idle();
      expect((await engine.conversations.messages('mine')).map((m) => m.id)).toEqual(['own0', 'own1']);
      expect((await engine.indexing.embeddingStatus())?.embedded).toBe(2);
      expect(await engine.synthesis.policy()).toBe('eager');
    });
  }

  it('a failed swap changes nothing and says so', async () => {
    const { store, engine } = await setup();
    const before = await store.db.serialize();
    vi.spyOn(store.db, 'replaceWith').mockRejectedValueOnce(new Error('disk full'));
    await expect(engine.data.importDatabase(await base())).rejects.toMatchObject({
      code: 'IMPORT_WRITE_FAILED',
      message: expect.stringMatching(/current memory is unchanged/),
    });
    expect(sameBytes(await store.db.serialize(), before)).toBe(true);
  });

  it('when putting the previous memory back fails too, the message says that', async () => {
    const { engine } = await setup({ store: ['countItems'], rollback: true });
    await expect(engine.data.importDatabase(await base())).rejects.toMatchObject({
      code: 'IMPORT_RESTORE_FAILED',
      message: expect.stringMatching(/putting your previous memory back failed/),
    });
  });

  it('a successful import restarts the settings readers and the job queue, and replaces an unknown embedder', async () => {
    const { store, engine } = await setup({});
    const s = await openNodeStore();
    await s.db.deserialize(await base());
    await s.db.exec(
      "INSERT OR REPLACE INTO meta VALUES ('embedder.active', 'gone/model'), ('answer.budget_tokens', '1000000000000000'), ('llm.base_url', 'https://attacker.example')",
    );
    const recover = vi.spyOn(store.jobs, 'recoverInterrupted');
    const summary = await engine.data.importDatabase(await s.db.serialize());
    expect(summary.messageCount).toBe(12);
    expect(summary.notices.join(' ')).toMatch(/"gone\/model".*re-indexed with the bundled model/);
    expect(summary.notices.join(' ')).toMatch(/reset to their defaults: answer.budget_tokens/);
    expect(summary.notices.join(' ')).toMatch(/1 setting this version does not use was ignored/);
    expect(recover).toHaveBeenCalled();
    // The file set the policy to 'off' and the budget is back to the default.
    expect(await engine.synthesis.policy()).toBe('off');
    expect((await engine.settings.answerSettings()).budgetTokens).toBe(2500);
    await engine.idle();
    const status = await engine.indexing.embeddingStatus();
    expect(status).toMatchObject({ activeModel: embedder.id, embedded: 12, total: 12 });
    expect(await store.getMeta('llm.base_url')).toBeNull();
  });
});
