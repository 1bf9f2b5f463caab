/**
 * Background synthesis of episodes into facts, plans and themes: its policy, status and failures.
 * One group of EngineApi (src/core/protocol.ts): callers write `engine.synthesis.…`.
 */
import type { JobCounts } from '../base/jobs';
import type { PolicyName } from '../episodes/consolidationPolicy';
import type { SynthesisFailures } from '../synthesis/synthesisRecovery';

export interface ConsolidationStatus {
  readonly policy: PolicyName;
  readonly llmBoundaryCheck: boolean;
  readonly endpointConfigured: boolean;
  readonly jobs: JobCounts;
  readonly pausedReason: string | null;
  readonly lastError: string | null;
  /** The last failure of each background loop that is failing now (organising episodes, upkeep), for the overview. */
  readonly backgroundErrors: readonly string[];
}

export interface SynthesisApi {
  policy(): Promise<PolicyName>;
  setPolicy(name: PolicyName): Promise<PolicyName>;
  status(): Promise<ConsolidationStatus>;
  /** Synthesis that failed ("3 episodes could not be summarised"), and how much of it comes back by itself. */
  failures(): Promise<SynthesisFailures>;
  /** The person's Retry: every failed synthesis job goes back in the queue now; returns how many. */
  retryFailed(): Promise<number>;
  setBoundaryCheck(enabled: boolean): Promise<boolean>;
}
