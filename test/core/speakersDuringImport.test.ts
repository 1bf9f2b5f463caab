import { describe, expect, it } from 'vitest';
import { speakersDuringImport } from '../../src/core/engine/speakersDuringImport';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { createEngine } from '../../src/host/createEngine';
import { longTurnExport } from '../support/longTurnExport';

describe('speaker names while a history import stores turns', () => {
  it('reads them for every call when no import runs, once while one runs, and afresh after it', async () => {
    let importing = false;
    let reads = 0;
    const names = speakersDuringImport(
      async () => [`speaker read ${++reads}`],
      () => importing,
    );
    expect(await names()).toEqual(['speaker read 1']);
    expect(await names()).toEqual(['speaker read 2']);
    importing = true;
    expect(await names()).toEqual(['speaker read 2']);
    expect(await names()).toEqual(['speaker read 2']);
    expect(reads).toBe(2);
    importing = false;
    expect(await names()).toEqual(['speaker read 3']);
  });

  it('an import that starts before any recall reads the names once, at its first recall', async () => {
    let reads = 0;
    const names = speakersDuringImport(
      async () => [`read ${++reads}`],
      () => true,
    );
    expect(await names()).toEqual(['read 1']);
    expect(await names()).toEqual(['read 1']);
  });

  it("recalls during an engine's history import do not scan the turns for speakers each time", async () => {
    const store = await openNodeStore();
    const speakers = store.speakers.bind(store);
    let scans = 0;
    store.speakers = () => {
      scans++;
      return speakers();
    };
    const engine = createEngine(store, { only: ['episodes', 'recall'] });
    await engine.start();
    await engine.idle();
    const stored = async () => Number((await store.db.query<{ n: number }>('SELECT count(*) AS n FROM messages'))[0]?.n ?? 0);
    const importing = engine.data.importHistory(longTurnExport(8), { format: 'chatgpt', importId: 'i', policy: 'off' });
    while ((await stored()) === 0) await new Promise((r) => setImmediate(r));
    const before = scans;
    for (let i = 0; i < 3; i++) await engine.answers.recall(`garden w0x${i}`);
    expect((await engine.indexing.status()).importing).toBe(true);
    expect(scans - before).toBeLessThanOrEqual(1);
    expect((await importing).turns).toBe(80);
    const afterImport = scans;
    await engine.answers.recall('garden w7x9');
    expect(scans).toBe(afterImport + 1); // the import has ended: the names are read again
    await engine.idle();
    await store.db.close();
  });
});
