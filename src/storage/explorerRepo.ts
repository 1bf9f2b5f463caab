/**
 * SQL of the memory explorer: implements core's ExplorerStore (src/core/explorer/explorer.ts) over
 * one database, in four parts by what the explorer does with it:
 * - explorerPages.ts: what it reads (overview counts, spend and jobs, pages of episodes, facts and
 *   plans, one episode, scenes, the profile);
 * - explorerSearch.ts: search across turns, facts, episodes and scenes;
 * - explorerEdits.ts: the person's edits (episodes, facts, scenes, profile, plans);
 * - explorerDeletes.ts: deleting and Forget, with tombstones in the same transaction (its header
 *   states the invariants); forgetCandidates.ts: what Forget proposes.
 */
import type { Sql } from '../core/base/sql';
import type {
  ExplorerStore,
  FactEdit,
  FactPage,
  ForesightEdit,
  MemCellEdit,
  FactQuery,
  ForesightPage,
  ForesightQuery,
  FactView,
  ForgetCandidate,
  ForgetKind,
  ForgetResult,
  JobView,
  LlmSpend,
  MemCellDetail,
  MemCellPage,
  MemCellQuery,
  MemoryCounts,
  ConversationMemoryCounts,
  MemoryKind,
  MemorySearchFilters,
  ProfileItemView,
  SceneVectorInput,
  SceneView,
  SearchCandidate,
  ProjectFilter,
} from '../core/explorer/explorer';
import { searchKind, candidatesByIds } from './explorerSearch';
import { forgetCandidates } from './forgetCandidates';
import { emptyEpisodeIds } from './explorerRows';
import { mixedScenes } from './projectWalls';
import * as pages from './explorerPages';
import * as edits from './explorerEdits';
import * as deletes from './explorerDeletes';

type Deleted = { sceneId: string | null; deletedTurnIds: string[] };

export class SqlExplorerStore implements ExplorerStore {
  readonly #sql: Sql;
  constructor(sql: Sql) {
    this.#sql = sql;
  }

  // ---- reading (explorerPages.ts, explorerSearch.ts) -----------------------------------------
  counts(): Promise<MemoryCounts> {
    return pages.counts(this.#sql);
  }
  conversationCounts(conversationId: string): Promise<ConversationMemoryCounts> {
    return pages.conversationCounts(this.#sql, conversationId);
  }
  llmSpend(): Promise<LlmSpend> {
    return pages.llmSpend(this.#sql);
  }
  recentJobs(limit: number): Promise<JobView[]> {
    return pages.recentJobs(this.#sql, limit);
  }
  searchKind(kind: MemoryKind, query: string, filters: MemorySearchFilters, limit: number): Promise<SearchCandidate[]> {
    return searchKind(this.#sql, kind, query, filters, limit);
  }
  candidatesByIds(kind: MemoryKind, ids: readonly string[], filters: MemorySearchFilters): Promise<SearchCandidate[]> {
    return candidatesByIds(this.#sql, kind, ids, filters);
  }
  listMemCells(query: MemCellQuery): Promise<MemCellPage> {
    return pages.listMemCells(this.#sql, query);
  }
  listFacts(query: FactQuery): Promise<FactPage> {
    return pages.listFacts(this.#sql, query);
  }
  memCell(id: string): Promise<MemCellDetail | null> {
    return pages.memCell(this.#sql, id);
  }
  scenes(): Promise<SceneView[]> {
    return pages.scenes(this.#sql);
  }
  sceneVectorInputs(limit: number): Promise<{ inputs: SceneVectorInput[]; episodes: number }> {
    return pages.sceneVectorInputs(this.#sql, limit);
  }
  profile(): Promise<ProfileItemView[]> {
    return pages.profile(this.#sql);
  }
  listForesight(query: ForesightQuery): Promise<ForesightPage> {
    return pages.listForesight(this.#sql, query);
  }
  emptyEpisodes(conversationId: string): Promise<string[]> {
    return emptyEpisodeIds(this.#sql, conversationId);
  }
  forgetCandidates(query: string, limit: number, filter?: { readonly project?: ProjectFilter }): Promise<ForgetCandidate[]> {
    return forgetCandidates(this.#sql, query, limit, filter);
  }

  // ---- editing (explorerEdits.ts) -------------------------------------------------------------
  editMemCell(id: string, patch: MemCellEdit, now: number): Promise<void> {
    return edits.editMemCell(this.#sql, id, patch, now);
  }
  editFact(id: string, patch: FactEdit, now: number): Promise<FactView> {
    return edits.editFact(this.#sql, id, patch, now);
  }
  renameScene(id: string, title: string, now: number): Promise<void> {
    return edits.renameScene(this.#sql, id, title, now);
  }
  mergeScenes(targetId: string, sourceIds: readonly string[], centroid: Float32Array | null, now: number): Promise<void> {
    return edits.mergeScenes(this.#sql, targetId, sourceIds, centroid, now);
  }
  splitScene(
    sceneId: string,
    memcellIds: readonly string[],
    newId: string,
    title: string | null,
    centroids: { kept: Float32Array | null; split: Float32Array | null },
    now: number,
  ): Promise<void> {
    return edits.splitScene(this.#sql, sceneId, memcellIds, newId, title, centroids, now);
  }
  mixedScenes(): Promise<{ sceneId: string; sides: Map<string, string[]> }[]> {
    return mixedScenes(this.#sql);
  }
  editProfileItem(id: string, value: string, now: number): Promise<void> {
    return edits.editProfileItem(this.#sql, id, value, now);
  }
  pinProfileItem(id: string, pinned: boolean, now: number): Promise<void> {
    return edits.pinProfileItem(this.#sql, id, pinned, now);
  }
  resolveProfileConflict(id: string, choice: 'keep' | 'accept', now: number): Promise<void> {
    return edits.resolveProfileConflict(this.#sql, id, choice, now);
  }
  editForesight(id: string, patch: ForesightEdit, now: number): Promise<void> {
    return edits.editForesight(this.#sql, id, patch, now);
  }
  dismissForesight(id: string, now: number): Promise<void> {
    return edits.dismissForesight(this.#sql, id, now);
  }

  // ---- deleting and Forget (explorerDeletes.ts) -----------------------------------------------
  deleteFact(id: string, now: number): Promise<boolean> {
    return deletes.deleteFact(this.#sql, id, now);
  }
  deleteMemCell(id: string, options: { turns: boolean }, now: number): Promise<Deleted | null> {
    return deletes.deleteMemCell(this.#sql, id, options, now);
  }
  deleteProfileItem(id: string, now: number): Promise<void> {
    return deletes.deleteProfileItem(this.#sql, id, now);
  }
  forget(
    items: readonly { kind: ForgetKind; id: string }[],
    now: number,
    about?: string,
  ): Promise<ForgetResult & { sceneIds: string[]; deletedTurnIds: string[] }> {
    return deletes.forget(this.#sql, items, now, about);
  }
}
