/**
 * The memory engine: the API the UI talks to (through the worker), built from injected
 * capabilities. For now it stores, lists, searches and transfers turns; later stages (embedding,
 * segmentation, consolidation, retrieval) hang off the same write and read paths.
 */
import type { EngineApi, EngineEvent } from './protocol';
import type { MemoryStore, SearchOptions } from './store';
import type { AppendResult, Conversation, ImportSummary, Message, NewTurn, SearchHit, StorageStats } from './types';

export type EngineListener = (event: EngineEvent) => void;

export class MemoryEngine implements EngineApi {
  readonly #store: MemoryStore;
  readonly #listeners = new Set<EngineListener>();

  constructor(deps: { readonly store: MemoryStore }) {
    this.#store = deps.store;
  }

  on(listener: EngineListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(event: EngineEvent): void {
    for (const l of this.#listeners) {
      try {
        l(event);
      } catch {
        /* a broken listener must not break a write that already committed */
      }
    }
  }

  async createConversation(input: { id?: string; title: string }): Promise<Conversation> {
    const c = await this.#store.createConversation(input);
    this.#emit({ type: 'conversations-changed' });
    return c;
  }

  async renameConversation(id: string, title: string): Promise<Conversation> {
    const c = await this.#store.renameConversation(id, title);
    this.#emit({ type: 'conversations-changed' });
    return c;
  }

  async deleteConversation(id: string): Promise<void> {
    await this.#store.deleteConversation(id);
    this.#emit({ type: 'conversations-changed' });
    this.#emit({ type: 'messages-changed', conversationId: id });
  }

  listConversations(): Promise<Conversation[]> {
    return this.#store.listConversations();
  }

  async appendTurn(turn: NewTurn): Promise<AppendResult> {
    const result = await this.#store.appendTurn(turn);
    if (result.created) {
      this.#emit({ type: 'messages-changed', conversationId: turn.conversationId });
      this.#emit({ type: 'conversations-changed' });
    }
    return result;
  }

  listMessages(conversationId: string): Promise<Message[]> {
    return this.#store.listMessages(conversationId);
  }

  async deleteMessage(id: string): Promise<boolean> {
    const message = await this.#store.getMessage(id);
    const deleted = await this.#store.deleteMessage(id);
    if (deleted) {
      this.#emit({ type: 'messages-changed', conversationId: message?.conversationId ?? null });
      this.#emit({ type: 'conversations-changed' });
    }
    return deleted;
  }

  searchMessages(query: string, options?: SearchOptions): Promise<SearchHit[]> {
    return this.#store.searchMessages(query, options);
  }

  stats(): Promise<StorageStats> {
    return this.#store.stats();
  }

  exportDatabase(): Promise<Uint8Array> {
    return this.#store.exportDatabase();
  }

  async importDatabase(bytes: Uint8Array): Promise<ImportSummary> {
    const summary = await this.#store.importDatabase(bytes);
    this.#emit({ type: 'database-replaced' });
    return summary;
  }
}
