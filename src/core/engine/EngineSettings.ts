/**
 * The engine's settings: the LLM endpoint (kept outside the memory database; docs/architecture.md, Reliability), the
 * answer settings, the consolidation policy and the LLM boundary check (kept in `meta`, defined once
 * in base/settings.ts). Validation lives here, so the UI, an import and the benchmarks all get the
 * same ranges and the same defaults.
 */
import { RecollectError } from '../base/errors';
import type { Llm, LlmCallSink, LlmConnectionTest } from '../base/ports';
import {
  ANSWER_BUDGET,
  DEFAULT_LLM_BOUNDARY_CHECK,
  defaultAnswerBudget,
  DEFAULT_SUFFICIENCY_CHECK,
  META_KEYS,
  answerBudgetOf,
  flagOf,
  viewOf,
  type LlmFactory,
  type LlmSettings,
  type LlmSettingsInput,
  type LlmSettingsView,
  type SettingsStore,
} from '../base/settings';
import type { MetaStore } from '../base/store';
import { DEFAULT_TIME_ZONE, checkTimeZone, isTimeZone } from '../base/timeZone';
import type { PolicyName } from '../episodes/consolidationPolicy';
import type { AnswerSettings, StageUsage, TimeZoneSetting } from '../protocol';
import { formatCount } from '../base/numbers';

export const DEFAULT_POLICY: PolicyName = 'recurrence';

/** The cost ledger's read side (llm_calls). */
export interface UsageLedger {
  byStage(since?: number): Promise<Record<string, StageUsage>>;
}

export interface EngineSettingsDeps {
  readonly meta: MetaStore;
  readonly settings: SettingsStore | null;
  readonly llmFactory: LlmFactory | null;
  readonly llmSink: (LlmCallSink & UsageLedger) | null;
  /** The endpoint changed (saved, cleared, or loaded at start). */
  readonly onLlm: (llm: Llm | null) => void;
  readonly onChange: () => void;
  /** The policy was changed by the user: apply it to queued and raw work. */
  readonly onPolicyChanged?: (name: PolicyName) => Promise<void>;
  /** The platform's time zone (the browser's, read in the worker); used until the user picks one. */
  readonly platformTimeZone?: () => string;
  /** The context window of the model answering now, when it is a small one on this device. */
  readonly contextTokens?: () => number | undefined;
}

/** The zone this platform reports (the browser's in the app; the process's in Node). */
export function platformTimeZone(): string {
  try {
    const zone = new Intl.DateTimeFormat().resolvedOptions().timeZone;
    return isTimeZone(zone) ? zone : DEFAULT_TIME_ZONE;
  } catch {
    // a platform without Intl time-zone data: fall back to UTC
    return DEFAULT_TIME_ZONE;
  }
}

/**
 * `read` at most once per `maxAgeMs`: every recall asks for the zone, and building a DateTimeFormat
 * to read it was ≈ 0.4 ms of a 6 ms recall (CPU profile, 10,000 turns). A zone changed in the
 * system's settings is seen within a minute.
 */
export function cachedTimeZone(read: () => string = platformTimeZone, maxAgeMs = 60_000, now: () => number = Date.now): () => string {
  let zone: string | null = null;
  let readAt = 0;
  return () => {
    const t = now();
    if (zone === null || t - readAt >= maxAgeMs) {
      zone = read();
      readAt = t;
    }
    return zone;
  };
}

export const isPolicy = (v: unknown): v is PolicyName => v === 'eager' || v === 'recurrence' || v === 'off';

export class EngineSettings {
  readonly #deps: EngineSettingsDeps;
  #policy: PolicyName = DEFAULT_POLICY;
  #llmBoundaryCheck = DEFAULT_LLM_BOUNDARY_CHECK;
  #userTimeZone: string | null = null;
  readonly #platformZone: () => string;

  constructor(deps: EngineSettingsDeps) {
    this.#deps = deps;
    this.#platformZone = deps.platformTimeZone ?? cachedTimeZone();
  }

  get policy(): PolicyName {
    return this.#policy;
  }

  get llmBoundaryCheck(): boolean {
    return this.#llmBoundaryCheck;
  }

  /** The zone day boundaries, date foresight and the answer prompt use now. */
  get timeZone(): string {
    return this.#userTimeZone ?? this.#platformZone();
  }

  timeZoneSetting(): TimeZoneSetting {
    return { timeZone: this.timeZone, source: this.#userTimeZone ? 'user' : 'browser' };
  }

  /** Sets the user's zone (an IANA name), or null to follow the browser's again. */
  async setTimeZone(zone: string | null): Promise<TimeZoneSetting> {
    const chosen = zone === null || zone.trim() === '' ? null : checkTimeZone(zone.trim());
    // An empty value means "follow the browser" (meta has no delete).
    await this.#deps.meta.setMeta(META_KEYS.timeZone, chosen ?? '');
    this.#userTimeZone = chosen;
    this.#deps.onChange();
    return this.timeZoneSetting();
  }

  /** Reads every setting the engine keeps in memory (at start, and after an import replaced the database). */
  async load(): Promise<void> {
    const { meta } = this.#deps;
    const policy = await meta.getMeta(META_KEYS.policy);
    this.#policy = isPolicy(policy) ? policy : DEFAULT_POLICY;
    this.#llmBoundaryCheck = flagOf(await meta.getMeta(META_KEYS.llmBoundaryCheck), DEFAULT_LLM_BOUNDARY_CHECK);
    const zone = await meta.getMeta(META_KEYS.timeZone);
    this.#userTimeZone = isTimeZone(zone) ? zone : null;
  }

  /** Builds the endpoint client from the saved settings (at start). */
  async loadLlm(): Promise<void> {
    const saved = await this.#deps.settings?.loadLlm().catch(() => null);
    if (saved && this.#deps.llmFactory && viewOf(saved).configured) this.#deps.onLlm(this.#deps.llmFactory(saved, this.#deps.llmSink));
  }

  async answerSettings(): Promise<AnswerSettings> {
    const { meta } = this.#deps;
    const window = this.#deps.contextTokens?.();
    return {
      budgetTokens: answerBudgetOf(await meta.getMeta(META_KEYS.answerBudget), window),
      defaultBudgetTokens: defaultAnswerBudget(window),
      sufficiencyCheck: flagOf(await meta.getMeta(META_KEYS.sufficiencyCheck), DEFAULT_SUFFICIENCY_CHECK),
    };
  }

  async setAnswerSettings(settings: Partial<AnswerSettings>): Promise<AnswerSettings> {
    const { meta } = this.#deps;
    if (settings.budgetTokens !== undefined) {
      const b = Math.round(settings.budgetTokens);
      if (!Number.isFinite(b) || b < ANSWER_BUDGET.min || b > ANSWER_BUDGET.max) {
        throw new RecollectError(
          'INVALID_INPUT',
          `The memory budget must be between ${formatCount(ANSWER_BUDGET.min)} and ${formatCount(ANSWER_BUDGET.max)} tokens.`,
        );
      }
      await meta.setMeta(META_KEYS.answerBudget, String(b));
    }
    if (settings.sufficiencyCheck !== undefined) await meta.setMeta(META_KEYS.sufficiencyCheck, settings.sufficiencyCheck ? '1' : '0');
    return this.answerSettings();
  }

  async setLlmBoundaryCheck(enabled: boolean): Promise<boolean> {
    this.#llmBoundaryCheck = enabled;
    await this.#deps.meta.setMeta(META_KEYS.llmBoundaryCheck, enabled ? '1' : '0');
    return enabled;
  }

  async setPolicy(name: PolicyName): Promise<PolicyName> {
    if (!isPolicy(name)) throw new RecollectError('INVALID_INPUT', `Unknown consolidation policy "${String(name)}".`);
    this.#policy = name;
    await this.#deps.meta.setMeta(META_KEYS.policy, name);
    await this.#deps.onPolicyChanged?.(name);
    return name;
  }

  // ---- the LLM endpoint --------------------------------------------------------------------

  /** The endpoint as stored, key included: only for sync's "also sync the endpoint key" (never to the UI). */
  async storedLlm(): Promise<LlmSettings | null> {
    return (await this.#deps.settings?.loadLlm()) ?? null;
  }

  async llmSettings(): Promise<LlmSettingsView> {
    return viewOf((await this.#deps.settings?.loadLlm()) ?? null);
  }

  async #resolve(input: LlmSettingsInput): Promise<LlmSettings> {
    const baseUrl = input.baseUrl.trim();
    const model = input.model.trim();
    if (baseUrl && !/^https?:\/\/[^\s/?#]+(?:[/?#]\S*)?$/i.test(baseUrl)) {
      throw new RecollectError(
        'INVALID_INPUT',
        `"${baseUrl}" is not an http(s) address. Use the server's address, e.g. http://localhost:11434/v1.`,
      );
    }
    const current = await this.#deps.settings?.loadLlm();
    const apiKey = input.apiKey === undefined ? (current?.apiKey ?? null) : input.apiKey?.trim() || null;
    return { baseUrl, model, apiKey };
  }

  /** Saves the endpoint (an empty base URL clears it); synthesis resumes with the new endpoint. */
  async saveLlmSettings(input: LlmSettingsInput): Promise<LlmSettingsView> {
    const { settings: store, llmFactory, llmSink } = this.#deps;
    if (!store || !llmFactory) throw new RecollectError('INTERNAL', 'This engine cannot store endpoint settings.');
    const resolved = await this.#resolve(input);
    const settings = resolved.baseUrl ? resolved : null;
    await store.saveLlm(settings);
    this.#deps.onLlm(settings && viewOf(settings).configured ? llmFactory(settings, llmSink) : null);
    this.#deps.onChange();
    return viewOf(settings);
  }

  /** Tries the endpoint described by `input` (not saved): reachability, key, model list. */
  async testLlmConnection(input: LlmSettingsInput): Promise<LlmConnectionTest> {
    if (!this.#deps.llmFactory) throw new RecollectError('INTERNAL', 'This engine cannot reach an endpoint.');
    const settings = await this.#resolve(input);
    if (!settings.baseUrl) throw new RecollectError('INVALID_INPUT', 'Enter the endpoint address first.');
    return this.#deps.llmFactory(settings, this.#deps.llmSink).testConnection({ probe: !!settings.model });
  }

  async listLlmModels(input: LlmSettingsInput): Promise<string[]> {
    if (!this.#deps.llmFactory) return [];
    const settings = await this.#resolve(input);
    if (!settings.baseUrl) return [];
    return this.#deps.llmFactory(settings, null).listModels();
  }

  /** Tokens per stage since `since` (ms), from the llm_calls ledger. */
  async llmUsage(since = 0): Promise<Record<string, StageUsage>> {
    return (await this.#deps.llmSink?.byStage(since)) ?? {};
  }
}

/** The ledger, calling `answered` after each call the endpoint answered successfully. */
export function withAnsweredHook(sink: LlmCallSink & UsageLedger, answered: () => void): LlmCallSink & UsageLedger {
  return {
    record(call) {
      const stored = sink.record(call);
      if (call.outcome === 'ok') answered();
      return stored;
    },
    byStage: (since) => sink.byStage(since),
  };
}
