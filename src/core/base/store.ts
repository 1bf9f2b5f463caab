/**
 * What the engine needs from persistent storage. Implemented by src/storage/SqliteMemoryStore
 * (wa-sqlite on OPFS in the browser, in memory in Node); core never sees SQL dialect details.
 */
import type {
  AppendResult,
  Conversation,
  ConversationMemory,
  ConversationModel,
  ConversationPlace,
  ImportSummary,
  Message,
  MessageWindow,
  MessageWindowRequest,
  NewTurn,
  SearchHit,
  StorageStats,
  TitleSource,
} from './types';

/** A conversation an import batch creates (existing ids are left as they are). */
export interface NewConversation {
  readonly id: string;
  readonly title: string;
  readonly createdAt?: number;
  /** The project a new conversation goes in (an existing one is not moved). */
  readonly projectId?: string;
}

export interface AppendOptions {
  readonly deferTurnIndex?: boolean;
  readonly create?: readonly NewConversation[];
  /**
   * Sync: the turns (all of one conversation) go right after this turn ('' = at the start) instead
   * of at the end — turns another device wrote into the same chat while cut off (storage/turnPlaces.ts).
   */
  readonly after?: string;
}

export interface SearchOptions {
  readonly limit?: number;
  readonly conversationId?: string;
  /** Only the chats of this project (null: chats in no project); absent: every chat. */
  readonly project?: string | null;
}

export interface MemoryStore {
  /**
   * `createdAt` (default now) keeps an imported conversation's original start; both memory switches
   * default to on; `projectId` puts it in a project in the same transaction (NOT_FOUND if none).
   */
  createConversation(
    input: {
      readonly id?: string;
      readonly title: string;
      readonly createdAt?: number;
      readonly projectId?: string | null;
    } & Partial<ConversationMemory>,
  ): Promise<Conversation>;
  getConversation(id: string): Promise<Conversation | null>;
  /** Sets either memory switch; NOT_FOUND when the conversation is gone. */
  setConversationMemory(id: string, patch: Partial<ConversationMemory>): Promise<Conversation>;
  /** Pins or archives a conversation (or undoes either); NOT_FOUND when it is gone. */
  placeConversation(id: string, patch: Partial<ConversationPlace>): Promise<Conversation>;
  /** The model that answers in a conversation (null: the default in Settings); NOT_FOUND when it is gone. */
  setConversationModel(id: string, model: ConversationModel): Promise<Conversation>;
  /** Ids of the conversations whose "remember" switch is off (their turns are not memory). */
  conversationsNotRemembered(): Promise<string[]>;
  /** Renames a conversation; `by` records who named it (default the user, whose title is never replaced). */
  renameConversation(id: string, title: string, by?: TitleSource): Promise<Conversation>;
  /** Several conversations in one transaction (an import batch); existing ids are left as they are. */
  createConversations(inputs: readonly NewConversation[]): Promise<void>;
  deleteConversation(id: string): Promise<void>;
  /**
   * Resolves once the words of every deletion committed so far have left every copy the database
   * keeps (full-text index pages, the write-ahead log). A deletion returns when its rows are gone;
   * this part follows in steps that reads can go between (storage/deletedTerms.ts). Optional: a
   * store that keeps no such copies has nothing to wait for.
   */
  whenScrubbed?(): Promise<void>;
  listConversations(): Promise<Conversation[]>;

  appendTurn(turn: NewTurn): Promise<AppendResult>;
  /**
   * Several turns in one transaction (all or none), e.g. a session being imported. With
   * `deferTurnIndex` the turns and their own full-text rows (keyword search) are written, but the
   * turn index with neighbour context is left queued for `indexQueuedTurns` (a history import).
   * `create`: conversations to create first (existing ids are left as they are), in the same
   * transaction, so an import batch costs one commit.
   */
  appendTurns(turns: readonly NewTurn[], options?: AppendOptions): Promise<AppendResult[]>;
  /**
   * Turns waiting for the turn index (neighbour context) that this memory still writes: 0 when
   * none wait, or when the memory is too large for recall to read that index (the queue then stays
   * as it is, by design). Stores without a turn index leave it out.
   */
  turnIndexBacklog?(): Promise<number>;
  /** Indexes up to `max` queued turns (oldest first) in one transaction; returns how many wait after it. */
  indexQueuedTurns?(max: number): Promise<number>;
  /**
   * A turn the user sent, in one transaction: the turns in `replaces` are deleted, or with
   * `branchFrom` (an edit) the branch from that turn on is kept as an earlier version, the turn is stored, and a conversation nobody has titled yet takes
   * `title`. All or nothing: a failure leaves the old turns in place.
   */
  sendTurn(turn: NewTurn, options?: SendTurnOptions): Promise<AppendResult>;
  /**
   * Versions of a turn (storage/turnVersions.ts). Optional: a store without them keeps edits
   * destructive. `startVersion` hides the branch from `messageId` on as the version shown so far
   * and opens a new one (returns the hidden ids); `showVersion` swaps the branch after `afterId`
   * ('' = the start) for version `version`; `turnVersions` lists the positions with versions.
   */
  startVersion?(conversationId: string, messageId: string): Promise<string[]>;
  showVersion?(conversationId: string, afterId: string, version: number): Promise<{ hidden: string[]; shown: Message[] }>;
  turnVersions?(conversationId: string): Promise<TurnVersionPosition[]>;
  /** The ids of the conversation's turns kept in hidden versions. */
  hiddenTurnIds?(conversationId: string): Promise<string[]>;
  /** Sync: for each stored turn of `ids`, the turn before it ('' first) and whether a version starts at its place. */
  turnPlaces?(ids: readonly string[]): Promise<Map<string, { after: string; version: boolean }>>;
  /** The ids of a conversation's turns, in order. */
  turnIdsOf?(conversationId: string): Promise<string[]>;
  /** Sync: what the person deleted of the model's items, by kind and tombstone hash (storage/syncedForgets.ts). */
  forgottenHashes?(): Promise<{ item: 'fact' | 'foresight' | 'profile'; textHash: string }[]>;
  /** Sync: another device's deletions written as tombstones here; returns the live items they name. */
  adoptForgotten?(
    forgotten: readonly { item: 'fact' | 'foresight' | 'profile'; textHash: string }[],
  ): Promise<{ kind: 'fact' | 'foresight' | 'profile'; id: string }[]>;
  listMessages(conversationId: string): Promise<Message[]>;
  /** A window of the conversation's turns (MessageWindowRequest); `around` not in it reads the newest. */
  listMessageWindow(conversationId: string, request: MessageWindowRequest): Promise<MessageWindow>;
  getMessage(id: string): Promise<Message | null>;
  /** Removes the turn, its full-text row and its vectors in one transaction. Returns false if absent. */
  /**
   * Deletes one turn. Unless `keepVersions` (the turn became an earlier version on another device),
   * the other versions at its place and any hidden copy of it go too.
   */
  deleteMessage(id: string, options?: { readonly keepVersions?: boolean }): Promise<boolean>;
  /**
   * A turn's text changed on another device (sync): replaced in place, its full-text rows follow,
   * its vectors go (it is embedded again) and the old words leave the file's copies. False if absent.
   */
  replaceMessageContent?(id: string, content: string): Promise<boolean>;
  searchMessages(query: string, options?: SearchOptions): Promise<SearchHit[]>;

  stats(): Promise<StorageStats>;
  /** A consistent copy of the whole database file. */
  exportDatabase(): Promise<Uint8Array>;
  /** Validates `bytes` in a temporary database, migrates it, then replaces the live database. */
  importDatabase(bytes: Uint8Array): Promise<ImportSummary>;
  /** Like importDatabase, but keeps the previous memory until the caller is sure (see StagedImport). */
  stageImport(bytes: Uint8Array, options?: ImportOptions): Promise<StagedImport>;
}

export interface ImportOptions {
  /** Whether this build has the embedding model a file names (others are replaced by the bundled one). */
  readonly knownEmbedder?: (modelId: string) => boolean;
  /** Largest file accepted (bytes). */
  readonly maxBytes?: number;
}

/** An import whose new memory is live, with the previous one kept until restart has succeeded. */
export interface StagedImport {
  readonly summary: ImportSummary;
  /** Puts the previous memory back, byte for byte. */
  rollback(): Promise<void>;
}

/** What can carry a vector. */
export type ItemKind = 'message' | 'fact' | 'memcell' | 'memscene';

export interface ItemVector {
  readonly itemId: string;
  readonly vector: Float32Array;
}

/** A message (or other item) that still needs a vector for some model, with the text to embed. */
export interface PendingEmbedding {
  readonly itemId: string;
  readonly text: string;
  /** Position in the item table (rowid): pass the last one as `after` to read on. */
  readonly key: number;
}

/** Vectors per (item, model) and small engine settings. Implemented in src/storage/vectorRepo.ts. */
export interface VectorStore {
  putVectors(kind: ItemKind, vectorModelId: string, items: readonly ItemVector[]): Promise<void>;
  loadVectors(kind: ItemKind, vectorModelId: string): Promise<ItemVector[]>;
  /** Vectors of the given items (those that have one). */
  getVectors(kind: ItemKind, itemIds: readonly string[], vectorModelId: string): Promise<ItemVector[]>;
  countVectors(kind: ItemKind, vectorModelId: string): Promise<number>;
  countItems(kind: ItemKind): Promise<number>;
  /** Items of `kind` with no vector for `vectorModelId`, oldest first, from after `after` (a `key`; default: the start). */
  pendingEmbeddings(kind: ItemKind, vectorModelId: string, limit: number, after?: number): Promise<PendingEmbedding[]>;
  /**
   * The key of the oldest of the `count` newest items without a vector for `vectorModelId`
   * (scanning from the newest, so it is cheap when those are recent); MAX_SAFE_INTEGER if none.
   */
  newestPendingKey(kind: ItemKind, vectorModelId: string, count: number): Promise<number>;
  /** Items of `kind` with a vector of `from` but none of `to`, after `after` (an embedder switch re-embeds them). */
  pendingReembed(
    kind: ItemKind,
    fromVectorModelId: string,
    toVectorModelId: string,
    limit: number,
    after?: number,
  ): Promise<PendingEmbedding[]>;
  /** Deletes every vector of `kind` not produced by `keepVectorModelId`; returns how many. */
  deleteOtherVectors(kind: ItemKind, keepVectorModelId: string): Promise<number>;
  getMeta(key: string): Promise<string | null>;
  setMeta(key: string, value: string): Promise<void>;
}

/** The `meta` table: settings and markers, one string per key. */
export type MetaStore = Pick<VectorStore, 'getMeta' | 'setMeta'>;

/** One position of a conversation with versions: the branch after `afterId` ('' = the start), version `shown` of `count`. */
export interface TurnVersionPosition {
  readonly afterId: string;
  readonly shown: number;
  readonly count: number;
}

export interface SendTurnOptions {
  readonly replaces?: readonly string[];
  /** An edit: the edited message's id; it and what follows become an earlier version, kept hidden. */
  readonly branchFrom?: string;
  readonly title?: string;
}
