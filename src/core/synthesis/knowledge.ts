/**
 * The storage contract of LLM synthesis (facts, foresight, scene summaries, profile), implemented
 * over SQLite by src/storage/knowledgeRepo.ts. Core decides *what* to write (synthesis.ts); the
 * store writes it, each method that changes several rows in ONE transaction.
 *
 * Encoding of fact relations in the v1 `facts` table (no extra column):
 * - update:        old.superseded_by = new.id and old.valid_to is closed (the old value was true
 *                  until the change), so "where did she live in 2022?" still finds the old fact.
 * - contradiction: old.superseded_by = new.id, old.valid_to left open and old.confidence capped
 *                  at CONTRADICTED_CONFIDENCE: the two statements disagree, and we do not know
 *                  that the world changed. (Nothing lists contradictions apart yet: an unused
 *                  reader was removed; a dedicated `facts.relation` column would make it explicit.)
 */
import type { Fact, MemCell, Message } from '../base/types';

export const CONTRADICTED_CONFIDENCE = 0.5;

export interface CellTurn extends Pick<Message, 'seq' | 'role' | 'speaker' | 'content' | 'occurredAt'> {
  readonly messageId: string;
}

export interface CellForSynthesis extends Pick<MemCell, 'id' | 'conversationId' | 'sceneId' | 'startAt' | 'endAt' | 'title' | 'narrative'> {
  /** A user-edited title/narrative is kept; facts and foresight are still refreshed. */
  readonly editedByUser: boolean;
  readonly turns: readonly CellTurn[];
}

/** A fact already known, shown to the model so it returns only what is new (predict-calibrate). */
export type KnownFact = Pick<Fact, 'id' | 'memcellId' | 'speaker' | 'content'>;

export type FactRelation = 'new' | 'update' | 'contradiction';

export interface NewFact extends Pick<Fact, 'speaker' | 'content' | 'occurredAt' | 'validFrom' | 'validTo' | 'confidence'> {
  readonly relation: FactRelation;
  /** The known fact this one updates or contradicts (relation !== 'new'). */
  readonly replaces: string | null;
}

export interface NewForesight {
  readonly content: string;
  readonly startAt: number;
  readonly endAt: number;
  /** Message ids of the turns it rests on. */
  readonly evidence: readonly string[];
}

export interface MemCellSynthesisWrite {
  readonly memcellId: string;
  readonly title: string;
  readonly narrative: string;
  readonly facts: readonly NewFact[];
  readonly foresight: readonly NewForesight[];
  readonly now: number;
}

/** What synthesis writes for an episode, without the episode and the time (what sync carries between devices). */
export type EpisodeSynthesis = Omit<MemCellSynthesisWrite, 'memcellId' | 'now'>;

export interface SavedSynthesis {
  /** Ids of the facts inserted (for the engine to embed), in input order. */
  readonly factIds: readonly string[];
  readonly foresightIds: readonly string[];
  /** Known facts marked superseded by this write. */
  readonly supersededIds: readonly string[];
  /** Facts of an earlier run of the same cell that were replaced (retry or re-synthesis). */
  readonly removedFactIds: readonly string[];
}

export type SceneMember = Pick<MemCell, 'id' | 'title' | 'narrative' | 'startAt' | 'endAt'>;

/**
 * memscenes.edited_by_user = 1: the user named the theme (its title is kept, summaries still come).
 * Its tombstone — the user forgot its summary, so none is written again — is the separate
 * memscenes.summary_forgotten flag (schema v7; before, bit 2 of edited_by_user).
 */
export const SCENE_USER_TITLE = 1;

export interface SceneForSummary {
  readonly id: string;
  readonly title: string | null;
  readonly summary: string | null;
  /** The user named the theme: summaries keep this title. */
  readonly editedByUser: boolean;
  /** The user forgot the theme's summary: none is written again. */
  readonly summaryForgotten: boolean;
  /** Synthesised members only, oldest first. */
  readonly members: readonly SceneMember[];
}

export interface SceneDigest {
  readonly id: string;
  readonly title: string | null;
  readonly summary: string;
  readonly memberIds: readonly string[];
}

export type ProfileKind = 'explicit' | 'implicit';
export type ProfileStatus = 'active' | 'conflict' | 'deleted';
export type ProfileHistoryOp = 'add' | 'update' | 'delete' | 'conflict' | 'resolve';

export interface ProfileItem {
  readonly id: string;
  readonly kind: ProfileKind;
  readonly key: string;
  readonly value: string;
  readonly confidence: number;
  /** MemCell ids. */
  readonly evidence: readonly string[];
  readonly status: ProfileStatus;
  readonly editedByUser: boolean;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/**
 * One change to the profile plus its history row. `item` is the row as it must be after the
 * change (for a 'conflict' the stored value is unchanged; the history row carries the proposal).
 */
/**
 * Evidence entry naming the chat message a memory was asked for in ("remember that…",
 * engine/savedMemories.ts); other evidence entries are episode ids.
 */
export const MESSAGE_EVIDENCE = 'message:';
export const messageEvidence = (messageId: string): string => `${MESSAGE_EVIDENCE}${messageId}`;
/** The history reason of a memory asked for in a message: deleting its last message deletes it. */
export const ASKED_IN_MESSAGE = 'asked to remember in a message';

export interface ProfileChange {
  readonly item: ProfileItem;
  readonly history: {
    readonly op: ProfileHistoryOp;
    readonly value: string | null;
    readonly confidence: number | null;
    readonly evidence: readonly string[];
    readonly reason: string;
  };
  /** True when the row does not exist yet. */
  readonly insert: boolean;
}

export interface ProfileHistoryEntry {
  readonly profileItemId: string;
  readonly op: ProfileHistoryOp;
  readonly value: string | null;
  readonly confidence: number | null;
  readonly evidence: readonly string[];
  readonly reason: string | null;
  readonly changedAt: number;
}

export type ForesightSource = 'llm' | 'date-parser' | 'user';

export interface ForesightItem {
  readonly id: string;
  readonly memcellId: string | null;
  readonly content: string;
  readonly startAt: number | null;
  readonly endAt: number | null;
  readonly evidence: readonly string[];
  readonly status: 'active' | 'expired' | 'dismissed';
  readonly source: ForesightSource;
}

export interface KnowledgeStore {
  /** The cell and its turns (seq order), or null when it no longer exists. */
  loadCell(memcellId: string): Promise<CellForSynthesis | null>;
  /**
   * Active (not superseded) facts related to the cell, excluding its own: facts of the other
   * cells of its scene first (most recent first), then FTS matches on `text`; at most `limit`.
   */
  relatedFacts(cell: CellForSynthesis, text: string, limit: number): Promise<KnownFact[]>;
  /**
   * In one transaction: removes the facts (not user-edited) and LLM foresight an earlier run wrote
   * for this cell, writes title/narrative (unless the user edited them) and status 'synthesised',
   * inserts facts and foresight with ids derived from the cell id, and marks replaced facts.
   */
  saveSynthesis(write: MemCellSynthesisWrite): Promise<SavedSynthesis>;

  loadScene(sceneId: string): Promise<SceneForSummary | null>;
  /** Writes title and summary and clears summary_stale. */
  saveSceneSummary(sceneId: string, title: string, summary: string, now: number): Promise<void>;

  /** Scenes with a summary: the given ones, or the `limit` most recently active. */
  sceneDigests(options: { sceneIds?: readonly string[]; limit: number }): Promise<SceneDigest[]>;
  /** Names of the user-role speakers, most frequent first (who the profile is about). */
  profileSubjects(limit: number): Promise<string[]>;
  /** end_at of each existing cell id. */
  memcellEndTimes(ids: readonly string[]): Promise<Map<string, number>>;
  /** Items with status active or conflict. */
  profileItems(): Promise<ProfileItem[]>;
  /**
   * For each evidence entry (episode id or `message:<id>`) behind a project-only wall, its project;
   * entries on the shared side are absent (storage/projectWalls.ts).
   */
  wallsOfEvidence(evidence: readonly string[]): Promise<ReadonlyMap<string, string>>;
  /**
   * Reads the current items (active and conflict) and applies the changes `plan` derives from
   * them, with their history rows, in one transaction (so a concurrent user edit is not lost).
   */
  updateProfileItems(plan: (current: readonly ProfileItem[]) => readonly ProfileChange[], now: number): Promise<ProfileChange[]>;
  profileHistory(profileItemId: string): Promise<ProfileHistoryEntry[]>;

  /** Marks active items whose end_at < now as 'expired' (never deletes); returns how many. */
  expireForesight(now: number): Promise<number>;
  /** Active items not yet over at `now`; upcoming ones too unless `includeUpcoming` is false. */
  activeForesight(now: number, options?: { includeUpcoming?: boolean; limit?: number }): Promise<ForesightItem[]>;
}
