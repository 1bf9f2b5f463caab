/**
 * The one writer of conversations and turns: create, rename, the memory switches, append, send (an
 * edit of any message included: it starts a new version, TurnVersions.ts), delete, and titles. Everything that must follow a write —
 * events for the UI, the vector index, the background work — happens here, once, for every caller
 * (the chat, the answer service, the history import).
 *
 * Titles: a conversation is "New conversation" until its first message is sent, then takes that
 * message's title in the same transaction; after its first exchange the endpoint may name it once.
 * A title the user gave is never replaced (the store records who titled a conversation).
 */
import { RecollectError } from '../base/errors';
import type { Llm } from '../base/ports';
import type { AppendOptions, MemoryStore } from '../base/store';
import type {
  AppendResult,
  Conversation,
  ConversationMemory,
  ConversationModel,
  ConversationPlace,
  Message,
  MessageWindow,
  MessageWindowRequest,
  NewTurn,
} from '../base/types';
import { titleFrom } from '../base/titles';
import type { SemanticIndex } from '../capture/SemanticIndex';
import type { EngineEvent, SendRequest } from '../protocol';
import type { ConversationMemorySwitches } from './conversationMemory';
import { titleByEndpoint } from './conversationTitles';
import { TurnVersions } from './TurnVersions';

export interface ConversationsDeps {
  readonly store: MemoryStore;
  readonly switches: ConversationMemorySwitches;
  /** The message vector index, kept in step with deletions. */
  readonly semantic: SemanticIndex;
  /** New turns were stored: background embedding and segmentation should run. */
  readonly written: () => void;
  /** Turns were deleted from a conversation: episodes left with no turn go (nothing synthesised from them). */
  readonly emptied: (conversationId: string) => Promise<void>;
  /** Turns were deleted or replaced: what their episodes derived went with them. */
  readonly turnsDeleted: () => void;
  /** A whole conversation went: cached open episodes must be forgotten. */
  readonly conversationDeleted: () => void;
  readonly llm: () => Llm | null;
  readonly emit: (event: EngineEvent) => void;
  /**
   * A sent message that explicitly asks to be remembered is saved as a memory before send returns,
   * so the answer to it already has it (savedMemories.ts rememberFrom; idempotent per message).
   */
  readonly remember?: (message: Message) => Promise<unknown>;
  /** Makes background embedding wait between batches until the returned function is called. */
  readonly pauseEmbedding?: () => () => void;
  /** Sync (SyncService): told what changed after each write; it records only what the synced log lacks. */
  readonly synced?: SyncNotes;
}

/** What the write paths tell sync; each call returns at once and does nothing while sync is off. */
export interface SyncNotes {
  /** Sync is on (a deletion then lists what it deletes first). */
  readonly on: boolean;
  noteConversation(id: string): void;
  noteTurns(turnIds: readonly string[]): void;
  noteTurnsDeleted(turnIds: readonly string[]): void;
  /** Turns moved into an earlier version (an edit, a regenerated answer): hidden, not deleted. */
  noteTurnsHidden(turnIds: readonly string[]): void;
  /** Hidden versions of the conversation may be gone (a deletion reached them). */
  noteVersionsGone(conversationId: string): void;
  noteProject(id: string): void;
}

export class Conversations {
  readonly #d: ConversationsDeps;
  /** Versions of a turn: edits and regenerated answers keep what they replace (TurnVersions.ts). */
  readonly versions: TurnVersions;

  constructor(deps: ConversationsDeps) {
    this.#d = deps;
    this.versions = new TurnVersions(deps);
  }

  list(): Promise<Conversation[]> {
    return this.#d.store.listConversations();
  }
  messages(conversationId: string): Promise<Message[]> {
    return this.#d.store.listMessages(conversationId);
  }
  messageWindow(conversationId: string, request: MessageWindowRequest): Promise<MessageWindow> {
    return this.#d.store.listMessageWindow(conversationId, request);
  }

  async create(
    input: { readonly id?: string; readonly title: string; readonly projectId?: string | null } & Partial<ConversationMemory>,
  ): Promise<Conversation> {
    const created = await this.#d.switches.create(input);
    this.#d.synced?.noteConversation(created.id);
    return created;
  }
  async setMemory(id: string, patch: Partial<ConversationMemory>): Promise<Conversation> {
    const changed = await this.#d.switches.set(id, patch);
    this.#d.synced?.noteConversation(id);
    return changed;
  }
  memoryDefaults(): Promise<ConversationMemory> {
    return this.#d.switches.defaults();
  }
  setMemoryDefaults(patch: Partial<ConversationMemory>): Promise<ConversationMemory> {
    return this.#d.switches.setDefaults(patch);
  }

  /** Pinned on top, or archived out of the list (memory is untouched either way). */
  async place(id: string, patch: Partial<ConversationPlace>): Promise<Conversation> {
    const clean: { pinned?: boolean; archived?: boolean } = {};
    for (const key of ['pinned', 'archived'] as const) {
      const v = (patch as Record<string, unknown> | null)?.[key];
      if (v === undefined) continue;
      if (typeof v !== 'boolean') throw new RecollectError('INVALID_INPUT', `"${key}" must be true or false.`);
      clean[key] = v;
    }
    const placed = await this.#d.store.placeConversation(id, clean);
    this.#d.emit({ type: 'conversations-changed' });
    return placed;
  }

  /** The conversation's own model; its next answers use it (AnswerService asks LlmChoice for it). */
  async setModel(id: string, model: ConversationModel): Promise<Conversation> {
    const changed = await this.#d.store.setConversationModel(id, checkModel(model));
    this.#d.emit({ type: 'conversations-changed' });
    return changed;
  }

  /** The user's own title: never replaced by the first message's or the endpoint's. */
  async rename(id: string, title: string): Promise<Conversation> {
    const renamed = await this.#d.store.renameConversation(id, title, 'user');
    this.#d.synced?.noteConversation(id);
    this.#d.emit({ type: 'conversations-changed' });
    return renamed;
  }

  /** `deferTurnIndex`: a history import's batch, whose turn index trails it (trailingIndex.ts); `create`: its new conversations, in the same transaction. */
  async append(turns: readonly NewTurn[], options: AppendOptions = {}): Promise<AppendResult[]> {
    const results = await this.#d.store.appendTurns(turns, options);
    this.#d.synced?.noteTurns(results.filter((r) => r.created).map((r) => r.message.id));
    this.#written(results);
    return results;
  }

  async appendOne(turn: NewTurn): Promise<AppendResult> {
    return (await this.append([turn]))[0]!;
  }

  /**
   * The user's message, stored in one transaction with what it implies: an edit hides the edited
   * message and everything after it as an earlier version (deletes them, in a store without versions), and an untitled conversation takes its title. The id
   * comes from the caller, so a retry after a lost reply cannot store the message twice.
   *
   * Idempotent by id: a message already stored under `request.id` (the engine died after the commit
   * and before its reply, and the person pressed Enter again) is returned as it is and nothing else
   * happens — in particular an edit is not applied a second time (the edited turn went with the
   * first send, so looking it up again would fail).
   */
  async send(request: SendRequest): Promise<Message> {
    const content = typeof request.content === 'string' ? request.content : '';
    if (!content.trim()) throw new RecollectError('INVALID_INPUT', 'Write something first.');
    const already = typeof request.id === 'string' && request.id ? await this.#d.store.getMessage(request.id) : null;
    if (already) {
      if (already.conversationId !== request.conversationId || already.role !== 'user') {
        throw new RecollectError('INVALID_INPUT', 'A different message with this id is already stored.');
      }
      // The engine may have died between storing the message and saving what it asked to remember.
      await this.#remember(already);
      return already;
    }
    let replaces: string[] = [];
    if (request.replaces !== undefined) {
      const turns = await this.#d.store.listMessages(request.conversationId);
      const edited = turns.find((t) => t.id === request.replaces);
      if (!edited) throw new RecollectError('NOT_FOUND', 'The message being edited is no longer stored.');
      replaces = turns.filter((t) => t.seq >= edited.seq).map((t) => t.id);
    }
    // An edit keeps the edited message and what followed it as an earlier version, where the store keeps versions.
    const keep = request.replaces !== undefined && this.versions.supported;
    const result = await this.#d.store.sendTurn(
      { id: request.id, conversationId: request.conversationId, role: 'user', speaker: 'You', content },
      keep ? { branchFrom: request.replaces, title: titleFrom(content) } : { replaces, title: titleFrom(content) },
    );
    await this.versions.followHidden(request.conversationId, replaces);
    this.#d.synced?.noteTurns([result.message.id]);
    await this.#remember(result.message);
    this.#written([result], replaces.length > 0);
    return result.message;
  }

  /**
   * "Remember that…" in a conversation that is memory. One whose "remember this conversation" is
   * off is not memory, so nothing is saved from it. The message is stored already: a failure to
   * save the memory must not fail the send (the chat then shows no "Memory updated" line).
   */
  async #remember(message: Message): Promise<void> {
    if (!this.#d.remember) return;
    try {
      const conversation = await this.#d.store.getConversation(message.conversationId);
      if (conversation && !conversation.remember) return;
      await this.#d.remember(message);
    } catch {
      /* the turn is kept; its memory can still be added by hand in Saved memories */
    }
  }

  /**
   * `hiddenElsewhere`: the turn became an earlier version on another device (sync): it goes from
   * this chat like a deletion, but it is not deleted in the synced memory, so nothing is sent back.
   */
  async deleteMessage(id: string, options: { readonly hiddenElsewhere?: boolean } = {}): Promise<boolean> {
    return this.#whileDeleting(async () => {
      const message = await this.#d.store.getMessage(id);
      const deleted = await this.#d.store.deleteMessage(id, { keepVersions: options.hiddenElsewhere === true });
      if (!deleted) return false;
      if (!options.hiddenElsewhere) {
        this.#d.synced?.noteTurnsDeleted([id]);
        // Its hidden versions went with it.
        if (message) this.#d.synced?.noteVersionsGone(message.conversationId);
      }
      await this.#d.semantic.remove(id);
      if (message) await this.#d.emptied(message.conversationId);
      this.#d.turnsDeleted();
      this.#d.emit({ type: 'messages-changed', conversationId: message?.conversationId ?? null });
      this.#d.emit({ type: 'conversations-changed' });
      return true;
    });
  }

  /** A turn edited on another device (sync): its text replaced in place, embedded again, and its episode re-derived per the policy. */
  async replaceText(id: string, content: string): Promise<boolean> {
    const message = await this.#d.store.getMessage(id);
    if (!message || !this.#d.store.replaceMessageContent || !(await this.#d.store.replaceMessageContent(id, content))) return false;
    await this.#d.semantic.remove(id);
    this.#d.turnsDeleted();
    this.#d.emit({ type: 'messages-changed', conversationId: message.conversationId });
    this.#d.written();
    return true;
  }

  async delete(id: string): Promise<void> {
    await this.#whileDeleting(async () => {
      const turnIds = this.#d.synced?.on ? (await this.#d.store.listMessages(id)).map((m) => m.id) : [];
      await this.#d.store.deleteConversation(id);
      this.#d.synced?.noteTurnsDeleted(turnIds);
      this.#d.synced?.noteVersionsGone(id);
      this.#d.semantic.reset();
      this.#d.conversationDeleted();
      this.#d.emit({ type: 'messages-changed', conversationId: id });
      this.#d.emit({ type: 'conversations-changed' });
    });
  }

  /**
   * A deletion the person waits for: background embedding holds between batches from before it
   * until its words have left every copy the database keeps (Store.whenScrubbed), so neither the
   * deletion nor its scrub steps queue behind the indexer's writes on the one connection (a
   * delete during the first open's indexing took 11–15 s, bench/deleteDuringIndexing.ts). The call
   * returns as soon as the rows are gone (committed, out of search and of every list): the scrub
   * rewrites the whole full-text index, 15–35 s in Playwright's in-memory OPFS and 1–2 s on a
   * real profile at 4,700 turns (bench/results/delete-profile-2026-11-28.md), and a person waiting
   * for it saw nothing happen. Exports wait for the scrub (WaSqliteDatabase.serialize). Indexing
   * resumes once the scrub ends: delayed, never stopped.
   */
  async #whileDeleting<T>(run: () => Promise<T>): Promise<T> {
    const resume = this.#d.pauseEmbedding?.() ?? (() => undefined);
    let result: T;
    try {
      result = await run();
    } catch (err) {
      resume();
      throw err;
    }
    void (this.#d.store.whenScrubbed?.() ?? Promise.resolve()).finally(resume);
    return result;
  }

  /** After an answer was stored: the endpoint names the conversation after its first exchange. */
  async answered(conversationId: string): Promise<void> {
    const title = await titleByEndpoint(
      {
        llm: this.#d.llm(),
        getConversation: (c) => this.#d.store.getConversation(c),
        messageWindow: (c, request) => this.#d.store.listMessageWindow(c, request),
      },
      conversationId,
    );
    if (title === null) return;
    await this.#d.store.renameConversation(conversationId, title, 'endpoint');
    this.#d.synced?.noteConversation(conversationId);
    this.#d.emit({ type: 'conversations-changed' });
  }

  #written(results: readonly AppendResult[], changedAnyway = false): void {
    const changed = new Set(results.filter((r) => r.created).map((r) => r.message.conversationId));
    if (changedAnyway) for (const r of results) changed.add(r.message.conversationId);
    for (const conversationId of changed) this.#d.emit({ type: 'messages-changed', conversationId });
    if (changed.size === 0) return;
    this.#d.emit({ type: 'conversations-changed' });
    this.#d.written();
  }
}

/** An endpoint model name is what the person typed or picked, trimmed; nothing else is accepted. */
export function checkModel(model: unknown): ConversationModel {
  if (model === null) return null;
  const m = model as { kind?: unknown; name?: unknown };
  if (m?.kind === 'device') return { kind: 'device' };
  if (m?.kind === 'endpoint' && typeof m.name === 'string') {
    const name = m.name.trim();
    if (!name) throw new RecollectError('INVALID_INPUT', 'Enter a model name, or choose the default.');
    if (name.length > MAX_MODEL_NAME) throw new RecollectError('INVALID_INPUT', `A model name has at most ${MAX_MODEL_NAME} characters.`);
    return { kind: 'endpoint', name };
  }
  throw new RecollectError('INVALID_INPUT', 'A conversation answers with an endpoint model, the model on this device, or the default.');
}

const MAX_MODEL_NAME = 200;
