/**
 * Plans ahead (foresight): time-bounded items read from what the person said.
 * One group of EngineApi (src/core/protocol.ts): callers write `engine.plans.…`.
 */
import type { ForesightEdit, ForesightPage, ForesightQuery } from '../explorer/explorer';
import type { ForesightItem } from '../synthesis/knowledge';

export interface PlansApi {
  /** Every foresight item (tests and tools); the app reads pages. */
  list(): Promise<ForesightItem[]>;
  page(query: ForesightQuery): Promise<ForesightPage>;
  edit(id: string, patch: ForesightEdit): Promise<void>;
  dismiss(id: string): Promise<void>;
}
