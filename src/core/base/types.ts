/** Domain types shared by the engine, the storage layer and the UI (plain data, structured-clone safe). */

export type Role = 'user' | 'assistant' | 'system';

export interface Conversation {
  readonly id: string;
  readonly title: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly messageCount: number;
  /** Answers here draw on memory (off: only this conversation's recent turns are sent). */
  readonly useMemory: boolean;
  /**
   * This conversation is memory: its turns are segmented into episodes, synthesised and retrieved
   * for answers. Off: its turns are stored and searchable in the chat but not memory.
   */
  readonly remember: boolean;
  /** Who gave the title: nobody yet, the first message, the endpoint, or the user (never replaced). */
  readonly titledBy: TitleSource;
  /** The project the conversation belongs to, or null (no project). */
  readonly projectId: string | null;
  /** Shown on top of the list, in its own group. */
  readonly pinned: boolean;
  /** Out of the list (in the Archived view); its turns stay memory unless it is deleted. */
  readonly archived: boolean;
  /** The model that answers here; null follows the default in Settings. */
  readonly model: ConversationModel;
}

/**
 * A conversation's own model: an endpoint model by name (sent as the request's `model`, on the
 * endpoint of Settings), or the model chosen on this device; null is the default in Settings.
 */
export type ConversationModel = { readonly kind: 'endpoint'; readonly name: string } | { readonly kind: 'device' } | null;

/** Where a conversation sits in the list: pinned on top, archived out of it. */
export interface ConversationPlace {
  readonly pinned: boolean;
  readonly archived: boolean;
}

/**
 * How a project's chats share memory, chosen once at creation: 'shared' chats use and feed all of
 * memory; 'project-only' chats recall only the project's own memory, and nothing of it is recalled
 * outside the project.
 */
export type ProjectMemoryMode = 'shared' | 'project-only';

export interface Project {
  readonly id: string;
  readonly name: string;
  /** Sent with every answer in the project, as part of the system prompt ('' = none). */
  readonly instructions: string;
  readonly memory: ProjectMemoryMode;
  /** Project-only projects: answers may also use the profile (what is known about the person). */
  readonly useProfile: boolean;
  readonly archived: boolean;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly conversationCount: number;
}

/** A new project as the person describes it (the memory mode is chosen here, once). */
export interface ProjectInput {
  readonly name: string;
  readonly instructions?: string;
  readonly memory: ProjectMemoryMode;
  /** Project-only: may answers also use the profile? (default yes) */
  readonly useProfile?: boolean;
}

/** What can change of a project after creation (never its memory mode). */
export interface ProjectEdit {
  readonly name?: string;
  readonly instructions?: string;
  readonly useProfile?: boolean;
  readonly archived?: boolean;
}

/** The chats of one project-only project: the walls memory scopes are built from. */
export interface WalledProject {
  readonly projectId: string;
  readonly useProfile: boolean;
  readonly conversationIds: readonly string[];
}

export type TitleSource = 'none' | 'message' | 'endpoint' | 'user';

/** The two memory switches of a conversation; a patch leaves out what it does not change. */
export interface ConversationMemory {
  readonly useMemory: boolean;
  readonly remember: boolean;
}

/**
 * A turn of a conversation as stored: the one declaration of a turn. Every other shape of a turn
 * (a new turn, an imported one, the lifecycle's, the explorer's, a prompt's, an LLM message) is a
 * Pick of this one, so a field changes in one place.
 */
export interface Message {
  readonly id: string;
  readonly conversationId: string;
  readonly seq: number;
  readonly role: Role;
  readonly speaker: string;
  readonly content: string;
  /** When the turn happened (ms since epoch); for imported history this is the original time. */
  readonly occurredAt: number;
  readonly ingestedAt: number;
  readonly tokenCount: number;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/**
 * Which turns of a conversation to read at once: the newest `limit`, or `limit` starting a few
 * turns before the turn `around` (a search hit or citation far back). A long conversation is never
 * read whole to be shown: a 100,000-turn one once took minutes to open.
 */
export interface MessageWindowRequest {
  readonly limit: number;
  readonly around?: string;
  /** Turns before `around` the window starts with (default 10; fewer near the start). */
  readonly lead?: number;
}

/** Turns of a conversation in order, with where they sit in it. */
export interface MessageWindow {
  readonly messages: readonly Message[];
  /** How many turns the conversation has. */
  readonly total: number;
  /** How many of its turns come before `messages[0]`. */
  readonly offset: number;
}

/**
 * A turn to append. Its id is generated by the client: appending the same id twice stores the
 * turn once. Speaker, time and metadata default (the role's name, now, none).
 */
export interface NewTurn
  extends Pick<Message, 'id' | 'conversationId' | 'role' | 'content'>, Partial<Pick<Message, 'speaker' | 'occurredAt' | 'metadata'>> {}

/** The role of a turn a person or a model said (system turns are never imported or shown as chat). */
export type ChatRole = Exclude<Role, 'system'>;

export interface AppendResult {
  readonly message: Message;
  /** false when the id was already stored (idempotent re-send). */
  readonly created: boolean;
}

export interface SearchHit {
  readonly message: Message;
  /** Higher is better (negated BM25). */
  readonly score: number;
  /** Content excerpt with matches wrapped in HIGHLIGHT_START / HIGHLIGHT_END. */
  readonly snippet: string;
}

/** Control characters that mark highlighted ranges in snippets; the UI renders them as <mark> without HTML. */
export const HIGHLIGHT_START = '\u0002';
export const HIGHLIGHT_END = '\u0003';

export interface StorageStats {
  readonly databaseBytes: number;
  readonly messageCount: number;
  readonly conversationCount: number;
  readonly schemaVersion: number;
}

export interface Range {
  readonly low: number;
  readonly high: number;
}

/** Expected synthesis cost of an import under one consolidation policy (see synthesisEstimate.ts). */
export interface SynthesisEstimate {
  readonly policy: 'eager' | 'recurrence' | 'off';
  readonly calls: Range;
  readonly promptTokens: Range;
  readonly completionTokens: Range;
}

export interface ImportSummary {
  readonly fromSchemaVersion: number;
  readonly schemaVersion: number;
  readonly messageCount: number;
  readonly conversationCount: number;
  /** What the import left out or changed (foreign schema objects, reset settings, re-embedding). */
  readonly notices: readonly string[];
  /**
   * The memory holds episodes not yet synthesised: synthesis is held (policy `off`) until the user
   * chooses a policy with this estimate in front of them, as an import of chat history does.
   */
  readonly pendingSynthesis?: {
    readonly turns: number;
    readonly episodes: number;
    readonly estimates: readonly SynthesisEstimate[];
    /** The policy the file was saved with. */
    readonly policyInFile: SynthesisEstimate['policy'];
  };
}

/** LLM spend of one stage (synthesis, answers, …): calls and prompt/completion tokens. */
export interface StageUsage {
  readonly calls: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** True when any count was estimated (no server usage, a stopped stream, a failed check). */
  readonly estimated?: boolean;
}

/** The two switches over all answers (Saved memories): what kinds of memory answers may be sent. */
export interface GlobalMemory {
  readonly useSavedMemories: boolean;
  readonly useChatHistory: boolean;
}

/**
 * A fact synthesised from an episode: the one declaration of a fact (the explorer shows it whole;
 * answers, synthesis prompts and writes use Picks of it).
 */
export interface Fact {
  readonly id: string;
  /** The episode (MemCell) it was synthesised from. */
  readonly memcellId: string;
  readonly speaker: string;
  readonly content: string;
  /** When what it states happened, when known. */
  readonly occurredAt: number | null;
  /** When it became true and, for a fact an update replaced, until when. */
  readonly validFrom: number | null;
  readonly validTo: number | null;
  readonly confidence: number;
  /** The later fact that updates or contradicts this one. */
  readonly supersededBy: string | null;
  readonly editedByUser: boolean;
}

export type MemCellStatus = 'raw' | 'queued' | 'synthesised' | 'failed';

/**
 * An episode (MemCell): consecutive turns of one conversation, titled and narrated by synthesis.
 * The one declaration of an episode; the lifecycle's record, the explorer's summary, the answer's
 * context and the synthesis prompts extend or Pick it.
 */
export interface MemCell {
  readonly id: string;
  readonly conversationId: string;
  /** Its first and last turn (Message.seq), inclusive. */
  readonly firstSeq: number;
  readonly lastSeq: number;
  /** occurredAt of its first and last turn. */
  readonly startAt: number;
  readonly endAt: number;
  readonly status: MemCellStatus;
  /** The theme (MemScene) it belongs to, once placed. */
  readonly sceneId: string | null;
  /** Null until synthesised. */
  readonly title: string | null;
  readonly narrative: string | null;
}
