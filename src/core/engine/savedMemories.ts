/**
 * Memories the person writes: "Add a memory" by hand, and an explicit request in a chat message
 * ("remember that I'm vegetarian", capture/rememberRequest.ts), saved when the message is sent
 * instead of waiting for the episode's synthesis. Either becomes an explicit profile item marked as
 * written by the user (so synthesis proposes changes to it as conflicts instead of overwriting it),
 * with an 'add' history row. Facts need a source episode; a written memory has none, which is why
 * it lives in the profile.
 *
 * A memory asked for in a message is tied to it by an evidence entry `message:<id>` (no schema
 * change: evidence is a JSON list, elsewhere of episode ids), so deleting the message deletes the
 * memory (storage/deletedTurns.ts) and the chat shows "Memory updated" under that message.
 *
 * Import memory… writes through the same path: each memory the person kept from another assistant
 * is a saved memory like one typed here, dated when the other assistant saved it, and its history
 * row's reason says where it came from ("imported from ChatGPT", "imported from Claude (plan)") —
 * the free-form field a source needs, so no column is added. A memory already known (the same
 * words, compared by memoryIdentity) is not written again.
 */
import { importReason, memoryIdentity, type CarriedKind, type MemoryImportRequest, type MemoryImportResult } from '../base/carriedMemory';
import { RecollectError } from '../base/errors';
import { isSaneTime, MAX_MEMORY_CHARS } from '../base/limits';
import type { Clock } from '../base/ports';
import type { Message } from '../base/types';
import {
  ASKED_IN_MESSAGE,
  MESSAGE_EVIDENCE,
  messageEvidence,
  type KnowledgeStore,
  type ProfileChange,
  type ProfileItem,
} from '../synthesis/knowledge';
import { rememberRequest } from '../capture/rememberRequest';
import type { MessageMemory } from '../explorer/explorer';

export { MAX_MEMORY_CHARS };
export type { ImportedMemory, MemoryImportRequest, MemoryImportResult } from '../base/carriedMemory';
export { importedFrom, importReason } from '../base/carriedMemory';

/** More than anyone's memory list; a bigger paste is almost certainly something else. */
export const MAX_IMPORTED_MEMORIES = 5_000;
const MAX_SOURCE_CHARS = 60;

export interface SavedMemoriesDeps {
  readonly knowledge: KnowledgeStore | null;
  readonly clock: Clock;
  readonly newId: () => string;
  readonly changed: () => void;
}

/** The item's key: its first words, so the profile list reads well. */
export function memoryKey(text: string): string {
  const words = text.split(/\s+/).slice(0, 6).join(' ');
  return words.length > 48 ? `${words.slice(0, 47)}…` : words;
}

function cleanMemory(text: unknown): string {
  const value = typeof text === 'string' ? text.replace(/\s+/g, ' ').trim() : '';
  if (!value) throw new RecollectError('INVALID_INPUT', 'Write the memory first.');
  if (value.length > MAX_MEMORY_CHARS)
    throw new RecollectError(
      'INVALID_INPUT',
      `A memory holds at most ${MAX_MEMORY_CHARS} characters; this one has ${value.length}. Split it in two.`,
    );
  return value;
}

export class SavedMemories {
  readonly #deps: SavedMemoriesDeps;

  constructor(deps: SavedMemoriesDeps) {
    this.#deps = deps;
  }

  #knowledge(): KnowledgeStore {
    if (!this.#deps.knowledge) throw new RecollectError('INTERNAL', 'This engine was built without a knowledge store.');
    return this.#deps.knowledge;
  }

  /** A saved memory's row and its 'add' history, dated `at`. */
  #change(value: string, at: number, reason: string, evidence: readonly string[] = [], id?: string): ProfileChange {
    const now = this.#deps.clock.now();
    const item: ProfileItem = {
      id: id ?? this.#deps.newId(),
      kind: 'explicit',
      key: memoryKey(value),
      value,
      confidence: 1,
      evidence,
      status: 'active',
      editedByUser: true,
      createdAt: at,
      updatedAt: now,
    };
    return { item, insert: true, history: { op: 'add', value, confidence: 1, evidence, reason } };
  }

  /** `id`: the memory's id on the device it was written on (sync keeps one id on every device). */
  async add(text: string, id?: string): Promise<ProfileItem> {
    return this.#save(text, [], id ? 'added by the user on another device' : 'added by the user', id);
  }

  /**
   * A memory saved on another device (sync), under its id: tied to the message it was asked for in
   * (`fromTurnId`, so deleting that message deletes it here too), or with the reason it was saved
   * there (imported from another assistant), or as written by the person there.
   */
  async adopt(memory: { id: string; text: string; fromTurnId: string | null; reason: string | null }): Promise<ProfileItem> {
    if (memory.fromTurnId) return this.#save(memory.text, [messageEvidence(memory.fromTurnId)], ASKED_IN_MESSAGE, memory.id);
    return this.#save(memory.text, [], memory.reason ?? 'added by the user on another device', memory.id);
  }

  /**
   * Saves what `message` explicitly asks to be remembered, tied to it; null when it asks nothing,
   * or what it asks is too long to be one memory. A message already tied to a memory (a send
   * retried under the same id) gets no second one.
   */
  async rememberFrom(message: Message): Promise<ProfileItem | null> {
    const { knowledge } = this.#deps;
    if (!knowledge || message.role !== 'user') return null;
    const asked = rememberRequest(message.content);
    if (!asked || asked.text.length > MAX_MEMORY_CHARS) return null;
    const link = messageEvidence(message.id);
    const already = (await knowledge.profileItems()).find((p) => p.evidence.includes(link));
    return already ?? this.#save(asked.text, [link], ASKED_IN_MESSAGE);
  }

  /** Every memory saved from a message that is still in memory (few: one per explicit request). */
  async fromMessages(): Promise<MessageMemory[]> {
    const { knowledge } = this.#deps;
    if (!knowledge) return [];
    const out: MessageMemory[] = [];
    for (const p of await knowledge.profileItems()) {
      if (p.status !== 'active') continue;
      for (const e of p.evidence)
        if (e.startsWith(MESSAGE_EVIDENCE)) out.push({ messageId: e.slice(MESSAGE_EVIDENCE.length), profileItemId: p.id, value: p.value });
    }
    return out;
  }

  async #save(text: string, evidence: readonly string[], reason: string, id?: string): Promise<ProfileItem> {
    const knowledge = this.#knowledge();
    const value = cleanMemory(text);
    const now = this.#deps.clock.now();
    const change = this.#change(value, now, reason, evidence, id);
    const written = await knowledge.updateProfileItems(() => [change], now);
    if (written.length === 0) throw new RecollectError('INTERNAL', 'The memory was not stored.');
    this.#deps.changed();
    return change.item;
  }

  /**
   * Stores the memories not already known — not in the profile (read in the same transaction) nor
   * in `known` (facts and plans, as memoryIdentity) nor earlier in `items` — all or nothing: one
   * bad memory refuses the whole request before anything is written.
   */
  async importMany(request: MemoryImportRequest, known: ReadonlySet<string>): Promise<MemoryImportResult> {
    const knowledge = this.#knowledge();
    const source = typeof request.source === 'string' ? request.source.replace(/\s+/g, ' ').trim() : '';
    if (!source || source.length > MAX_SOURCE_CHARS)
      throw new RecollectError('INVALID_INPUT', `Say where the memories come from (at most ${MAX_SOURCE_CHARS} characters).`);
    if (!Array.isArray(request.items) || request.items.length === 0)
      throw new RecollectError('INVALID_INPUT', 'Choose at least one memory to import.');
    if (request.items.length > MAX_IMPORTED_MEMORIES)
      throw new RecollectError(
        'INVALID_INPUT',
        `At most ${MAX_IMPORTED_MEMORIES} memories can be imported at once; this has ${request.items.length}.`,
      );
    const now = this.#deps.clock.now();
    const clean = request.items.map((m, i) => {
      try {
        const kind: CarriedKind = m.kind === 'plan' || m.kind === 'fact' ? m.kind : 'about';
        return { value: cleanMemory(m.text), kind, at: isSaneTime(m.at) ? m.at : now };
      } catch (err) {
        throw new RecollectError('INVALID_INPUT', `Memory ${i + 1}: ${(err as Error).message} Nothing was imported.`);
      }
    });
    let alreadyKnown = 0;
    const written = await knowledge.updateProfileItems((current) => {
      const have = new Set(known);
      for (const p of current) have.add(memoryIdentity(p.value));
      const changes: ProfileChange[] = [];
      alreadyKnown = 0;
      for (const m of clean) {
        const id = memoryIdentity(m.value);
        if (have.has(id)) {
          alreadyKnown++;
          continue;
        }
        have.add(id);
        changes.push(this.#change(m.value, m.at, importReason(source, m.kind)));
      }
      return changes;
    }, now);
    if (written.length) this.#deps.changed();
    return { added: written.length, alreadyKnown };
  }
}
