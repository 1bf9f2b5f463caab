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
 */
import { RecollectError } from '../base/errors';
import type { Clock } from '../base/ports';
import type { Message } from '../base/types';
import { ASKED_IN_MESSAGE, MESSAGE_EVIDENCE, messageEvidence, type KnowledgeStore, type ProfileItem } from '../synthesis/knowledge';
import { rememberRequest } from '../capture/rememberRequest';
import type { MessageMemory } from '../explorer/explorer';

/** Long enough for a paragraph about oneself, short enough to stay a single memory. */
export const MAX_MEMORY_CHARS = 600;

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

export class SavedMemories {
  readonly #deps: SavedMemoriesDeps;

  constructor(deps: SavedMemoriesDeps) {
    this.#deps = deps;
  }

  async add(text: string): Promise<ProfileItem> {
    return this.#save(text, [], 'added by the user');
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
      for (const e of p.evidence) if (e.startsWith(MESSAGE_EVIDENCE)) out.push({ messageId: e.slice(MESSAGE_EVIDENCE.length), profileItemId: p.id, value: p.value });
    }
    return out;
  }

  async #save(text: string, evidence: readonly string[], reason: string): Promise<ProfileItem> {
    const { knowledge, clock, newId, changed } = this.#deps;
    if (!knowledge) throw new RecollectError('INTERNAL', 'This engine was built without a knowledge store.');
    const value = typeof text === 'string' ? text.replace(/\s+/g, ' ').trim() : '';
    if (!value) throw new RecollectError('INVALID_INPUT', 'Write the memory first.');
    if (value.length > MAX_MEMORY_CHARS) throw new RecollectError('INVALID_INPUT', `A memory holds at most ${MAX_MEMORY_CHARS} characters; this one has ${value.length}. Split it in two.`);
    const now = clock.now();
    const item: ProfileItem = {
      id: newId(), kind: 'explicit', key: memoryKey(value), value, confidence: 1, evidence,
      status: 'active', editedByUser: true, createdAt: now, updatedAt: now,
    };
    const written = await knowledge.updateProfileItems(() => [{ item, insert: true, history: { op: 'add', value, confidence: 1, evidence, reason } }], now);
    if (written.length === 0) throw new RecollectError('INTERNAL', 'The memory was not stored.');
    changed();
    return item;
  }
}
