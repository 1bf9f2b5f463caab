/** Endpoint settings kept in memory: the SettingsStore of tests (the app keeps them in IndexedDB). */
import type { LlmSettings, SettingsStore } from '../../src/core/base/settings';

export class MemorySettingsStore implements SettingsStore {
  #llm: LlmSettings | null = null;
  async loadLlm(): Promise<LlmSettings | null> {
    return this.#llm;
  }
  async saveLlm(settings: LlmSettings | null): Promise<void> {
    this.#llm = settings;
  }
  #phrase: string | null = null;
  async loadSyncPhrase(): Promise<string | null> {
    return this.#phrase;
  }
  async saveSyncPhrase(phrase: string | null): Promise<void> {
    this.#phrase = phrase;
  }
}
