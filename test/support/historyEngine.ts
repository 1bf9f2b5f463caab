/**
 * An engine that imports chat history over a fresh SQLite store (episodes and jobs wired, no
 * embedder, no endpoint), closed after each test. Call once at the top of a test file.
 */
import { afterEach } from 'vitest';
import { MemoryEngine } from '../../src/core/engine/MemoryEngine';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { readHistory } from '../../src/import/readHistory';
import type { HistoryReader } from '../../src/core/base/historyImport';
import type { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';

export function historyEngines(): { engine: (reader?: HistoryReader) => Promise<MemoryEngine>; store: () => SqliteMemoryStore } {
  let store: SqliteMemoryStore | null = null;
  afterEach(async () => {
    await store?.db.close();
    store = null;
  });
  return {
    async engine(reader = readHistory) {
      store = await openNodeStore();
      return new MemoryEngine({ store, episodes: store.episodes, jobs: store.jobs, projects: store.projects, historyReader: reader });
    },
    store: () => store!,
  };
}
