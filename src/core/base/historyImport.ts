/**
 * Types for importing chat history from other services (ChatGPT, Claude, benchmark corpora,
 * plain transcripts). The parsers live outside core (src/import) and reach the engine through
 * the `HistoryReader` port, so core never depends on a file format.
 *
 * Invariants: every conversation and turn carries an id derived from the source's own ids, so
 * importing the same export twice stores nothing new; times are ms since epoch (the source's).
 */
import type { ChatRole, Message, SynthesisEstimate } from './types';

// Declared with the other nouns in types.ts (an import summary carries them too); re-exported for
// the import code that reads them here.
export type { Range, SynthesisEstimate } from './types';

export type HistoryFormat = 'chatgpt' | 'claude' | 'locomo' | 'longmemeval' | 'text';
export const HISTORY_FORMATS: readonly HistoryFormat[] = ['chatgpt', 'claude', 'locomo', 'longmemeval', 'text'];

/** Minimal reader of a byte stream (a web ReadableStream's reader satisfies it). */
export interface ByteStreamReader {
  read(): Promise<{ readonly done: boolean; readonly value?: Uint8Array }>;
  cancel(reason?: unknown): Promise<void>;
}

/** A file to import: a browser File/Blob satisfies it, and so does Node's fs.openAsBlob(). */
export interface HistoryFile {
  readonly size: number;
  /** File name (Blob has none; then the format cannot be guessed from it). */
  readonly name?: string;
  /** A browser File's modification time: with name and size, how a scanned file is recognised again. */
  readonly lastModified?: number;
  stream(): { getReader(): ByteStreamReader };
}

/** A turn read from a history file; its id is stable (derived from the source's message id). */
export interface ImportedTurn extends Pick<Message, 'id' | 'content' | 'occurredAt'>, Partial<Pick<Message, 'speaker'>> {
  /** The id an earlier version of the importer stored this turn under: a re-import must not add it again. */
  readonly formerId?: string;
  readonly role: ChatRole;
}

/**
 * A project of the source service: ChatGPT marks a project chat with its project's `gizmo_id`
 * (`g-p-…`) but exports no project names; Claude lists its projects in projects.json (name,
 * instructions) but its conversations do not say which project they are in.
 */
export interface ImportedProject {
  /** Stable id from the source ('chatgpt:g-p-…', 'claude:<uuid>'): a second import reuses the project. */
  readonly sourceId: string;
  readonly name: string;
  /** Instructions sent with every answer (Claude's `prompt_template`). */
  readonly instructions?: string;
}

export interface ImportedConversation {
  /** Stable id for the stored conversation (derived from the source's conversation id). */
  readonly id: string;
  readonly title: string;
  readonly createdAt: number;
  readonly turns: readonly ImportedTurn[];
  /** The source project the chat is in (a new chat is stored in it; one already stored stays where it is). */
  readonly project?: ImportedProject;
}

/**
 * How a transcript names its speakers, as read from the file: the layout, the speakers and their
 * roles, the first turns, and whether the reading is uncertain (then the app asks before storing).
 */
export interface TranscriptLayout {
  readonly layout: 'heading' | 'label' | 'list' | 'none';
  readonly ambiguous: boolean;
  /** Why the reading is uncertain, in words (empty when it is not). */
  readonly reasons: readonly string[];
  readonly speakers: readonly { readonly name: string; readonly role: 'user' | 'assistant' }[];
  readonly preview: readonly { readonly speaker: string; readonly role: 'user' | 'assistant'; readonly excerpt: string }[];
}

/** What a reader yields: the format it recognised (first), a conversation, or an entry it could not use and why (counted, never fatal). */
export type HistoryItem =
  | { readonly kind: 'format'; readonly format: HistoryFormat }
  | { readonly kind: 'layout'; readonly layout: TranscriptLayout }
  /**
   * A conversation, or with `part` one piece of a conversation too big to hold (its turns come in
   * several items, in order, with the same id): `first` and `last` mark the ends.
   */
  | {
      readonly kind: 'conversation';
      readonly conversation: ImportedConversation;
      readonly part?: { readonly first: boolean; readonly last: boolean };
    }
  | { readonly kind: 'skipped'; readonly reason: string }
  /** A project listed by the export (Claude's projects.json), with or without chats in this file. */
  | { readonly kind: 'project'; readonly project: ImportedProject };

export interface HistoryReadOptions {
  /** 'auto' recognises the format from the file name and its first entry. */
  readonly format: HistoryFormat | 'auto';
  /** Called as input bytes are consumed (compressed bytes for a zip). */
  readonly onBytes?: (bytesRead: number) => void;
  /** Polled between chunks; when true the reader stops and closes the file. */
  readonly cancelled?: () => boolean;
  /** Time for turns the source does not date (plain transcripts without date headings). */
  readonly now: number;
}

/**
 * The port the engine reads history through: streams the file and yields conversations one by
 * one (an export can be hundreds of MB). Throws INVALID_INPUT when the file is not of the format.
 */
export type HistoryReader = (file: HistoryFile, options: HistoryReadOptions) => AsyncIterable<HistoryItem>;

export interface HistoryProgress {
  readonly phase: 'scanning' | 'importing';
  readonly conversations: number;
  readonly turns: number;
  readonly skipped: number;
  readonly bytesRead: number;
  readonly bytesTotal: number;
}

export interface SkipCount {
  readonly reason: string;
  readonly count: number;
}

export interface HistoryRequest {
  readonly format: HistoryFormat | 'auto';
  /** Lets the UI stop this run with cancelHistoryImport(importId). */
  readonly importId: string;
  /** Memory mode of the projects this import creates (default 'shared'); projects already here keep theirs. */
  readonly projectMemory?: 'shared' | 'project-only';
}

/** A project the file holds, as a scan reports it. */
export interface ScannedProject {
  readonly sourceId: string;
  readonly name: string;
  /** Chats of the file in it. */
  readonly chats: number;
  readonly hasInstructions: boolean;
  /** Already here from an earlier import (reused, not created again): its name as it is now. */
  readonly existingName?: string;
}

/** A dry run over the file: what it holds and what synthesising it would cost. */
export interface HistoryScan {
  /** null when an empty file gave nothing to recognise. */
  readonly format: HistoryFormat | null;
  readonly conversations: number;
  readonly turns: number;
  readonly skipped: readonly SkipCount[];
  /** Estimated episodes (MemCells) the turns will form. */
  readonly episodes: number;
  readonly estimates: readonly SynthesisEstimate[];
  readonly cancelled: boolean;
  /** For a transcript: how its speakers were read (the app asks before storing when uncertain). */
  readonly transcript?: TranscriptLayout;
  /** Projects of the source the import will put chats in (or create empty, from a Claude projects.json). */
  readonly projects: readonly ScannedProject[];
}

export interface HistoryImportReport {
  readonly format: HistoryFormat | null;
  /** Conversations and turns newly stored by this run. */
  readonly conversations: number;
  readonly turns: number;
  /** Turns already stored by an earlier import of the same source (nothing was added for them). */
  readonly alreadyPresent: number;
  /** Projects this run created (an earlier import's are reused). */
  readonly projectsCreated: number;
  readonly skipped: readonly SkipCount[];
  readonly cancelled: boolean;
  readonly seconds: number;
  /** "1,204 conversations, 38,911 turns imported; 3 skipped: …" */
  readonly summary: string;
}
