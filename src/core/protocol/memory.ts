/**
 * The memory explorer: see, search, edit and forget episodes, facts and themes. Deletions are
 * tombstoned.
 * One group of EngineApi (src/core/protocol.ts): callers write `engine.memory.…`.
 */
import type {
  ConversationMemoryCounts,
  FactEdit,
  FactPage,
  FactQuery,
  FactView,
  ForgetCandidate,
  ForgetKind,
  ForgetResult,
  MemCellDetail,
  MemCellEdit,
  MemCellPage,
  MemCellQuery,
  MemoryOverview,
  MemorySearchFilters,
  MemorySearchHit,
  SceneMap,
  SceneView,
  ProjectFilter,
} from '../explorer/explorer';

export interface MemoryApi {
  overview(): Promise<MemoryOverview>;
  /** Facts and plans synthesis wrote from one conversation (the chat's "Memory updated" line). */
  conversationCounts(conversationId: string): Promise<ConversationMemoryCounts>;
  search(query: string, filters?: MemorySearchFilters): Promise<MemorySearchHit[]>;
  listMemCells(query: MemCellQuery): Promise<MemCellPage>;
  listFacts(query: FactQuery): Promise<FactPage>;
  memCell(id: string): Promise<MemCellDetail | null>;
  editMemCell(id: string, patch: MemCellEdit): Promise<MemCellDetail>;
  editFact(id: string, patch: FactEdit): Promise<FactView>;
  deleteFact(id: string): Promise<boolean>;
  deleteMemCell(id: string, options?: { readonly turns?: boolean }): Promise<boolean>;
  resynthesiseMemCell(id: string): Promise<void>;
  listScenes(): Promise<SceneView[]>;
  sceneMap(): Promise<SceneMap>;
  renameScene(id: string, title: string): Promise<void>;
  mergeScenes(targetId: string, sourceIds: readonly string[]): Promise<void>;
  splitScene(sceneId: string, memcellIds: readonly string[], title?: string): Promise<string>;
  forgetPreview(query: string, filter?: { readonly project?: ProjectFilter }): Promise<ForgetCandidate[]>;
  /** Deletes the items (from forgetPreview or single deletes); a `title` item loses the words of `about`, the preview's query. */
  forget(items: readonly { readonly kind: ForgetKind; readonly id: string }[], about?: string): Promise<ForgetResult>;
}
