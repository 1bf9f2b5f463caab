/**
 * What Recollect knows about the person: the profile, saved memories (typed, asked for in a
 * message, or imported from another assistant) and Export memory….
 * One group of EngineApi (src/core/protocol.ts): callers write `engine.profile.…`.
 */
import type { MemoryImportRequest, MemoryImportResult } from '../base/carriedMemory';
import type { MemoryExportFile, MemoryExportFormat } from '../base/memoryExport';
import type { MessageMemory, ProfileItemView } from '../explorer/explorer';
import type { ProfileItem } from '../synthesis/knowledge';
import type { MemorySummaryView, SummarySentenceRef } from '../explorer/memorySummary';

export interface ProfileApi {
  list(): Promise<ProfileItemView[]>;
  edit(id: string, value: string): Promise<void>;
  pin(id: string, pinned: boolean): Promise<void>;
  resolveConflict(id: string, choice: 'keep' | 'accept'): Promise<void>;
  delete(id: string): Promise<void>;
  /** Saved memories: a sentence written by the user, kept as an explicit profile item. */
  addMemory(text: string): Promise<ProfileItem>;
  /**
   * Memories saved at once from messages that asked for them ("remember that I'm vegetarian",
   * capture/rememberRequest.ts), each tied to its message: the chat shows "Memory updated" under it
   * with Undo (profile.delete). Deleting the message deletes the memory.
   */
  fromMessages(): Promise<MessageMemory[]>;
  /** Import memory…'s preview: which of these memories Recollect already knows (same words). */
  knownMemories(texts: readonly string[]): Promise<boolean[]>;
  /** Import memory…: stores the chosen memories as saved memories marked with their source, skipping known ones. */
  importMemories(request: MemoryImportRequest): Promise<MemoryImportResult>;
  /** Export memory…: profile, plans ahead and facts (not turns) in one of the carry formats, secrets redacted. */
  exportMemories(format: MemoryExportFormat): Promise<MemoryExportFile>;
  /** "What Recollect knows about you": the kept summary (no model call), whether it is stale, what Refresh would use. */
  summary(): Promise<MemorySummaryView>;
  /** Refresh: made by the endpoint, else the model on this device, else from the items; kept. */
  makeSummary(): Promise<MemorySummaryView>;
  /** A sentence edited in place: the words are saved as a memory written by the person, and the sentence cites it. */
  editSummarySentence(ref: SummarySentenceRef, text: string): Promise<MemorySummaryView>;
}
