/**
 * The one reader of memory for a question. It embeds the question once and hands that vector to
 * every index that reads it — the turn recall (Retriever), the fact index and the episode index —
 * so an answer costs one query embedding, not one per index.
 *
 * "Remember this conversation" off is a retrieval scope here: the turns of conversations the user
 * asked not to remember are excluded inside the candidate queries, so an answer still gets its full
 * budget of turns (filtering after recall would hand it fewer).
 *
 * Failures of the optional stages (no embedder, a reranker that fails) fall back to text: vectors
 * and reranking are indexes over the stored turns, never the only way to find them.
 */
import type { Clock, Embedder, Reranker } from '../base/ports';
import type { SemanticIndex } from '../capture/SemanticIndex';
import type { AnswerSource } from './answerContext';
import { answerSourceOf, type KnowledgeSource } from './answerSource';
import type { VectorHit } from './hybridSearch';
import { Retriever, type QueryVector, type RetrievalResult, type RetrievalScope, type RetrievalSource } from './Retriever';
import { recallQuery } from './recallQuery';
import { inMemoryScope, type MemoryScope } from './memoryScope';

export interface RecallRequest {
  readonly limit?: number;
  readonly now?: number;
  /** Only this conversation's turns. */
  readonly conversationId?: string;
  /** Leave out conversations whose "Remember this conversation" is off (answers do; search does not). */
  readonly rememberedOnly?: boolean;
  /** The answer's project scope (memoryScope.ts): turns outside it are never candidates. */
  readonly scope?: MemoryScope;
}

export interface MemoryReaderDeps {
  readonly source: RetrievalSource;
  /** Facts and episodes for answers; null when the engine reads turns only. */
  readonly knowledge: KnowledgeSource | null;
  readonly indexes: { readonly fact: SemanticIndex; readonly episode: SemanticIndex };
  /** The embedder to read with now, or null (no model, or embedding is failing). */
  readonly embedder: () => Embedder | null;
  /** The reranker chosen in Models, or null. */
  readonly reranker: () => Promise<Reranker | null>;
  /** Speaker names known to memory (a question may mention them). */
  readonly speakers: () => Promise<readonly string[]>;
  /** Conversations whose turns are not memory. */
  readonly notRemembered: () => Promise<readonly string[]>;
  readonly clock: Clock;
  /** The user's time zone: "yesterday" in a question is the user's day. */
  readonly timeZone?: () => string;
}

export class MemoryReader {
  readonly #d: MemoryReaderDeps;

  constructor(deps: MemoryReaderDeps) {
    this.#d = deps;
  }

  /** The question's vector with the active embedder, or null when there is none or it fails. */
  async embed(question: string): Promise<QueryVector | null> {
    const embedder = this.#d.embedder();
    if (!embedder || !question.trim()) return null;
    try {
      const [vector] = await embedder.embed([question], 'query');
      return vector ? { modelId: embedder.id, dim: embedder.dim, vector } : null;
    } catch {
      return null; // a model that fails to embed leaves lexical recall working
    }
  }

  /** Ranked turns for a question; `queryVector` skips embedding it again (undefined = embed here). */
  async recall(
    message: string,
    request: RecallRequest = {},
    queryVector?: QueryVector | null | Promise<QueryVector | null>,
  ): Promise<RetrievalResult> {
    const question = recallQuery(message); // a long paste is searched by its head and tail
    // Independent reads, asked together. The embedding and the reranker may each be a model-worker
    // round trip: the Retriever takes them as promises and runs its keyword query meanwhile, so a
    // recall does not wait for them before it starts reading the database.
    const vector = queryVector === undefined ? this.embed(question) : queryVector;
    const reranker = this.#d.reranker().catch(() => null); // a failing model worker means no rerank stage
    const [scope, speakers] = await Promise.all([this.#scope(request), this.#d.speakers()]);
    const retriever = new Retriever({ source: this.#d.source, reranker });
    const result = await retriever.retrieve(question, {
      limit: request.limit ?? 10,
      speakers,
      now: request.now ?? this.#d.clock.now(),
      queryVector: vector,
      ...(this.#d.timeZone ? { timeZone: this.#d.timeZone() } : {}),
      ...(scope ? { scope } : {}),
    });
    // The candidate queries already keep to the project scope; this is the wall's second check.
    const memory = request.scope;
    return memory ? { ...result, turns: result.turns.filter((t) => inMemoryScope(memory, t.message.conversationId)) } : result;
  }

  async #scope(request: RecallRequest): Promise<RetrievalScope | undefined> {
    const excluded = request.rememberedOnly ? [...(await this.#d.notRemembered())] : [];
    const memory = request.scope;
    let only = request.conversationId !== undefined ? [request.conversationId] : undefined;
    if (memory?.only) only = only ? only.filter((id) => memory.only!.includes(id)) : [...memory.only];
    // Inside a project-only scope the walls of other projects are already outside `only`.
    if (!memory?.only && memory?.without?.length) excluded.push(...memory.without);
    if (only === undefined && excluded.length === 0) return undefined;
    return {
      ...(only !== undefined ? { conversationIds: only } : {}),
      ...(excluded.length ? { excludeConversationIds: excluded } : {}),
    };
  }

  /**
   * Memory as an answer reads it: turns, facts and episodes of one question share one embedding
   * (the last question's vector is kept; a follow-up query of the sufficiency check is a new one).
   */
  answerSource(): AnswerSource | null {
    const knowledge = this.#d.knowledge;
    if (!knowledge) return null;
    let last: { question: string; vector: Promise<QueryVector | null> } | null = null;
    const vectorOf = (question: string): Promise<QueryVector | null> => {
      if (last?.question !== question) last = { question, vector: this.embed(question) };
      return last.vector;
    };
    const nearest = async (
      kind: 'fact' | 'memcell',
      question: string,
      k: number,
      filter?: (id: string) => boolean,
    ): Promise<readonly VectorHit[]> => {
      const q = await vectorOf(question);
      if (!q) return [];
      const index = kind === 'fact' ? this.#d.indexes.fact : this.#d.indexes.episode;
      return index.search(q.modelId, q.dim, q.vector, k, filter ? { filter } : {});
    };
    return answerSourceOf(
      knowledge,
      (question, options) => this.recall(question, { ...options, rememberedOnly: true }, vectorOf(question)),
      nearest,
    );
  }
}
