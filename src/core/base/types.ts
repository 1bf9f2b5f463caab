/** Domain types shared by the engine, the storage layer and the UI (plain data, structured-clone safe). */
import type { SynthesisEstimate } from './historyImport';

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
}

export type TitleSource = 'none' | 'message' | 'endpoint' | 'user';

/** The two memory switches of a conversation; a patch leaves out what it does not change. */
export interface ConversationMemory {
  readonly useMemory: boolean;
  readonly remember: boolean;
}

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

export interface NewTurn {
  /** Client-generated id; appending the same id twice stores the turn once. */
  readonly id: string;
  readonly conversationId: string;
  readonly role: Role;
  readonly speaker?: string;
  readonly content: string;
  readonly occurredAt?: number;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

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
