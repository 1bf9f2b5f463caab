/**
 * Episode (MemCell) and theme (MemScene) records as the lifecycle sees them, and the storage
 * contract it needs. Implemented by src/storage/episodeRepo.ts.
 */
import type { BoundaryReason } from './segmenter';
import type { EncodingScore } from './encodingScore';
import type { MemCell, MemCellStatus, Message } from '../base/types';

export type { MemCellStatus } from '../base/types';

/** An episode with what only the lifecycle reads: why it closed, its salience, its last write. */
export interface MemCellRecord extends MemCell {
  readonly closedBy: BoundaryReason | null;
  readonly salience: number;
  /** When the cell was last written (a turn placed, a status change); the idle close reads it. */
  readonly touchedAt?: number;
}

export type LifecycleTurn = Pick<Message, 'id' | 'conversationId' | 'seq' | 'role' | 'speaker' | 'content' | 'occurredAt' | 'tokenCount'>;

export interface MemSceneRecord {
  readonly id: string;
  readonly centroid: Float32Array | null;
  readonly centroidModel: string | null;
  readonly memberCount: number;
  readonly lastActivityAt: number;
}

export interface NewDateForesight {
  readonly id: string;
  readonly memcellId: string;
  readonly sourceMessageId: string;
  readonly content: string;
  readonly startAt: number;
  readonly endAt: number;
}

/** One turn's lifecycle outcome, written atomically. */
export interface TurnPlacement {
  readonly turn: LifecycleTurn;
  readonly encoding: EncodingScore;
  /** consolidationPriority(encoding); the cell keeps the maximum of its turns'. */
  readonly priority: number;
  /** Close this open cell first (with the reason) … */
  readonly close: { readonly cellId: string; readonly reason: BoundaryReason } | null;
  /** … then either open a new cell with this id, or extend `extendCellId`. */
  readonly newCellId: string | null;
  readonly extendCellId: string | null;
  readonly foresight: readonly NewDateForesight[];
}

export interface EpisodeStore {
  /** Turns not yet placed in any cell (seq after the conversation's last cell), by conversation then seq. */
  unplacedTurns(limit: number): Promise<LifecycleTurn[]>;
  /** Turns of a conversation with firstSeq ≤ seq ≤ lastSeq, in order (a cell's members, recent context). */
  turnsInRange(conversationId: string, firstSeq: number, lastSeq: number): Promise<{ id: string; speaker: string; content: string }[]>;
  /** The last `n` turns of a conversation before `beforeSeq`, in order. */
  turnsBefore(conversationId: string, beforeSeq: number, n: number): Promise<{ id: string; speaker: string; content: string }[]>;
  /** The conversation's open cell (closed_by IS NULL) and the ids of its turns, oldest first. */
  openCell(conversationId: string): Promise<{ cell: MemCellRecord; memberIds: string[] } | null>;
  /** Applies one placement in a single transaction. */
  placeTurn(p: TurnPlacement, now: number): Promise<void>;
  /** Closes an open cell without a following turn (idle timeout, end of an import). */
  closeCell(cellId: string, reason: BoundaryReason, now: number): Promise<void>;
  openCellsIdleSince(before: number): Promise<MemCellRecord[]>;
  /** Closed cells still raw or failed, oldest first (a policy change re-evaluates them). */
  unsynthesisedCells(limit: number): Promise<MemCellRecord[]>;
  /** Remembered turns no synthesised or queued cell covers, by conversation then seq (what synthesis would still read). */
  unsynthesisedTurns(): Promise<{ conversationId: string; occurredAt: number; tokenCount: number }[]>;
  getCell(cellId: string): Promise<MemCellRecord | null>;
  scenes(vectorModelId: string): Promise<MemSceneRecord[]>;
  /**
   * Project walls for theme clustering: the side of a conversation (a project-only project's id,
   * '' for shared memory) and the sides of each theme's members (storage/projectWalls.ts).
   */
  sceneSides(conversationId: string): Promise<{ readonly own: string; readonly scenes: ReadonlyMap<string, ReadonlySet<string>> }>;
  /** Upserts the scene's centroid/count/activity and sets the cell's scene, atomically. */
  assignScene(cellId: string, scene: MemSceneRecord, isNew: boolean, now: number): Promise<void>;
  cellsInScene(sceneId: string): Promise<MemCellRecord[]>;
  /** Every theme's id (an embedder switch rebuilds their centroids). */
  sceneIds(): Promise<string[]>;
  /** Replaces a theme's centroid with one of another vector model (after an embedder switch). */
  setSceneCentroid(sceneId: string, centroid: Float32Array, vectorModelId: string): Promise<void>;
  setCellStatus(cellId: string, status: MemCellStatus, now: number): Promise<void>;
  /** Visits, turns and last activity of a scene's members, for its heat. */
  sceneHeatInput(sceneId: string): Promise<{ visits: number; turns: number; lastActivityAt: number }>;
  setSceneHeat(sceneId: string, heat: number, now: number): Promise<void>;
  sceneHeat(sceneId: string): Promise<number>;
  /** Counts a visit on the cells holding these turns (an answer used them); returns those cells. */
  markVisited(messageIds: readonly string[], now: number): Promise<MemCellRecord[]>;
  counts(): Promise<{ memcells: number; memscenes: number; foresights: number; facts: number }>;
}
