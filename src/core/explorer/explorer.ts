/**
 * The memory explorer's view of memory: what the UI can see, search, edit and forget,
 * and the storage contract behind it (implemented by src/storage/explorerRepo.ts).
 *
 * Forgetting is a tombstone (schema v5): every user deletion or correction records a hash of the
 * forgotten text, which the synthesis write path (knowledgeRepo.saveSynthesis, updateProfileItems)
 * and the lifecycle (episodeRepo.unplacedTurns) consult, so re-synthesis or a later consolidation
 * never brings it back. Every delete runs in one transaction with its tombstones; FTS rows and
 * vectors go with the rows (schema triggers).
 */
import type { ForesightItem, ProfileHistoryEntry, ProfileItem } from '../synthesis/knowledge';
import type { EncodingScore } from '../episodes/encodingScore';
import type { Fact, MemCell, MemCellStatus, Message } from '../base/types';
import type { JobCounts } from '../base/jobs';

export type MemoryKind = 'turn' | 'fact' | 'episode' | 'scene';
export const MEMORY_KINDS: readonly MemoryKind[] = ['turn', 'fact', 'episode', 'scene'];

export interface JobView {
  readonly id: number;
  readonly kind: string;
  readonly status: 'pending' | 'running' | 'done' | 'failed' | 'cancelled';
  readonly attempts: number;
  readonly lastError: string | null;
  readonly updatedAt: number;
  /** The MemCell or scene the job is about, when it names one. */
  readonly subject: string | null;
}

export interface MemoryCounts {
  readonly conversations: number;
  readonly turns: number;
  readonly memcells: number;
  readonly rawMemcells: number;
  readonly scenes: number;
  readonly facts: number;
  readonly foresight: number;
  readonly profileItems: number;
  readonly profileConflicts: number;
  readonly tombstones: number;
}

export interface LlmSpend {
  readonly calls: number;
  readonly failedCalls: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly byStage: Readonly<Record<string, { readonly calls: number; readonly promptTokens: number; readonly completionTokens: number }>>;
}

export interface MemoryOverview {
  readonly counts: MemoryCounts;
  readonly databaseBytes: number;
  readonly llm: LlmSpend;
  readonly jobs: Readonly<JobCounts>;
  /** Unfinished and failed jobs first, then the latest finished ones. */
  readonly recentJobs: readonly JobView[];
  readonly embedder: { readonly modelId: string; readonly state: string; readonly embedded: number; readonly total: number } | null;
  readonly endpointConfigured: boolean;
  readonly policy: string;
  /** The vector index implementation in use: "wasm-simd-int8", or "js-float32" where WASM SIMD is unavailable. */
  readonly vectorIndex: string;
  /** Background loops failing now, each "what: why" (empty when all is well). */
  readonly backgroundErrors: readonly string[];
}

/**
 * Which project's memory a view lists: a project's id, null for chats in no project; absent (the
 * field left out) for all of memory. Applied in the engine's queries, never to a page afterwards.
 */
export type ProjectFilter = string | null;

export interface MemorySearchFilters {
  /** Only memory of this project's chats (null: of chats in no project). */
  readonly project?: ProjectFilter;
  /** Kinds to search (default all). */
  readonly kinds?: readonly MemoryKind[];
  readonly conversationId?: string;
  /** Epoch ms, inclusive. */
  readonly from?: number;
  readonly to?: number;
  /** Exact speaker name (turns and facts; episodes whose turns include the speaker). */
  readonly speaker?: string;
  readonly limit?: number;
}

/** What identifies and describes one remembered item in search results. */
export interface MemoryItemRef {
  readonly kind: MemoryKind;
  readonly id: string;
  readonly title: string;
  readonly text: string;
  readonly occurredAt: number | null;
  readonly conversationId: string | null;
  readonly memcellId: string | null;
  readonly speaker: string | null;
}

export interface MemorySearchHit extends MemoryItemRef {
  readonly score: number;
  /** Why it matched: words per field, similarity in meaning. */
  readonly reasons: readonly string[];
}

/** One kind's candidates from storage (BM25 order), before reasons and fusion. */
export interface SearchCandidate extends MemoryItemRef {
  /** Fields to explain a match with (name → text). */
  readonly fields: Readonly<Record<string, string>>;
}

export interface MemCellSummary extends Pick<
  MemCell,
  'id' | 'conversationId' | 'startAt' | 'endAt' | 'title' | 'narrative' | 'status' | 'sceneId'
> {
  readonly conversationTitle: string;
  readonly open: boolean;
  readonly sceneTitle: string | null;
  readonly factCount: number;
  readonly turnCount: number;
  readonly editedByUser: boolean;
  /** Messages of the episode deleted (or replaced by an edit) since it was last synthesised; what was derived from them is gone. */
  readonly lostTurns: number;
  /** The start of its first turn (the person's, if any): its name while it has no title (episodeLabel.ts). */
  readonly opening: string | null;
}

/** The explorer shows a fact whole. */
export type FactView = Fact;

/** What a person may change of a fact: its words and when it held. */
export type FactEdit = Partial<Pick<Fact, 'content' | 'validFrom' | 'validTo'>>;

/** What a person may change of an episode: its title and narrative (never back to none). */
export type MemCellEdit = Partial<{ readonly [K in 'title' | 'narrative']: NonNullable<MemCell[K]> }>;

/** What a person may change of a plan: when it happens (both always given) and, optionally, its words. */
export type ForesightEdit = Pick<ForesightItem, 'startAt' | 'endAt'> & Partial<Pick<ForesightItem, 'content'>>;

export interface TurnView extends Pick<Message, 'id' | 'seq' | 'role' | 'speaker' | 'content' | 'occurredAt'> {
  /** The turn's encoding score (novelty, salience, prediction error, speech act), once scored. */
  readonly encoding: EncodingScore | null;
}

export interface MemCellDetail extends MemCellSummary {
  readonly facts: readonly FactView[];
  readonly foresight: readonly ForesightItem[];
  readonly turns: readonly TurnView[];
}

export interface MemCellQuery {
  /** Only episodes of this project's chats (null: of chats in no project). */
  readonly project?: ProjectFilter;
  /** Rows to skip; prefer `cursor`, which stays right while episodes are added or deleted. */
  readonly offset?: number;
  readonly limit: number;
  /** The `nextCursor` of the previous page: the list continues after that episode. */
  readonly cursor?: string | null;
  /** Only episodes starting in [from, to] (epoch ms), e.g. the timeline's window. */
  readonly from?: number;
  readonly to?: number;
  readonly conversationId?: string;
  readonly sceneId?: string;
  /** By start time; newest first by default. */
  readonly order?: 'asc' | 'desc';
}

/** A page of facts, newest first; `source` "user" = written or edited by the user. */
export interface FactQuery {
  /** Only facts from this project's chats (null: from chats in no project). */
  readonly project?: ProjectFilter;
  readonly limit: number;
  readonly cursor?: string | null;
  readonly source?: 'user' | 'conversations';
}

export interface FactPage {
  readonly total: number;
  readonly items: readonly FactView[];
  readonly nextCursor: string | null;
}

/**
 * A page of foresight in time order (when it starts, else ends, else was written; then id), read
 * by cursor like the fact and episode pages. Dismissed items only when asked for.
 */
export interface ForesightQuery {
  readonly limit: number;
  readonly cursor?: string | null;
  readonly dismissed?: boolean;
  /** Only active items still valid at this time (plans ahead). */
  readonly activeAt?: number;
  /** Only active, dated items whose validity overlaps [from, to] (a timeline window). */
  readonly activeWithin?: { readonly from: number; readonly to: number };
  /** Only plans from this project's chats (null: from chats in no project): made from its episodes or read from its turns. */
  readonly project?: ProjectFilter;
}

export interface ForesightPage {
  readonly total: number;
  readonly items: readonly ForesightItem[];
  readonly nextCursor: string | null;
}

export interface MemCellPage {
  /** Episodes matching the filters (all pages). */
  readonly total: number;
  readonly items: readonly MemCellSummary[];
  /** Where the next page starts, or null at the true end of the list. */
  readonly nextCursor: string | null;
}

export interface SceneView {
  readonly id: string;
  readonly title: string | null;
  readonly summary: string | null;
  readonly heat: number;
  readonly memberCount: number;
  readonly lastActivityAt: number | null;
  readonly editedByUser: boolean;
  readonly members: readonly {
    readonly id: string;
    readonly title: string | null;
    readonly startAt: number;
    readonly endAt: number;
    readonly status: MemCellStatus;
  }[];
}

export interface SceneMapPoint {
  readonly memcellId: string;
  readonly sceneId: string | null;
  readonly title: string | null;
  readonly startAt: number;
  readonly x: number;
  readonly y: number;
}

/**
 * The theme map: the newest `SCENE_MAP_BOUND` episodes as points (a projection needs every point
 * at once, so it is not paged), and how many episodes there are, so the map can say when it shows
 * only the newest of them.
 */
export interface SceneMap {
  readonly points: readonly SceneMapPoint[];
  readonly episodes: number;
}

/**
 * Why a bound is safe here: the map is a picture of where recent episodes sit by meaning, and
 * 3,000 dots already cover the whole drawing (≈ 8 years of daily use at the fixture's rate of one
 * episode a day); the projection and its vector reads grow with the count, and the rest of the
 * history stays reachable in the Episodes list, the timeline and each theme's members.
 */
export const SCENE_MAP_BOUND = 3_000;

/**
 * "Forget everything about X" shows at most this many of each kind, best matches first: the user
 * reviews every item before it goes, and a longer list is not reviewed. When a kind reaches it,
 * the tab says so, and Find after forgetting shows the next ones.
 */
export const FORGET_PREVIEW_LIMIT = 50;

export interface ProfileItemView extends ProfileItem {
  readonly history: readonly ProfileHistoryEntry[];
  /** The value the pipeline proposed in the latest unresolved conflict. */
  readonly proposedValue: string | null;
  readonly pinned: boolean;
}

/** What Forget can remove; a `title` is a conversation's title, renamed without the forgotten words. */
export type ForgetKind = 'fact' | 'episode' | 'turn' | 'foresight' | 'profile' | 'scene' | 'title';

export interface ForgetCandidate {
  readonly kind: ForgetKind;
  readonly id: string;
  readonly text: string;
  readonly occurredAt: number | null;
}

export interface ForgetResult {
  readonly deleted: Readonly<Record<ForgetKind, number>>;
}

export interface SceneVectorInput {
  readonly memcellId: string;
  readonly sceneId: string | null;
  readonly title: string | null;
  readonly startAt: number;
}

/** What synthesis has written from one conversation's turns: for "Memory updated" under it. */
export interface ConversationMemoryCounts {
  readonly facts: number;
  readonly foresight: number;
}

export interface ExplorerStore {
  counts(): Promise<MemoryCounts>;
  /** Facts and plans (not dismissed) of the conversation's episodes. */
  conversationCounts(conversationId: string): Promise<ConversationMemoryCounts>;
  llmSpend(): Promise<LlmSpend>;
  recentJobs(limit: number): Promise<JobView[]>;
  /** FTS candidates of one kind matching `query` (OR of its words), filtered; BM25 order. */
  searchKind(kind: MemoryKind, query: string, filters: MemorySearchFilters, limit: number): Promise<SearchCandidate[]>;
  /** The same shape for items found by vector search, filters applied. */
  candidatesByIds(kind: MemoryKind, ids: readonly string[], filters: MemorySearchFilters): Promise<SearchCandidate[]>;
  listMemCells(options: MemCellQuery): Promise<MemCellPage>;
  listFacts(query: FactQuery): Promise<FactPage>;
  memCell(id: string): Promise<MemCellDetail | null>;
  editMemCell(id: string, patch: MemCellEdit, now: number): Promise<void>;
  editFact(id: string, patch: FactEdit, now: number): Promise<FactView>;
  deleteFact(id: string, now: number): Promise<boolean>;
  /** Deletes the episode, its facts and foresight (tombstoned), and with `turns` its source turns too. */
  deleteMemCell(id: string, options: { turns: boolean }, now: number): Promise<{ sceneId: string | null; deletedTurnIds: string[] } | null>;
  /** Episodes of the conversation with no turn left in their range and nothing synthesised (no narrative, no facts). */
  emptyEpisodes(conversationId: string): Promise<string[]>;
  scenes(): Promise<SceneView[]>;
  /** The newest `limit` episodes for the map, and the number of all episodes. */
  sceneVectorInputs(limit: number): Promise<{ inputs: SceneVectorInput[]; episodes: number }>;
  renameScene(id: string, title: string, now: number): Promise<void>;
  /** Moves the members of `sourceIds` into `targetId`, deletes the sources; `centroid` is the merged one. */
  mergeScenes(targetId: string, sourceIds: readonly string[], centroid: Float32Array | null, now: number): Promise<void>;
  /** Moves `memcellIds` out of their scene into a new scene `newId`. */
  splitScene(
    sceneId: string,
    memcellIds: readonly string[],
    newId: string,
    title: string | null,
    centroids: { kept: Float32Array | null; split: Float32Array | null },
    now: number,
  ): Promise<void>;
  /** Themes holding episodes from both sides of a project-only wall: their members by side ('' shared). */
  mixedScenes(): Promise<{ sceneId: string; sides: Map<string, string[]> }[]>;
  profile(): Promise<ProfileItemView[]>;
  editProfileItem(id: string, value: string, now: number): Promise<void>;
  pinProfileItem(id: string, pinned: boolean, now: number): Promise<void>;
  resolveProfileConflict(id: string, choice: 'keep' | 'accept', now: number): Promise<void>;
  deleteProfileItem(id: string, now: number): Promise<void>;
  listForesight(query: ForesightQuery): Promise<ForesightPage>;
  editForesight(id: string, patch: ForesightEdit, now: number): Promise<void>;
  dismissForesight(id: string, now: number): Promise<void>;
  /** What mentions a word of `query` as a whole word (core/explorer/forgetMatch), at most `limit` of each kind. */
  /** `filter.project`: only that project's (null: no project's) messages, episodes, facts, plans and titles; no profile or themes. */
  forgetCandidates(query: string, limit: number, filter?: { readonly project?: ProjectFilter }): Promise<ForgetCandidate[]>;
  /**
   * Deletes every listed item in ONE transaction (tombstoned like the single deletes); a listed
   * title loses the words of `about` (the query the list came from) — no query, it is cleared.
   */
  forget(
    items: readonly { kind: ForgetKind; id: string }[],
    now: number,
    about?: string,
  ): Promise<ForgetResult & { sceneIds: string[]; deletedTurnIds: string[] }>;
}

/** A memory saved from a message that asked for it ("remember that…"): the chat's notice under that message. */
export interface MessageMemory {
  readonly messageId: string;
  readonly profileItemId: string;
  /** What was saved, as it is now (an edit in Saved memories shows here too). */
  readonly value: string;
}
