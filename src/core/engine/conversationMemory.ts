/**
 * The memory switches of a conversation and their defaults for new conversations.
 *
 * - "Use memory in answers" off: answers there get no retrieved memory (AnswerService sends only
 *   the conversation's own recent turns, and the prompt says memory is off).
 * - "Remember this conversation" off: its turns are stored and searchable in the chat, but they are
 *   not memory — the lifecycle does not segment them (storage skips the conversation) and answers
 *   never retrieve them (the MemoryReader leaves them out of its candidate queries), in this
 *   conversation or any other.
 * - Turning "remember" on later makes the whole conversation memory: every turn not yet in an
 *   episode is placed, including the ones written while it was off.
 * - Turning it off after turns were remembered keeps the episodes and facts already made from it
 *   (the user deletes them in the explorer if they want them gone); its turns stop being retrieved.
 *
 * A temporary chat is different again: it stores nothing at all (AnswerService).
 */
import { RecollectError } from '../base/errors';
import { META_KEYS, flagOf } from '../base/settings';
import type { MemoryStore, MetaStore } from '../base/store';
import type { Conversation, ConversationMemory } from '../base/types';

/** New conversations use memory and are remembered unless the user chose otherwise in Settings. */
export const DEFAULT_CONVERSATION_MEMORY: ConversationMemory = { useMemory: true, remember: true };

export interface ConversationMemoryDeps {
  readonly store: Pick<MemoryStore, 'createConversation' | 'getConversation' | 'setConversationMemory' | 'conversationsNotRemembered'>;
  readonly meta: MetaStore;
  /** A conversation became memory again: the lifecycle should place its waiting turns. */
  readonly onRemembered: () => void;
  readonly changed: () => void;
}

function checkPatch(patch: Partial<ConversationMemory>): Partial<ConversationMemory> {
  const out: { useMemory?: boolean; remember?: boolean } = {};
  for (const key of ['useMemory', 'remember'] as const) {
    const v = (patch as Record<string, unknown>)[key];
    if (v === undefined) continue;
    if (typeof v !== 'boolean') throw new RecollectError('INVALID_INPUT', `The memory switch "${key}" must be on or off.`);
    out[key] = v;
  }
  return out;
}

export class ConversationMemorySwitches {
  readonly #d: ConversationMemoryDeps;

  constructor(deps: ConversationMemoryDeps) {
    this.#d = deps;
  }

  async defaults(): Promise<ConversationMemory> {
    const { meta } = this.#d;
    return {
      useMemory: flagOf(await meta.getMeta(META_KEYS.useMemoryDefault), DEFAULT_CONVERSATION_MEMORY.useMemory),
      remember: flagOf(await meta.getMeta(META_KEYS.rememberDefault), DEFAULT_CONVERSATION_MEMORY.remember),
    };
  }

  async setDefaults(patch: Partial<ConversationMemory>): Promise<ConversationMemory> {
    const p = checkPatch(patch);
    if (p.useMemory !== undefined) await this.#d.meta.setMeta(META_KEYS.useMemoryDefault, p.useMemory ? '1' : '0');
    if (p.remember !== undefined) await this.#d.meta.setMeta(META_KEYS.rememberDefault, p.remember ? '1' : '0');
    return this.defaults();
  }

  /** A new conversation with the switches of the defaults unless the input sets them. */
  async create(
    input: { readonly id?: string; readonly title: string; readonly projectId?: string | null } & Partial<ConversationMemory>,
  ): Promise<Conversation> {
    const defaults = await this.defaults();
    if (input.projectId !== undefined && input.projectId !== null && typeof input.projectId !== 'string')
      throw new RecollectError('INVALID_INPUT', 'Choose a project, or none.');
    const created = await this.#d.store.createConversation({ ...input, ...defaults, ...checkPatch(input) });
    this.#d.changed();
    return created;
  }

  async set(id: string, patch: Partial<ConversationMemory>): Promise<Conversation> {
    const p = checkPatch(patch);
    const before = await this.#d.store.getConversation(id);
    if (!before) throw new RecollectError('NOT_FOUND', 'That conversation no longer exists.');
    const after = await this.#d.store.setConversationMemory(id, p);
    if (!before.remember && after.remember) this.#d.onRemembered();
    this.#d.changed();
    return after;
  }

  /** Whether answers in this conversation may draw on memory (a missing conversation: yes). */
  async usesMemory(conversationId: string): Promise<boolean> {
    return (await this.#d.store.getConversation(conversationId))?.useMemory ?? true;
  }
}
