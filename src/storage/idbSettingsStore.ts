/**
 * Browser SettingsStore: a separate IndexedDB database ("recollect-settings"), never part of the
 * SQLite file, so export/import never carries the API key. Available in workers.
 */
import type { LlmSettings, SettingsStore } from '../core/base/settings';

const DB_NAME = 'recollect-settings';
const STORE = 'settings';

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('Could not open the settings store.'));
  });
}

async function tx<T>(mode: IDBTransactionMode, run: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await open();
  try {
    return await new Promise<T>((resolve, reject) => {
      const t = db.transaction(STORE, mode);
      const req = run(t.objectStore(STORE));
      t.oncomplete = () => resolve(req.result);
      t.onerror = () => reject(t.error ?? new Error('Settings could not be saved.'));
    });
  } finally {
    db.close();
  }
}

export class IdbSettingsStore implements SettingsStore {
  async loadLlm(): Promise<LlmSettings | null> {
    const value = (await tx('readonly', (s) => s.get('llm'))) as LlmSettings | undefined;
    return value && typeof value.baseUrl === 'string' ? value : null;
  }

  async saveLlm(settings: LlmSettings | null): Promise<void> {
    await tx<unknown>('readwrite', (s) => (settings ? s.put(settings, 'llm') : s.delete('llm')) as IDBRequest<unknown>);
  }
  async loadSyncPhrase(): Promise<string | null> {
    const value = (await tx('readonly', (s) => s.get('syncPhrase'))) as string | undefined;
    return typeof value === 'string' ? value : null;
  }
  async saveSyncPhrase(phrase: string | null): Promise<void> {
    await tx<unknown>('readwrite', (s) => (phrase ? s.put(phrase, 'syncPhrase') : s.delete('syncPhrase')) as IDBRequest<unknown>);
  }
}
