/**
 * Settings kept in the memory or beside it: the endpoint, answers, time zone, and the memory
 * switches new conversations start with and every answer follows.
 * One group of EngineApi (src/core/protocol.ts): callers write `engine.settings.…`.
 */
import type { LlmConnectionTest } from '../base/ports';
import type { LlmSettingsInput, LlmSettingsView } from '../base/settings';
import type { ConversationMemory, GlobalMemory, StageUsage } from '../base/types';

/** The time zone in use, and whether the user chose it or it is the browser's. */
export interface TimeZoneSetting {
  readonly timeZone: string;
  readonly source: 'user' | 'browser';
}

/** How answers are composed (Settings → Answers). */
export interface AnswerSettings {
  /** Context budget in tokens for memories sent with a question. */
  readonly budgetTokens: number;
  /** What it is unless chosen: lower for a small model on this device (settings.ts defaultAnswerBudget). */
  readonly defaultBudgetTokens: number;
  /** Ask the model whether the context suffices, with one extra retrieval round (costs a call). */
  readonly sufficiencyCheck: boolean;
}

export interface SettingsApi {
  /** The switches new conversations start with (Settings → Memory). */
  memoryDefaults(): Promise<ConversationMemory>;
  setMemoryDefaults(patch: Partial<ConversationMemory>): Promise<ConversationMemory>;
  /** "Use saved memories" / "use chat history" over every answer (both on by default). */
  globalMemory(): Promise<GlobalMemory>;
  setGlobalMemory(patch: Partial<GlobalMemory>): Promise<GlobalMemory>;
  /** The user's time zone (day boundaries, date foresight, answer dates); null follows the browser. */
  timeZone(): Promise<TimeZoneSetting>;
  setTimeZone(zone: string | null): Promise<TimeZoneSetting>;
  answerSettings(): Promise<AnswerSettings>;
  setAnswerSettings(settings: Partial<AnswerSettings>): Promise<AnswerSettings>;
  llm(): Promise<LlmSettingsView>;
  saveLlm(input: LlmSettingsInput): Promise<LlmSettingsView>;
  testLlm(input: LlmSettingsInput): Promise<LlmConnectionTest>;
  llmModels(input: LlmSettingsInput): Promise<string[]>;
  llmUsage(since?: number): Promise<Record<string, StageUsage>>;
}
