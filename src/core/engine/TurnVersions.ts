/**
 * Versions of a turn: an edit anywhere or a regenerated answer keeps the branch it replaces as an
 * earlier version (‹ 2/3 › in the chat), and showing a version swaps the branches back. Storage
 * does the swap in one transaction (storage/turnVersions.ts); this module does what must follow
 * every swap, the same things a deletion and an append do: a hidden turn leaves the vector index
 * and its episode is re-derived without it, a shown turn is embedded and segmented again. So
 * memory follows the version that is shown.
 */
import { RecollectError } from '../base/errors';
import type { MemoryStore, TurnVersionPosition } from '../base/store';
import type { SemanticIndex } from '../capture/SemanticIndex';
import type { EngineEvent } from '../protocol';

/** What follows a swap: the parts of Conversations' dependencies a deletion and an append use. */
export interface TurnVersionsDeps {
  readonly store: MemoryStore;
  readonly semantic: SemanticIndex;
  readonly written: () => void;
  readonly emptied: (conversationId: string) => Promise<void>;
  readonly turnsDeleted: () => void;
  readonly emit: (event: EngineEvent) => void;
  readonly synced?: { noteTurns(turnIds: readonly string[]): void; noteTurnsHidden(turnIds: readonly string[]): void };
}

export class TurnVersions {
  readonly #d: TurnVersionsDeps;

  constructor(deps: TurnVersionsDeps) {
    this.#d = deps;
  }

  get supported(): boolean {
    return this.#d.store.startVersion !== undefined && this.#d.store.showVersion !== undefined;
  }

  /** The positions of a conversation that have versions; [] for a store without versions. */
  list(conversationId: string): Promise<TurnVersionPosition[]> {
    return this.#d.store.turnVersions?.(conversationId) ?? Promise.resolve([]);
  }

  /** Shows version `version` of the branch after `afterId` ('' = the start of the conversation). */
  async show(conversationId: string, afterId: string, version: number): Promise<void> {
    if (!this.#d.store.showVersion) throw new RecollectError('INTERNAL', 'This store keeps no versions.');
    if (!Number.isInteger(version) || version < 1) throw new RecollectError('INVALID_INPUT', 'A version is a whole number from 1.');
    const { hidden, shown } = await this.#d.store.showVersion(conversationId, afterId, version);
    await this.followHidden(conversationId, hidden);
    this.#d.synced?.noteTurns(shown.map((m) => m.id));
    this.#d.emit({ type: 'messages-changed', conversationId });
    this.#d.emit({ type: 'conversations-changed' });
    if (shown.length) this.#d.written();
  }

  /**
   * Keeps the answer `answerId` (and what followed it) as an earlier version and opens a new one
   * for the caller to fill with answers.ask; returns the user message the new answer answers.
   */
  async regenerate(answerId: string): Promise<{ readonly userMessageId: string }> {
    if (!this.#d.store.startVersion) throw new RecollectError('INTERNAL', 'This store keeps no versions.');
    const answer = await this.#d.store.getMessage(answerId);
    if (!answer || answer.role !== 'assistant') throw new RecollectError('NOT_FOUND', 'That answer is no longer stored.');
    const turns = await this.#d.store.listMessages(answer.conversationId);
    const at = turns.findIndex((t) => t.id === answerId);
    const question = at > 0 ? turns[at - 1]! : null;
    if (!question || question.role !== 'user')
      throw new RecollectError('INVALID_INPUT', 'Only an answer to your message can be regenerated.');
    const hidden = await this.#d.store.startVersion(answer.conversationId, answerId);
    await this.followHidden(answer.conversationId, hidden);
    this.#d.emit({ type: 'messages-changed', conversationId: answer.conversationId });
    return { userMessageId: question.id };
  }

  /**
   * Another device's version won at the place of `firstId` (sync): this chat's branch from there on
   * is kept as an earlier version, and the new version it opens takes the winner's turns as they
   * arrive. The fold already holds the branch hidden, so nothing is sent back.
   */
  async hideBranchElsewhere(conversationId: string, firstId: string): Promise<void> {
    if (!this.#d.store.startVersion) throw new RecollectError('INTERNAL', 'This store keeps no versions.');
    const hidden = await this.#d.store.startVersion(conversationId, firstId);
    await this.followHidden(conversationId, hidden);
    this.#d.emit({ type: 'messages-changed', conversationId });
  }

  /** What follows hiding turns: as for a deletion, their vectors and what their episodes derived go. */
  async followHidden(conversationId: string, hidden: readonly string[]): Promise<void> {
    if (hidden.length === 0) return;
    // Sync sends them as hidden (an earlier version), not deleted: showing them again brings them back everywhere.
    this.#d.synced?.noteTurnsHidden(hidden);
    for (const id of hidden) await this.#d.semantic.remove(id);
    await this.#d.emptied(conversationId);
    this.#d.turnsDeleted();
  }
}
