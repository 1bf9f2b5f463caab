/**
 * A MemoryStore and VectorStore held in plain maps: the same contract as the SQLite store
 * (test/support/storeBehaviour.ts runs one suite over both), for tests of core logic that are
 * clearer without SQL, and for short-lived engines. Search is a simple term count, not BM25, and
 * the whole-file export/import of a database is not available (there is no file).
 */
import { RecollectError } from '../../src/core/base/errors';
import { isSaneTime, MAX_TITLE_CHARS, validateNewTurn } from '../../src/core/base/limits';
import type {
  ImportSummary,
  AppendResult,
  Conversation,
  ConversationMemory,
  ConversationModel,
  ConversationPlace,
  Message,
  MessageWindow,
  MessageWindowRequest,
  NewTurn,
  SearchHit,
  StorageStats,
  TitleSource,
} from '../../src/core/base/types';
import { titleAfterDeletion, UNTITLED } from '../../src/core/base/titles';
import type {
  AppendOptions,
  ImportOptions,
  ItemKind,
  NewConversation,
  ItemVector,
  MemoryStore,
  PendingEmbedding,
  SearchOptions,
  StagedImport,
  VectorStore,
} from '../../src/core/base/store';
import { systemClock, type Clock } from '../../src/core/base/ports';
import { newId } from '../../src/core/base/ids';
import { STOP_WORDS, terms } from '../../src/core/base/text';
import { charsOverFour } from '../../src/core/base/tokens';

interface StoredTurn {
  readonly key: number;
  readonly message: Message;
}

function cleanTitle(title: string): string {
  const t = title.replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE_CHARS);
  if (!t) throw new RecollectError('INVALID_INPUT', 'A conversation needs a title.');
  return t;
}

export class InMemoryStore implements MemoryStore, VectorStore {
  readonly #clock: Clock;
  readonly #newId: () => string;
  readonly #conversations = new Map<
    string,
    {
      id: string;
      title: string;
      createdAt: number;
      updatedAt: number;
      useMemory: boolean;
      remember: boolean;
      titledBy: TitleSource;
      pinned: boolean;
      archived: boolean;
      model: ConversationModel;
    }
  >();
  readonly #turns = new Map<string, StoredTurn>();
  readonly #vectors = new Map<string, Map<string, Float32Array>>(); // `${kind}:${model}` → item → vector
  readonly #meta = new Map<string, string>();
  #nextKey = 1;

  constructor(options: { clock?: Clock; newId?: () => string } = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#newId = options.newId ?? newId;
  }

  #conversation(id: string): Conversation {
    const c = this.#conversations.get(id);
    if (!c) throw new RecollectError('NOT_FOUND', 'That conversation no longer exists.');
    return { ...c, projectId: null, messageCount: [...this.#turns.values()].filter((t) => t.message.conversationId === id).length };
  }

  async createConversation(
    input: {
      readonly id?: string;
      readonly title: string;
      readonly createdAt?: number;
      readonly projectId?: string | null;
    } & Partial<ConversationMemory>,
  ): Promise<Conversation> {
    if (typeof input.projectId === 'string') throw new Error('InMemoryStore has no projects');
    const id = input.id ?? this.#newId();
    const title = cleanTitle(input.title);
    if (!this.#conversations.has(id)) {
      const now = this.#clock.now();
      this.#conversations.set(id, {
        id,
        title,
        createdAt: isSaneTime(input.createdAt) ? input.createdAt : now,
        updatedAt: now,
        useMemory: input.useMemory !== false,
        remember: input.remember !== false,
        titledBy: title === UNTITLED ? 'none' : 'user',
        pinned: false,
        archived: false,
        model: null,
      });
    }
    return this.#conversation(id);
  }

  async getConversation(id: string): Promise<Conversation | null> {
    return this.#conversations.has(id) ? this.#conversation(id) : null;
  }

  async setConversationMemory(id: string, patch: Partial<ConversationMemory>): Promise<Conversation> {
    const c = this.#conversations.get(id);
    if (!c) throw new RecollectError('NOT_FOUND', 'That conversation no longer exists.');
    this.#conversations.set(id, {
      ...c,
      ...(patch.useMemory !== undefined ? { useMemory: patch.useMemory } : {}),
      ...(patch.remember !== undefined ? { remember: patch.remember } : {}),
    });
    return this.#conversation(id);
  }

  async placeConversation(id: string, patch: Partial<ConversationPlace>): Promise<Conversation> {
    const c = this.#conversation(id);
    this.#conversations.set(id, {
      ...this.#conversations.get(id)!,
      pinned: patch.pinned ?? c.pinned,
      archived: patch.archived ?? c.archived,
    });
    return this.#conversation(id);
  }

  async setConversationModel(id: string, model: ConversationModel): Promise<Conversation> {
    this.#conversation(id);
    this.#conversations.set(id, { ...this.#conversations.get(id)!, model });
    return this.#conversation(id);
  }

  async conversationsNotRemembered(): Promise<string[]> {
    return [...this.#conversations.values()].filter((c) => !c.remember).map((c) => c.id);
  }

  /** Several at once, all or none (existing ids are kept as they are). */
  async createConversations(inputs: readonly NewConversation[]): Promise<void> {
    for (const input of inputs) cleanTitle(input.title);
    for (const input of inputs) await this.createConversation(input);
  }

  async renameConversation(id: string, title: string, by: TitleSource = 'user'): Promise<Conversation> {
    const c = this.#conversations.get(id);
    if (!c) throw new RecollectError('NOT_FOUND', 'That conversation no longer exists.');
    this.#conversations.set(id, { ...c, title: cleanTitle(title), updatedAt: this.#clock.now(), titledBy: by });
    return this.#conversation(id);
  }

  /** Checks everything first, so a failure changes nothing (the transaction of the SQLite store). */
  async sendTurn(turn: NewTurn, options: { readonly replaces?: readonly string[]; readonly title?: string } = {}): Promise<AppendResult> {
    this.#conversation(turn.conversationId);
    if (!this.#turns.has(turn.id)) validateNewTurn(turn, 0);
    for (const id of options.replaces ?? []) this.#forget(id);
    const conversation = this.#conversation(turn.conversationId); // a title made from a replaced turn went with it
    const [result] = await this.appendTurns([turn]);
    if (options.title && conversation.titledBy === 'none') await this.renameConversation(turn.conversationId, options.title, 'message');
    return result!;
  }

  async deleteConversation(id: string): Promise<void> {
    this.#conversations.delete(id);
    for (const t of [...this.#turns.values()]) if (t.message.conversationId === id) this.#forget(t.message.id);
  }

  async listConversations(): Promise<Conversation[]> {
    return [...this.#conversations.keys()]
      .map((id) => this.#conversation(id))
      .sort((a, b) => b.updatedAt - a.updatedAt || a.id.localeCompare(b.id));
  }

  async appendTurn(turn: NewTurn): Promise<AppendResult> {
    const [result] = await this.appendTurns([turn]);
    return result!;
  }

  /** All or none: every turn is validated before any is stored (conversations `create` made are removed again on a failure). */
  async appendTurns(turns: readonly NewTurn[], options: AppendOptions = {}): Promise<AppendResult[]> {
    const created = (options.create ?? []).filter((c) => !this.#conversations.has(c.id)).map((c) => c.id);
    if (options.create) await this.createConversations(options.create);
    try {
      this.#validateAppend(turns);
    } catch (err) {
      for (const id of created) this.#conversations.delete(id);
      throw err;
    }
    return this.#append(turns);
  }

  #validateAppend(turns: readonly NewTurn[]): void {
    for (const turn of turns) {
      if (typeof turn.id !== 'string' || turn.id.length === 0 || turn.id.length > 200)
        throw new RecollectError('INVALID_INPUT', 'A message needs an id (1–200 characters).');
      this.#conversation(turn.conversationId);
      const existing = this.#turns.get(turn.id);
      if (existing && existing.message.conversationId !== turn.conversationId) {
        throw new RecollectError('INVALID_INPUT', 'A message with this id already exists in another conversation.');
      }
      if (!existing) validateNewTurn(turn, 0);
    }
  }

  #append(turns: readonly NewTurn[]): AppendResult[] {
    const now = this.#clock.now();
    const out: AppendResult[] = [];
    for (const turn of turns) {
      const existing = this.#turns.get(turn.id);
      if (existing) {
        out.push({ message: existing.message, created: false });
        continue;
      }
      const seq =
        1 +
        Math.max(0, ...[...this.#turns.values()].filter((t) => t.message.conversationId === turn.conversationId).map((t) => t.message.seq));
      const { role, speaker, content, occurredAt } = validateNewTurn(turn, now);
      const message: Message = {
        id: turn.id,
        conversationId: turn.conversationId,
        seq,
        role,
        speaker,
        content,
        occurredAt,
        ingestedAt: now,
        tokenCount: charsOverFour(content),
        metadata: turn.metadata ?? {},
      };
      this.#turns.set(turn.id, { key: this.#nextKey++, message });
      const c = this.#conversations.get(turn.conversationId)!;
      this.#conversations.set(c.id, { ...c, updatedAt: Math.max(c.updatedAt, occurredAt) });
      out.push({ message, created: true });
    }
    return out;
  }

  async listMessages(conversationId: string): Promise<Message[]> {
    return [...this.#turns.values()]
      .map((t) => t.message)
      .filter((m) => m.conversationId === conversationId)
      .sort((a, b) => a.seq - b.seq);
  }

  async listMessageWindow(conversationId: string, request: MessageWindowRequest): Promise<MessageWindow> {
    const all = await this.listMessages(conversationId);
    const limit = Math.max(1, Math.floor(request.limit));
    const at = request.around === undefined ? -1 : all.findIndex((m) => m.id === request.around);
    const offset = at >= 0 ? Math.max(0, at - (request.lead ?? 10)) /* WINDOW_LEAD, as SQLite's store */ : Math.max(0, all.length - limit);
    return { messages: all.slice(offset, offset + limit), total: all.length, offset };
  }

  async getMessage(id: string): Promise<Message | null> {
    return this.#turns.get(id)?.message ?? null;
  }

  #forget(id: string): void {
    const gone = this.#turns.get(id)?.message;
    this.#turns.delete(id);
    for (const [key, items] of this.#vectors) if (key.startsWith('message:')) items.delete(id);
    const c = gone && this.#conversations.get(gone.conversationId);
    if (!gone || !c) return;
    const left = [...this.#turns.values()]
      .map((t) => t.message)
      .filter((m) => m.conversationId === c.id)
      .sort((a, b) => a.seq - b.seq);
    const firstUser = left.find((m) => m.role === 'user') ?? null;
    const next = titleAfterDeletion({ title: c.title, titledBy: c.titledBy, recorded: true }, [gone], {
      firstUser,
      firstAssistantSeq: left.find((m) => m.role === 'assistant')?.seq ?? null,
    });
    if (next) this.#conversations.set(c.id, { ...c, ...next });
  }

  async deleteMessage(id: string): Promise<boolean> {
    if (!this.#turns.has(id)) return false;
    this.#forget(id);
    return true;
  }

  /** Turns holding any of the query's words (stop words dropped when others remain), most matches first. */
  async searchMessages(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    const all = [...new Set(terms(query))];
    const wanted = all.some((t) => !STOP_WORDS.has(t)) ? all.filter((t) => !STOP_WORDS.has(t)) : all;
    if (wanted.length === 0) return [];
    const hits: SearchHit[] = [];
    for (const { message } of this.#turns.values()) {
      if (options.conversationId && message.conversationId !== options.conversationId) continue;
      const words = new Set(terms(message.content));
      const score = wanted.filter((t) => words.has(t)).length;
      if (score > 0) hits.push({ message, score, snippet: message.content.slice(0, 240) });
    }
    return hits.sort((a, b) => b.score - a.score || a.message.id.localeCompare(b.message.id)).slice(0, Math.max(1, options.limit ?? 20));
  }

  async stats(): Promise<StorageStats> {
    let bytes = 0;
    for (const { message } of this.#turns.values()) bytes += message.content.length * 2;
    return { databaseBytes: bytes, messageCount: this.#turns.size, conversationCount: this.#conversations.size, schemaVersion: 0 };
  }

  async exportDatabase(): Promise<Uint8Array> {
    throw new RecollectError('INVALID_INPUT', 'A memory kept only in this session has no database file to export.');
  }

  async importDatabase(_bytes: Uint8Array): Promise<ImportSummary> {
    throw new RecollectError('INVALID_INPUT', 'A memory kept only in this session cannot import a database file.');
  }

  async stageImport(_bytes: Uint8Array, _options?: ImportOptions): Promise<StagedImport> {
    throw new RecollectError('INVALID_INPUT', 'A memory kept only in this session cannot import a database file.');
  }

  // ---- vectors and meta -----------------------------------------------------------------------

  #items(kind: ItemKind, model: string): Map<string, Float32Array> {
    const key = `${kind}:${model}`;
    let items = this.#vectors.get(key);
    if (!items) this.#vectors.set(key, (items = new Map()));
    return items;
  }

  /** Only turns carry text here: facts, episodes and themes live in the SQL store's other tables. */
  #texts(kind: ItemKind): StoredTurn[] {
    return kind === 'message' ? [...this.#turns.values()].sort((a, b) => a.key - b.key) : [];
  }

  async putVectors(kind: ItemKind, vectorModelId: string, items: readonly ItemVector[]): Promise<void> {
    const known = new Set(this.#texts(kind).map((t) => t.message.id));
    const target = this.#items(kind, vectorModelId);
    for (const item of items) if (kind !== 'message' || known.has(item.itemId)) target.set(item.itemId, new Float32Array(item.vector));
  }

  async loadVectors(kind: ItemKind, vectorModelId: string): Promise<ItemVector[]> {
    return [...this.#items(kind, vectorModelId)].map(([itemId, vector]) => ({ itemId, vector }));
  }

  async getVectors(kind: ItemKind, itemIds: readonly string[], vectorModelId: string): Promise<ItemVector[]> {
    const items = this.#items(kind, vectorModelId);
    return itemIds.filter((id) => items.has(id)).map((itemId) => ({ itemId, vector: items.get(itemId)! }));
  }

  async countVectors(kind: ItemKind, vectorModelId: string): Promise<number> {
    return this.#items(kind, vectorModelId).size;
  }

  async countItems(kind: ItemKind): Promise<number> {
    return this.#texts(kind).length;
  }

  async pendingEmbeddings(kind: ItemKind, vectorModelId: string, limit: number, after?: number): Promise<PendingEmbedding[]> {
    const have = this.#items(kind, vectorModelId);
    return this.#texts(kind)
      .filter((t) => (after === undefined || t.key > after) && !have.has(t.message.id))
      .slice(0, limit)
      .map((t) => ({ itemId: t.message.id, text: t.message.content, key: t.key }));
  }

  async newestPendingKey(kind: ItemKind, vectorModelId: string, count: number): Promise<number> {
    const have = this.#items(kind, vectorModelId);
    const missing = this.#texts(kind)
      .filter((t) => !have.has(t.message.id))
      .slice(-Math.max(1, count));
    return missing[0]?.key ?? Number.MAX_SAFE_INTEGER;
  }

  async pendingReembed(
    kind: ItemKind,
    fromVectorModelId: string,
    toVectorModelId: string,
    limit: number,
    after?: number,
  ): Promise<PendingEmbedding[]> {
    const from = this.#items(kind, fromVectorModelId);
    const to = this.#items(kind, toVectorModelId);
    return this.#texts(kind)
      .filter((t) => (after === undefined || t.key > after) && from.has(t.message.id) && !to.has(t.message.id))
      .slice(0, limit)
      .map((t) => ({ itemId: t.message.id, text: t.message.content, key: t.key }));
  }

  async deleteOtherVectors(kind: ItemKind, keepVectorModelId: string): Promise<number> {
    let deleted = 0;
    for (const [key, items] of this.#vectors) {
      if (key.startsWith(`${kind}:`) && key !== `${kind}:${keepVectorModelId}`) {
        deleted += items.size;
        this.#vectors.delete(key);
      }
    }
    return deleted;
  }

  async getMeta(key: string): Promise<string | null> {
    return this.#meta.get(key) ?? null;
  }

  async setMeta(key: string, value: string): Promise<void> {
    this.#meta.set(key, value);
  }
}
