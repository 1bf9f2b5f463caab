/**
 * LLM endpoint settings. The API key is stored apart from the memory database (DESIGN §8): the
 * SettingsStore of the browser keeps it in its own IndexedDB database, so it is never exported,
 * never imported, never written to `llm_calls`, and the UI only ever sees whether one is set.
 */
import type { Llm, LlmCallSink, LlmConnectionTest } from './ports';

export interface LlmSettings {
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey: string | null;
}

/** What the UI may see of the settings: never the key. */
export interface LlmSettingsView {
  readonly baseUrl: string;
  readonly model: string;
  readonly hasKey: boolean;
  readonly configured: boolean;
}

/** Input from the settings form. `apiKey`: a string sets it, null clears it, undefined keeps it. */
export interface LlmSettingsInput {
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey?: string | null;
}

export interface SettingsStore {
  loadLlm(): Promise<LlmSettings | null>;
  saveLlm(settings: LlmSettings | null): Promise<void>;
}

/** An Llm plus the endpoint checks the settings form needs. */
export interface EndpointClient extends Llm {
  testConnection(options?: { probe?: boolean }): Promise<LlmConnectionTest>;
  listModels(): Promise<string[]>;
}

export type LlmFactory = (settings: LlmSettings, sink: LlmCallSink | null) => EndpointClient;

export function viewOf(s: LlmSettings | null): LlmSettingsView {
  return s
    ? { baseUrl: s.baseUrl, model: s.model, hasKey: !!s.apiKey, configured: !!s.baseUrl && !!s.model }
    : { baseUrl: '', model: '', hasKey: false, configured: false };
}

/** In-memory store (tests, benchmarks). */
export class MemorySettingsStore implements SettingsStore {
  #llm: LlmSettings | null = null;
  async loadLlm(): Promise<LlmSettings | null> {
    return this.#llm;
  }
  async saveLlm(settings: LlmSettings | null): Promise<void> {
    this.#llm = settings;
  }
}
