/**
 * MemoryStore over one wa-sqlite connection: the repositories composed with transactions.
 * Same code in the browser worker (OPFS) and in Node (memory).
 */
import type {
  AppendOptions,
  ImportOptions,
  ItemKind,
  NewConversation,
  ItemVector,
  MemoryStore,
  PendingEmbedding,
  SearchOptions,
  SendTurnOptions,
  StagedImport,
  TurnVersionPosition,
  VectorStore,
} from '../core/base/store';
import type {
  AppendResult,
  Conversation,
  ConversationMemory,
  ConversationModel,
  ConversationPlace,
  ImportSummary,
  Message,
  MessageWindow,
  MessageWindowRequest,
  NewTurn,
  SearchHit,
  StorageStats,
  TitleSource,
} from '../core/base/types';
import { systemClock, type Clock } from '../core/base/ports';
import type { Sql } from '../core/base/sql';
import * as conversations from './conversationRepo';
import * as messages from './messageRepo';
import * as vectors from './vectorRepo';
import * as versions from './turnVersions';
import * as places from './turnPlaces';
import * as forgets from './syncedForgets';
import { SqlEpisodeStore } from './episodeRepo';
import { SqlJobStore } from './jobRepo';
import { SqlKnowledgeStore } from './knowledgeRepo';
import { SqlLlmCallLog } from './llmCallRepo';
import { moveToProject, SqlProjectStore } from './projectRepo';
import { compactedCopy, stageImport } from './databaseTransfer';
import { schemaVersion } from './migrate';
import type { WaSqliteDatabase } from './WaSqliteDatabase';
import { newId } from '../core/base/ids';
import { isSaneTime } from '../core/base/limits';
import { RETRIEVAL_CONFIG } from '../core/recall/fusion';

export interface SqliteMemoryStoreOptions {
  readonly clock?: Clock;
  /** Opens an empty in-memory connection in the same SQLite module (used to validate imports). */
  readonly openTemp: () => Promise<WaSqliteDatabase>;
  readonly newId?: () => string;
  /**
   * Turns a memory may have held (its highest turn key) and still have the turn index (turns_fts)
   * written in each append's transaction; above it, appended turns stay queued (turn_index_queue),
   * and the next append under the limit (e.g. a store opened with a higher one) indexes the whole
   * queue. Default: the size above which recall stops
   * reading the turn index (RETRIEVAL_CONFIG.large.above; −1 = always write it).
   */
  readonly turnIndexUpTo?: number;
}

export class SqliteMemoryStore implements MemoryStore, VectorStore {
  readonly db: WaSqliteDatabase;
  readonly #clock: Clock;
  readonly #openTemp: () => Promise<WaSqliteDatabase>;
  readonly #newId: () => string;
  readonly #turnIndexUpTo: number;

  /** The lifecycle's and the job queue's views of the same connection. */
  readonly episodes: SqlEpisodeStore;
  readonly jobs: SqlJobStore;
  readonly knowledge: SqlKnowledgeStore;
  readonly llmCalls: SqlLlmCallLog;
  readonly projects: SqlProjectStore;

  constructor(db: WaSqliteDatabase, options: SqliteMemoryStoreOptions) {
    this.db = db;
    // Every time the store writes is a whole number of ms: the INTEGER time columns would keep a
    // fraction as REAL, and the database import refuses a file holding one.
    const clock = options.clock ?? systemClock;
    this.#clock = { now: () => Math.round(clock.now()) };
    this.episodes = new SqlEpisodeStore(db);
    this.jobs = new SqlJobStore(db, this.#clock);
    this.knowledge = new SqlKnowledgeStore(db);
    this.llmCalls = new SqlLlmCallLog(db);
    this.projects = new SqlProjectStore(db, this.#clock);
    this.#openTemp = options.openTemp;
    this.#newId = options.newId ?? newId;
    this.#turnIndexUpTo = options.turnIndexUpTo ?? RETRIEVAL_CONFIG.large.above;
  }

  createConversation(
    input: { id?: string; title: string; createdAt?: number; projectId?: string | null } & Partial<ConversationMemory>,
  ): Promise<Conversation> {
    const at = isSaneTime(input.createdAt) ? input.createdAt : this.#clock.now();
    return this.db.transaction(async (tx) => {
      const created = await conversations.insertConversation(tx, input.id ?? this.#newId(), input.title, at, input);
      if (typeof input.projectId !== 'string') return created;
      await moveToProject(tx, created.id, input.projectId);
      return conversations.requireConversation(tx, created.id);
    });
  }

  getConversation(id: string): Promise<Conversation | null> {
    return conversations.getConversation(this.db, id);
  }

  setConversationMemory(id: string, patch: Partial<ConversationMemory>): Promise<Conversation> {
    return this.db.transaction((tx) => conversations.setConversationMemory(tx, id, patch));
  }

  placeConversation(id: string, patch: Partial<ConversationPlace>): Promise<Conversation> {
    return this.db.transaction((tx) => conversations.placeConversation(tx, id, patch, this.#clock.now()));
  }

  setConversationModel(id: string, model: ConversationModel): Promise<Conversation> {
    return this.db.transaction((tx) => conversations.setConversationModel(tx, id, model));
  }

  conversationsNotRemembered(): Promise<string[]> {
    return conversations.conversationsNotRemembered(this.db);
  }

  createConversations(inputs: readonly NewConversation[]): Promise<void> {
    return this.db.transaction((tx) => this.#insertConversations(tx, inputs));
  }

  async #insertConversations(tx: Sql, inputs: readonly NewConversation[]): Promise<void> {
    const now = this.#clock.now();
    for (const c of inputs)
      await conversations.insertConversation(tx, c.id, c.title, isSaneTime(c.createdAt) ? c.createdAt : now, {}, c.projectId ?? null);
  }

  renameConversation(id: string, title: string, by?: TitleSource): Promise<Conversation> {
    return this.db.transaction((tx) => conversations.renameConversation(tx, id, title, this.#clock.now(), by));
  }

  whenScrubbed(): Promise<void> {
    return this.db.whenScrubbed();
  }

  deleteConversation(id: string): Promise<void> {
    return this.db.transaction((tx) => conversations.deleteConversation(tx, id));
  }

  listConversations(): Promise<Conversation[]> {
    return conversations.listConversations(this.db);
  }

  /** Appends several turns (e.g. an imported session) in one transaction: all or none. */
  appendTurns(turns: readonly NewTurn[], options: AppendOptions = {}): Promise<AppendResult[]> {
    return this.db.transaction(async (tx) => {
      if (options.create) await this.#insertConversations(tx, options.create);
      const out: AppendResult[] = [];
      const checked = new Set<string>();
      // A conversation was last updated when its newest turn happened: now for a typed turn, the
      // source's time for an imported one (so an import keeps the sidebar in the export's order).
      const touched = new Map<string, number>();
      const now = this.#clock.now();
      let seq =
        options.after !== undefined && turns[0] ? await places.makeRoomAfter(tx, turns[0].conversationId, options.after, turns.length) : 0;
      for (const turn of turns) {
        // Once per conversation per batch: nothing inside the transaction can delete it.
        if (!checked.has(turn.conversationId)) {
          await conversations.requireConversation(tx, turn.conversationId);
          checked.add(turn.conversationId);
        }
        let result = await messages.insertMessage(tx, turn, now);
        if (seq > 0 && result.created) {
          await places.placeTurn(tx, result.message.id, seq);
          result = { ...result, message: { ...result.message, seq: seq++ } };
        }
        if (result.created) touched.set(turn.conversationId, Math.max(touched.get(turn.conversationId) ?? 0, result.message.occurredAt));
        out.push(result);
      }
      for (const [id, at] of touched) await conversations.touchConversation(tx, id, at);
      if (touched.size > 0 && !options.deferTurnIndex) await this.#indexTurns(tx);
      return out;
    });
  }

  async turnIndexBacklog(): Promise<number> {
    if (this.#turnIndexUpTo >= 0 && (await messages.maxTurnKey(this.db)) > this.#turnIndexUpTo) return 0;
    return messages.queuedTurnIndex(this.db);
  }

  indexQueuedTurns(max: number): Promise<number> {
    return this.db.transaction(async (tx) => {
      if (this.#turnIndexUpTo >= 0 && (await messages.maxTurnKey(tx)) > this.#turnIndexUpTo) return 0;
      return messages.flushTurnIndexPart(tx, max);
    });
  }

  sendTurn(turn: NewTurn, options: SendTurnOptions = {}): Promise<AppendResult> {
    return this.db.transaction(async (tx) => {
      // Read after the replaced turns went: a title made from them was remade or cleared with them.
      for (const id of options.replaces ?? []) await messages.deleteMessage(tx, id);
      if (options.branchFrom !== undefined) await versions.startVersion(tx, turn.conversationId, options.branchFrom);
      const conversation = await conversations.requireConversation(tx, turn.conversationId);
      const now = this.#clock.now();
      const result = await messages.insertMessage(tx, turn, now);
      if (result.created) {
        await conversations.touchConversation(tx, turn.conversationId, now);
        await this.#indexTurns(tx);
      }
      if (options.title && conversation.titledBy === 'none')
        await conversations.renameConversation(tx, turn.conversationId, options.title, now, 'message');
      return result;
    });
  }

  startVersion(conversationId: string, messageId: string): Promise<string[]> {
    return this.db.transaction((tx) => versions.startVersion(tx, conversationId, messageId));
  }

  showVersion(conversationId: string, afterId: string, version: number): Promise<{ hidden: string[]; shown: Message[] }> {
    return this.db.transaction(async (tx) => {
      const result = await versions.showVersion(tx, conversationId, afterId, version, this.#clock.now());
      if (result.shown.length) await this.#indexTurns(tx);
      return result;
    });
  }

  turnVersions(conversationId: string): Promise<TurnVersionPosition[]> {
    return versions.versionsOf(this.db, conversationId);
  }

  hiddenTurnIds(conversationId: string): Promise<string[]> {
    return versions.hiddenTurnIds(this.db, conversationId);
  }

  turnPlaces(ids: readonly string[]): Promise<Map<string, { after: string; version: boolean }>> {
    return places.turnPlaces(this.db, ids);
  }

  forgottenHashes(): Promise<forgets.Forgotten[]> {
    return forgets.forgottenHashes(this.db);
  }

  adoptForgotten(forgotten: readonly forgets.Forgotten[]): Promise<{ kind: forgets.ForgottenKind; id: string }[]> {
    return this.db.transaction((tx) => forgets.adoptForgotten(tx, forgotten, this.#clock.now()));
  }

  turnIdsOf(conversationId: string): Promise<string[]> {
    return places.turnIdsOf(this.db, conversationId);
  }

  /**
   * The turn index for the turns queued in this transaction — unless the memory is large. Writing a
   * turn's row with its neighbours' text was 2/3 of ingest's SQL time at 30k LongMemEval turns
   * (scale bench profile, Node), and recall does not read the turn index of a large memory (it reads each
   * turn's own FTS row, written at once by the insert trigger, and adds context by score; it reads
   * the turn index again only when nothing is queued), so the queue is left for later.
   */
  async #indexTurns(tx: Sql): Promise<void> {
    if (this.#turnIndexUpTo >= 0 && (await messages.maxTurnKey(tx)) > this.#turnIndexUpTo) return;
    await messages.flushTurnIndex(tx);
  }

  async appendTurn(turn: NewTurn): Promise<AppendResult> {
    const [result] = await this.appendTurns([turn]);
    return result!;
  }

  listMessages(conversationId: string): Promise<Message[]> {
    return messages.listMessages(this.db, conversationId);
  }

  listMessageWindow(conversationId: string, request: MessageWindowRequest): Promise<MessageWindow> {
    return messages.listMessageWindow(this.db, conversationId, request);
  }

  getMessage(id: string): Promise<Message | null> {
    return messages.getMessage(this.db, id);
  }

  deleteMessage(id: string, options: { readonly keepVersions?: boolean } = {}): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if (!options.keepVersions) {
        await versions.dropVersionsAt(tx, id);
        await versions.dropHiddenTurns(tx, [id]);
      }
      return messages.deleteMessage(tx, id);
    });
  }

  replaceMessageContent(id: string, content: string): Promise<boolean> {
    return this.db.transaction((tx) => messages.replaceMessageContent(tx, id, content));
  }

  searchMessages(query: string, options?: SearchOptions): Promise<SearchHit[]> {
    return messages.searchMessages(this.db, query, options);
  }

  async stats(): Promise<StorageStats> {
    const [size] = await this.db.query<{ bytes: number }>(
      'SELECT page_count * page_size AS bytes FROM pragma_page_count(), pragma_page_size()',
    );
    const [counts] = await this.db.query<{ m: number; c: number }>(
      'SELECT (SELECT count(*) FROM messages) AS m, (SELECT count(*) FROM conversations) AS c',
    );
    return {
      databaseBytes: Number(size?.bytes ?? 0),
      messageCount: Number(counts?.m ?? 0),
      conversationCount: Number(counts?.c ?? 0),
      schemaVersion: await schemaVersion(this.db),
    };
  }

  /** A compacted copy: no free page, no deleted FTS entry (databaseTransfer.ts). */
  exportDatabase(): Promise<Uint8Array> {
    return compactedCopy(this.db, this.#openTemp);
  }

  async importDatabase(bytes: Uint8Array): Promise<ImportSummary> {
    return (await stageImport(this.db, bytes, this.#openTemp, { turnIndexUpTo: this.#turnIndexUpTo })).summary;
  }

  stageImport(bytes: Uint8Array, options?: ImportOptions): Promise<StagedImport> {
    return stageImport(this.db, bytes, this.#openTemp, { turnIndexUpTo: this.#turnIndexUpTo, ...options });
  }

  /** Distinct speaker names of stored turns, most frequent first. */
  speakers(): Promise<string[]> {
    return messages.speakers(this.db);
  }

  // ---- VectorStore ---------------------------------------------------------------------------

  putVectors(kind: ItemKind, vectorModelId: string, items: readonly ItemVector[]): Promise<void> {
    return this.db.transaction((tx) => vectors.putVectors(tx, kind, vectorModelId, items, this.#clock.now()));
  }

  loadVectors(kind: ItemKind, vectorModelId: string): Promise<ItemVector[]> {
    return vectors.loadVectors(this.db, kind, vectorModelId);
  }

  getVectors(kind: ItemKind, itemIds: readonly string[], vectorModelId: string): Promise<ItemVector[]> {
    return vectors.getVectors(this.db, kind, itemIds, vectorModelId);
  }

  countVectors(kind: ItemKind, vectorModelId: string): Promise<number> {
    return vectors.countVectors(this.db, kind, vectorModelId);
  }

  countItems(kind: ItemKind): Promise<number> {
    return vectors.countItems(this.db, kind);
  }

  newestPendingKey(kind: ItemKind, vectorModelId: string, count: number): Promise<number> {
    return vectors.newestPendingKey(this.db, kind, vectorModelId, count);
  }

  pendingEmbeddings(kind: ItemKind, vectorModelId: string, limit: number, after?: number): Promise<PendingEmbedding[]> {
    return vectors.pendingEmbeddings(this.db, kind, vectorModelId, limit, after);
  }

  pendingReembed(
    kind: ItemKind,
    fromVectorModelId: string,
    toVectorModelId: string,
    limit: number,
    after?: number,
  ): Promise<PendingEmbedding[]> {
    return vectors.pendingReembed(this.db, kind, fromVectorModelId, toVectorModelId, limit, after);
  }

  deleteOtherVectors(kind: ItemKind, keepVectorModelId: string): Promise<number> {
    return this.db.transaction((tx) => vectors.deleteOtherVectors(tx, kind, keepVectorModelId));
  }

  getMeta(key: string): Promise<string | null> {
    return vectors.getMeta(this.db, key);
  }

  setMeta(key: string, value: string): Promise<void> {
    return this.db.transaction((tx) => vectors.setMeta(tx, key, value));
  }
}
