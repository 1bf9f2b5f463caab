/**
 * "Add a memory" by hand: a sentence the user wants Recollect to know becomes an explicit profile
 * item, marked as written by the user (so synthesis proposes changes to it as conflicts instead of
 * overwriting it), with an 'add' history row. Facts need a source episode; a hand-written memory
 * has none, which is why it lives in the profile.
 */
import { RecollectError } from '../base/errors';
import { MAX_MEMORY_CHARS } from '../base/limits';
import type { Clock } from '../base/ports';
import type { KnowledgeStore, ProfileItem } from '../synthesis/knowledge';

export { MAX_MEMORY_CHARS };

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
    const { knowledge, clock, newId, changed } = this.#deps;
    if (!knowledge) throw new RecollectError('INTERNAL', 'This engine was built without a knowledge store.');
    const value = typeof text === 'string' ? text.replace(/\s+/g, ' ').trim() : '';
    if (!value) throw new RecollectError('INVALID_INPUT', 'Write the memory first.');
    if (value.length > MAX_MEMORY_CHARS) throw new RecollectError('INVALID_INPUT', `A memory holds at most ${MAX_MEMORY_CHARS} characters; this one has ${value.length}. Split it in two.`);
    const now = clock.now();
    const item: ProfileItem = {
      id: newId(), kind: 'explicit', key: memoryKey(value), value, confidence: 1, evidence: [],
      status: 'active', editedByUser: true, createdAt: now, updatedAt: now,
    };
    await knowledge.updateProfileItems(() => [{ item, insert: true, history: { op: 'add', value, confidence: 1, evidence: [], reason: 'added by the user' } }], now);
    changed();
    return item;
  }
}
