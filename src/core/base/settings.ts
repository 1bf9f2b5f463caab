/**
 * LLM endpoint settings. The API key is stored apart from the memory database (docs/architecture.md, Reliability): the
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
  /**
   * The sync recovery phrase, kept beside the key and for the same reason: a downloaded `.sqlite`
   * file must never carry it (docs/sync.md). Optional: without them this device cannot turn sync on.
   */
  loadSyncPhrase?(): Promise<string | null>;
  saveSyncPhrase?(phrase: string | null): Promise<void>;
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

/**
 * Settings kept in the memory database's `meta` table, each defined once here: its key, its default
 * and its valid range. The engine reads and writes them through these definitions, and an import
 * whitelists a file's `meta` against them (anything else in a file is not a setting of ours).
 */
export const META_KEYS = {
  policy: 'consolidation.policy',
  llmBoundaryCheck: 'segmentation.llm_check',
  answerBudget: 'answer.budget_tokens',
  sufficiencyCheck: 'answer.sufficiency_check',
  /** The user's IANA time zone, when chosen in Settings; otherwise the browser's is used. */
  timeZone: 'user.time_zone',
  /** Defaults of the two memory switches for new conversations (Settings → Memory); '1' or '0'. */
  useMemoryDefault: 'conversation.use_memory_default',
  rememberDefault: 'conversation.remember_default',
} as const;

/** Tokens of memory sent with a question (Settings → Answers). */
export const ANSWER_BUDGET = { default: 2500, min: 200, max: 100_000 } as const;

/** Ask the model whether the context suffices (one extra call per answer); off unless chosen. */
export const DEFAULT_SUFFICIENCY_CHECK = false;

/** The optional LLM boundary check of segmentation (one small call per turn); off unless chosen. */
export const DEFAULT_LLM_BOUNDARY_CHECK = false;

/**
 * The memory budget when answers come from a small model on this device: its window is small
 * (6–8k tokens, with the instructions, the recent turns and the reply to fit) and small models
 * lose the thread in long contexts, so fewer, better memories serve it better.
 */
export const DEVICE_ANSWER_BUDGET = 1000;

/** The default budget: `contextTokens` is the window of a model on this device (absent for an endpoint). */
export function defaultAnswerBudget(contextTokens?: number): number {
  if (contextTokens === undefined || !Number.isFinite(contextTokens) || contextTokens <= 0) return ANSWER_BUDGET.default;
  return Math.max(ANSWER_BUDGET.min, Math.min(DEVICE_ANSWER_BUDGET, Math.floor(contextTokens / 6)));
}

/** A stored budget, or the default (for this model) when it is missing or out of range. */
export function answerBudgetOf(stored: string | null, contextTokens?: number): number {
  const n = Number(stored);
  return stored !== null && Number.isInteger(n) && n >= ANSWER_BUDGET.min && n <= ANSWER_BUDGET.max
    ? n
    : defaultAnswerBudget(contextTokens);
}

/** A stored '1'/'0' flag, or the default when it is missing or anything else. */
export function flagOf(stored: string | null, fallback: boolean): boolean {
  return stored === '1' ? true : stored === '0' ? false : fallback;
}
