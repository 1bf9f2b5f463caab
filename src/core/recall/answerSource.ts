/**
 * The AnswerSource the answer pipeline reads (answerContext.ts), built from storage's candidates
 * (KnowledgeSource: BM25-ordered look-ups, never ranked or fused there), the vector indexes of facts
 * and episodes, and the engine's turn recall. Facts and episodes are ranked by hybridSearch — the same
 * fusion the explorer's search and the Retriever use.
 *
 * Only synthesised episodes (a non-empty narrative) reach answers: a raw MemCell has nothing to
 * show beyond its turns, which the excerpts already carry. Storage applies that filter.
 */
import type { Message } from '../base/types';
import type { ForesightItem, ProfileItem } from '../synthesis/knowledge';
import type { AnswerSource, ContextEpisode, ContextFact, ContextOrigins, KnowledgeQueryOptions } from './answerContext';
import { hybridSearch, type VectorHit } from './hybridSearch';
import { inMemoryScope, type MemoryScope } from './memoryScope';

/** Storage's side of answering: candidates and look-ups; every statement a SELECT. */
export interface KnowledgeSource {
  /** Facts whose words match the query, BM25 order, at most `limit`. */
  lexicalFacts(query: string, options: KnowledgeQueryOptions): Promise<readonly ContextFact[]>;
  /** The facts with these ids (any order), within the conversation and the scope when given. */
  factsByIds(
    ids: readonly string[],
    options: { readonly conversationId?: string; readonly scope?: MemoryScope },
  ): Promise<readonly ContextFact[]>;
  /** Synthesised episodes whose title or narrative match the query, BM25 order, at most `limit`. */
  lexicalEpisodes(query: string, options: KnowledgeQueryOptions): Promise<readonly ContextEpisode[]>;
  /** The synthesised episodes with these ids (any order; missing ones and ones outside `scope` are skipped). */
  episodesByIds(ids: readonly string[], scope?: MemoryScope): Promise<readonly ContextEpisode[]>;
  /** The ids of the facts or episodes (any status) of these conversations. */
  itemsOf(kind: 'fact' | 'memcell', conversationIds: readonly string[]): Promise<ReadonlySet<string>>;
  /** For each message id, the synthesised episode holding that turn (absent when none). */
  episodesOfTurns(messageIds: readonly string[]): Promise<ReadonlyMap<string, string>>;
  /** Synthesised members of these scenes inside `scope`, most recent first, at most `limitPerScene` each. */
  sceneMembers(sceneIds: readonly string[], limitPerScene: number, scope?: MemoryScope): Promise<readonly ContextEpisode[]>;
  /**
   * Active profile items `scope` allows; with `limit`, the `limit` most confident (then most
   * recently updated, then by id), else all in any order.
   */
  profile(limit?: number, scope?: MemoryScope): Promise<readonly ProfileItem[]>;
  /** Active foresight inside `scope` not yet over at `now` (current and upcoming). */
  foresight(now: number, scope?: MemoryScope): Promise<readonly ForesightItem[]>;
  /** The project (null: none) of each of these chats and episodes that still exists. */
  origins(conversationIds: readonly string[], memcellIds: readonly string[]): Promise<ContextOrigins>;
}

/** The engine's recall, narrowed to what answering uses. */
export type TurnRecall = (
  query: string,
  options: { limit?: number; now?: number; conversationId?: string; scope?: MemoryScope },
) => Promise<{ readonly turns: readonly { readonly message: Message }[] }>;

/**
 * Nearest facts or episodes to the query text, best first (cosine); with `filter`, only the items
 * it accepts are ranked (inside the index's scan, so a narrow scope still gets k hits).
 */
export type KnowledgeVectorSearch = (
  kind: 'fact' | 'memcell',
  query: string,
  k: number,
  filter?: (id: string) => boolean,
) => Promise<readonly VectorHit[]>;

/**
 * The filter a scoped vector search runs (undefined when nothing is restricted): the ids of the
 * facts or episodes of the allowed conversations, or of the walled ones, read once per question.
 */
async function scopeFilter(
  knowledge: KnowledgeSource,
  kind: 'fact' | 'memcell',
  conversationId: string | undefined,
  scope: MemoryScope | undefined,
): Promise<((id: string) => boolean) | undefined> {
  const within = scope?.only;
  const only = conversationId === undefined ? within : within ? within.filter((c) => c === conversationId) : [conversationId];
  const without = scope?.without?.length ? scope.without : undefined;
  if (!only && !without) return undefined;
  const [allowed, walled] = await Promise.all([
    only ? knowledge.itemsOf(kind, only) : null,
    without ? knowledge.itemsOf(kind, without) : null,
  ]);
  return (id) => (!allowed || allowed.has(id)) && !walled?.has(id);
}

/** A temporary chat consults no memory. */
export const EMPTY_ANSWER_SOURCE: AnswerSource = {
  turns: async () => [],
  facts: async () => [],
  episodes: async () => [],
  episodesByIds: async () => [],
  episodesOfTurns: async () => new Map(),
  sceneMembers: async () => [],
  profile: async () => [],
  foresight: async () => [],
  origins: async () => ({ conversations: new Map(), cells: new Map() }),
};

export function answerSourceOf(knowledge: KnowledgeSource, recall: TurnRecall, vectors?: KnowledgeVectorSearch): AnswerSource {
  const nearest = async (
    kind: 'fact' | 'memcell',
    query: string,
    k: number,
    options: { readonly conversationId?: string; readonly scope?: MemoryScope },
  ): Promise<readonly VectorHit[]> => {
    if (!vectors || !query.trim()) return [];
    try {
      const filter = await scopeFilter(knowledge, kind, options.conversationId, options.scope);
      return await vectors(kind, query, k, filter);
    } catch {
      return []; // vectors are an index: a missing model must not stop a lexical answer
    }
  };
  const inScope = (conversationId: string | undefined, scope?: MemoryScope) => (e: ContextEpisode) =>
    (conversationId === undefined || e.conversationId === conversationId) && inMemoryScope(scope, e.conversationId);

  return {
    async turns(query, options) {
      const result = await recall(query, {
        limit: options.limit,
        now: options.now,
        ...(options.conversationId !== undefined ? { conversationId: options.conversationId } : {}),
        ...(options.scope ? { scope: options.scope } : {}),
      });
      return result.turns.map((t) => t.message);
    },
    async facts(query, options) {
      const depth = options.limit * 2;
      const [lexical, vector] = await Promise.all([
        knowledge.lexicalFacts(query, { ...options, limit: depth }),
        nearest('fact', query, depth, options),
      ]);
      const scope = {
        ...(options.conversationId !== undefined ? { conversationId: options.conversationId } : {}),
        ...(options.scope ? { scope: options.scope } : {}),
      };
      const hits = await hybridSearch({ lexical, vector, fetch: (ids) => knowledge.factsByIds(ids, scope) });
      return hits.slice(0, options.limit).map((h) => h.item);
    },
    async episodes(query, options) {
      const depth = options.limit * 2;
      const [lexical, vector] = await Promise.all([
        knowledge.lexicalEpisodes(query, { ...options, limit: depth }),
        nearest('memcell', query, depth, options),
      ]);
      const hits = await hybridSearch({
        lexical,
        vector,
        fetch: async (ids) =>
          (await (options.scope ? knowledge.episodesByIds(ids, options.scope) : knowledge.episodesByIds(ids))).filter(
            inScope(options.conversationId, options.scope),
          ),
      });
      return hits.slice(0, options.limit).map((h) => h.item);
    },
    episodesByIds: async (ids, scope) =>
      scope ? (await knowledge.episodesByIds(ids, scope)).filter(inScope(undefined, scope)) : knowledge.episodesByIds(ids),
    episodesOfTurns: (ids) => knowledge.episodesOfTurns(ids),
    sceneMembers: async (ids, limit, scope) =>
      scope ? (await knowledge.sceneMembers(ids, limit, scope)).filter(inScope(undefined, scope)) : knowledge.sceneMembers(ids, limit),
    async profile(limit, scope) {
      // Most confident first, so a tight budget keeps the surest items (ids in code-unit order, as
      // storage's ORDER BY id picks them under a limit).
      const items = [...(await (scope ? knowledge.profile(limit, scope) : knowledge.profile(limit)))]
        .filter((p) => p.status === 'active')
        .sort((a, b) => b.confidence - a.confidence || b.updatedAt - a.updatedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      return limit === undefined ? items : items.slice(0, limit);
    },
    foresight: (now, scope) => (scope ? knowledge.foresight(now, scope) : knowledge.foresight(now)),
    origins: (conversationIds, memcellIds) => knowledge.origins(conversationIds, memcellIds),
  };
}
