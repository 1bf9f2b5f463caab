/**
 * What the embedding indexer reports (the Models panel, the overview, the trailing index read it)
 * and the two `meta` keys that name its models. Kept apart from the indexer so readers of the
 * status do not import the machinery that produces it.
 */
import type { ErrorInfo } from '../base/errors';

/** `meta` key: catalog id of the model whose vectors retrieval uses. */
export const META_ACTIVE = 'embedder.active';
/** `meta` key: catalog id of the model being built (equal to the active one when no switch is under way). */
export const META_TARGET = 'embedder.target';

/** One kind's share of a switch: items with the new model's vector (or centroid), of all. */
export interface KindProgress {
  readonly done: number;
  readonly total: number;
}

/** A switch's progress by kind, as the Models panel lists it. */
export interface SwitchProgress {
  readonly turns: KindProgress;
  readonly facts: KindProgress;
  readonly episodes: KindProgress;
  readonly themes: KindProgress;
}

export interface EmbeddingStatus {
  /** Catalog id of the model whose vectors retrieval uses. */
  readonly activeModel: string;
  /** Catalog id of the model being built (equal to activeModel when no switch is under way). */
  readonly targetModel: string;
  /** Messages that have a vector from the target model, and all messages. */
  readonly embedded: number;
  readonly total: number;
  readonly state: 'idle' | 'running' | 'error';
  readonly error: ErrorInfo | null;
  /** During a switch, its progress by kind (turns, facts, episodes: vectors; themes: centroids); else null. */
  readonly kinds: SwitchProgress | null;
}
