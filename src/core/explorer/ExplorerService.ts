/**
 * The memory explorer's operations: overview, search across kinds with reasons, episode
 * edits and deletion, the scene map and scene edits, profile and foresight edits, and "forget". The
 * engine delegates here; storage (ExplorerStore) does the SQL and the tombstones.
 *
 * Search ranks each kind with hybridSearch (the read path's one fusion of lexical candidates and
 * nearest vectors); the kinds' fused scores share one scale (RRF), so one sort orders them all.
 */
import { RecollectError } from '../base/errors';
import type { Clock, Embedder } from '../base/ports';
import type { VectorStore } from '../base/store';
import type { JobCounts, JobStore } from '../base/jobs';
import type { SemanticIndex } from '../capture/SemanticIndex';
import type { EmbeddingStatus } from '../capture/embeddingStatus';
import type { EpisodeStore } from '../episodes/episodes';
import { SYNTHESISE_MEMCELL } from '../episodes/Lifecycle';
import type { ForesightItem } from '../synthesis/knowledge';
import { SUMMARISE_SCENE } from '../synthesis/Consolidator';
import { hybridSearch, type HybridHit } from '../recall/hybridSearch';
import {
  MEMORY_KINDS,
  type ExplorerStore,
  type FactPage,
  type FactQuery,
  type FactView,
  type ForgetCandidate,
  type ForgetKind,
  type ForgetResult,
  type MemCellDetail,
  type MemCellPage,
  type MemCellQuery,
  type MemoryOverview,
  type ConversationMemoryCounts,
  type MemorySearchFilters,
  type MemorySearchHit,
  type ProfileItemView,
  type SceneMap,
  SCENE_MAP_BOUND,
  FORGET_PREVIEW_LIMIT,
  type ForesightPage,
  type ForesightQuery,
  type FactEdit,
  type ForesightEdit,
  type MemCellEdit,
  type SceneView,
  type SearchCandidate,
  type ProjectFilter,
} from './explorer';
import { matchReasons, pca2d, queryTerms } from './explorerText';

/**
 * Meaning-only hits must be clearly similar: small embedders (GloVe-SIF) give unrelated texts
 * cosines of 0.5–0.7. Below VECTOR_MIN a vector hit is ignored; between it and VECTOR_ONLY_MIN it
 * only strengthens a hit the words found.
 */
const VECTOR_MIN = 0.5;
const VECTOR_ONLY_MIN = 0.8;
const VECTOR_DEPTH = 12;

export interface ExplorerServiceDeps {
  readonly explorer: ExplorerStore;
  readonly vectors: VectorStore;
  /** The vector indexes of the kinds that have vectors. */
  readonly indexes: { readonly turn: SemanticIndex; readonly fact: SemanticIndex; readonly episode: SemanticIndex };
  /** The active embedder for reading, or null (none, or failing: callers fall back to text). */
  readonly embedder: () => Embedder | null;
  readonly embeddingStatus: () => EmbeddingStatus | null;
  readonly jobs: JobStore | null;
  readonly episodes: EpisodeStore | null;
  /** Wakes the synthesis queue; null when the engine has none. */
  readonly kickSynthesis: ((options?: { resume?: boolean }) => void) | null;
  /** The lifecycle forgets its cached open cells (one may have been deleted). */
  readonly resetLifecycle: () => void;
  readonly consolidation: () => Promise<{
    readonly policy: string;
    readonly endpointConfigured: boolean;
    readonly jobs: JobCounts;
    readonly backgroundErrors: readonly string[];
  }>;
  readonly databaseBytes: () => Promise<number>;
  readonly clock: Clock;
  readonly newId: () => string;
  /**
   * Memory changed (indexes reload, the UI refetches); with `turns`, stored turns were deleted too;
   * with `answers`, a deleted item was redacted from stored answers ("what was sent", citation
   * labels), so a chat already on screen must read them again; with `conversations`, a
   * conversation was renamed.
   */
  readonly changed: (options?: { readonly turns?: boolean; readonly answers?: boolean; readonly conversations?: boolean }) => void;
  /**
   * Sync (off: absent or a no-op): turns deleted here, and after Forget a sweep that records every
   * synced conversation title and hand-written memory Forget changed or removed.
   */
  readonly synced?: { noteTurnsDeleted(turnIds: readonly string[]): void; noteSweep(): void };
}

export class ExplorerService {
  readonly #d: ExplorerServiceDeps;

  constructor(deps: ExplorerServiceDeps) {
    this.#d = deps;
  }

  get #ex(): ExplorerStore {
    return this.#d.explorer;
  }

  #now(): number {
    return this.#d.clock.now();
  }

  conversationMemoryCounts(conversationId: string): Promise<ConversationMemoryCounts> {
    return this.#ex.conversationCounts(conversationId);
  }

  async memoryOverview(): Promise<MemoryOverview> {
    const ex = this.#ex;
    const [counts, llm, recentJobs, databaseBytes, status] = await Promise.all([
      ex.counts(),
      ex.llmSpend(),
      ex.recentJobs(12),
      this.#d.databaseBytes(),
      this.#d.consolidation(),
    ]);
    const e = this.#d.embeddingStatus();
    return {
      counts,
      llm,
      recentJobs,
      databaseBytes,
      jobs: status.jobs,
      endpointConfigured: status.endpointConfigured,
      policy: status.policy,
      embedder: e ? { modelId: e.activeModel, state: e.state, embedded: e.embedded, total: e.total } : null,
      vectorIndex: this.#d.indexes.turn.implementation,
      backgroundErrors: status.backgroundErrors,
    };
  }

  /** Searches turns, facts, episodes and scenes, each hit with the reasons it matched. */
  async searchMemory(query: string, filters: MemorySearchFilters = {}): Promise<MemorySearchHit[]> {
    const terms = queryTerms(query);
    if (terms.length === 0) return [];
    const kinds = filters.kinds?.length ? filters.kinds : MEMORY_KINDS;
    const limit = Math.max(1, Math.min(filters.limit ?? 50, 200));
    const embedder = this.#d.embedder();
    const [vector] = embedder ? await embedder.embed([query.trim()], 'query') : [];
    const hits: HybridHit<SearchCandidate>[] = [];
    for (const kind of kinds) {
      const lexical = await this.#ex.searchKind(kind, query, filters, limit);
      const index = kind === 'scene' ? null : this.#d.indexes[kind];
      const nearest =
        embedder && vector && index
          ? (await index.search(embedder.id, embedder.dim, vector, VECTOR_DEPTH)).filter((h) => h.score >= VECTOR_MIN)
          : [];
      hits.push(
        ...(await hybridSearch({
          lexical,
          vector: nearest,
          fetch: (ids) => this.#ex.candidatesByIds(kind, ids, filters),
          admit: (hit, alsoLexical) => hit.score >= VECTOR_ONLY_MIN || alsoLexical,
        })),
      );
    }
    return hits
      .sort((a, b) => b.score - a.score)
      .slice(0, limit)
      .map(({ item: c, score, ranks, similarity }) => {
        const reasons = matchReasons(terms, c.fields);
        if (ranks.lexical !== undefined && reasons.length === 0) reasons.push('full-text match (a word form of your query)');
        if (similarity !== null) reasons.push(`similar in meaning (cosine ${similarity.toFixed(2)})`);
        return {
          kind: c.kind,
          id: c.id,
          title: c.title,
          text: c.text,
          occurredAt: c.occurredAt,
          conversationId: c.conversationId,
          memcellId: c.memcellId,
          speaker: c.speaker,
          score,
          reasons,
        };
      });
  }

  listMemCells(query: MemCellQuery): Promise<MemCellPage> {
    return this.#ex.listMemCells({ ...query, offset: Math.max(0, query.offset ?? 0), limit: Math.max(1, Math.min(query.limit, 500)) });
  }

  memCell(id: string): Promise<MemCellDetail | null> {
    return this.#ex.memCell(id);
  }

  listFacts(query: FactQuery): Promise<FactPage> {
    return this.#ex.listFacts({ ...query, limit: Math.max(1, Math.min(query.limit, 500)) });
  }

  async #embedItem(kind: 'fact' | 'memcell', id: string, text: string): Promise<void> {
    const embedder = this.#d.embedder();
    if (!embedder || !text.trim()) return;
    try {
      const [v] = await embedder.embed([text], 'document');
      if (v) await this.#d.vectors.putVectors(kind, embedder.id, [{ itemId: id, vector: v }]);
    } catch {
      /* a missing vector only weakens search by meaning; full-text search has the edit */
    }
  }

  /** Edits an episode's title/narrative; marked edited by the user, so synthesis keeps them. */
  async editMemCell(id: string, patch: MemCellEdit): Promise<MemCellDetail> {
    await this.#ex.editMemCell(id, patch, this.#now());
    const cell = await this.#ex.memCell(id);
    if (!cell) throw new RecollectError('NOT_FOUND', 'This episode no longer exists.');
    if (cell.narrative) await this.#embedItem('memcell', id, `${cell.title ?? ''}. ${cell.narrative}`);
    this.#d.changed();
    return cell;
  }

  /** Corrects a fact; the correction survives re-synthesis and the old wording is not written again. */
  async editFact(id: string, patch: FactEdit): Promise<FactView> {
    const fact = await this.#ex.editFact(id, patch, this.#now());
    await this.#embedItem('fact', id, fact.content);
    this.#d.changed();
    return fact;
  }

  async deleteFact(id: string): Promise<boolean> {
    const deleted = await this.#ex.deleteFact(id, this.#now());
    if (deleted) this.#d.changed({ answers: true });
    if (deleted) this.#d.synced?.noteSweep(); // deleted on every device
    return deleted;
  }

  /** Scenes that lost text get a fresh summary from their remaining members. */
  async #resummarise(sceneIds: readonly string[]): Promise<void> {
    const { jobs } = this.#d;
    if (!jobs || sceneIds.length === 0) return;
    for (const sceneId of sceneIds) await jobs.enqueue(SUMMARISE_SCENE, { sceneId }, { dedupeKey: `scene:${sceneId}` });
    this.#d.kickSynthesis?.();
  }

  async #turnsDeleted(ids: readonly string[]): Promise<void> {
    for (const t of ids) await this.#d.indexes.turn.remove(t);
    if (ids.length) this.#d.synced?.noteTurnsDeleted(ids);
  }

  /**
   * Forgets an episode: narrative, facts and foresight (tombstoned), and with `turns` its source
   * turns as well; without, the turns stay in the chat and are not made into an episode again.
   */
  async deleteMemCell(id: string, options: { turns?: boolean } = {}): Promise<boolean> {
    const result = await this.#ex.deleteMemCell(id, { turns: options.turns === true }, this.#now());
    if (!result) return false;
    this.#d.resetLifecycle(); // it may have been a conversation's open cell
    await this.#turnsDeleted(result.deletedTurnIds);
    this.#d.synced?.noteSweep(); // its facts and plans: deleted on every device
    await this.#resummarise(result.sceneId ? [result.sceneId] : []);
    this.#d.changed({ turns: result.deletedTurnIds.length > 0, answers: true });
    return true;
  }

  /**
   * After turns were deleted from a conversation: an episode left with no turns and nothing
   * synthesised from it has nothing to show ("Untitled episode · 0 messages"), so it goes.
   * Synthesised episodes stay — their narrative and facts are memory the user deletes on purpose.
   */
  async dropEmptyEpisodes(conversationId: string): Promise<number> {
    const ids = await this.#ex.emptyEpisodes(conversationId);
    for (const id of ids) await this.deleteMemCell(id);
    return ids.length;
  }

  /** Queues the episode for synthesis now (facts and foresight the user forgot stay forgotten). */
  async resynthesiseMemCell(id: string): Promise<void> {
    const { jobs, kickSynthesis } = this.#d;
    if (!jobs || !kickSynthesis) throw new RecollectError('INTERNAL', 'This engine has no synthesis queue.');
    const cell = await this.#ex.memCell(id);
    if (!cell) throw new RecollectError('NOT_FOUND', 'This episode no longer exists.');
    await jobs.enqueue(SYNTHESISE_MEMCELL, { memcellId: id }, { dedupeKey: `memcell:${id}`, priority: 10 });
    await this.#d.episodes?.setCellStatus(id, 'queued', this.#now());
    kickSynthesis({ resume: true });
    this.#d.changed();
  }

  listScenes(): Promise<SceneView[]> {
    return this.#ex.scenes();
  }

  #active(): { id: string; dim: number } | null {
    const e = this.#d.embedder();
    return e ? { id: e.id, dim: e.dim } : null;
  }

  /** Episodes as points: their vectors projected on two principal components, coloured by scene. */
  async sceneMap(): Promise<SceneMap> {
    const { inputs, episodes } = await this.#ex.sceneVectorInputs(SCENE_MAP_BOUND);
    const active = this.#active();
    if (!active || inputs.length === 0) return { points: [], episodes };
    const vectors = new Map(
      (
        await this.#d.vectors.getVectors(
          'memcell',
          inputs.map((i) => i.memcellId),
          active.id,
        )
      ).map((v) => [v.itemId, v.vector]),
    );
    // Episodes without a vector from this model (closed under another embedder, or imported):
    // the mean of their turns' vectors, as the lifecycle computes at close (bounded work per call).
    for (const i of inputs.filter((x) => !vectors.has(x.memcellId)).slice(0, 300)) {
      const cell = await this.#ex.memCell(i.memcellId);
      const turns = cell
        ? await this.#d.vectors.getVectors(
            'message',
            cell.turns.map((t) => t.id),
            active.id,
          )
        : [];
      if (turns.length === 0) continue;
      const mean = new Float32Array(active.dim);
      for (const t of turns)
        if (t.vector.length === active.dim) for (let d = 0; d < mean.length; d++) mean[d]! += t.vector[d]! / turns.length;
      vectors.set(i.memcellId, mean);
    }
    const placed = inputs.filter((i) => vectors.get(i.memcellId)?.length === active.dim);
    const points = pca2d(placed.map((i) => vectors.get(i.memcellId)!));
    return {
      episodes,
      points: placed.map((i, n) => ({
        memcellId: i.memcellId,
        sceneId: i.sceneId,
        title: i.title,
        startAt: i.startAt,
        x: points[n]![0],
        y: points[n]![1],
      })),
    };
  }

  async renameScene(id: string, title: string): Promise<void> {
    await this.#ex.renameScene(id, title, this.#now());
    this.#d.changed();
  }

  /** Normalised mean of the episodes' vectors, centred like the clusterer's (see Lifecycle). */
  async #centroidOf(memcellIds: readonly string[]): Promise<Float32Array | null> {
    const active = this.#active();
    if (!active || memcellIds.length === 0) return null;
    const vectors = (await this.#d.vectors.getVectors('memcell', memcellIds, active.id)).filter((v) => v.vector.length === active.dim);
    if (vectors.length === 0) return null;
    const common = await this.#d.indexes.turn.meanVector(active.id, active.dim);
    const sum = new Float32Array(active.dim);
    for (const { vector } of vectors) for (let i = 0; i < sum.length; i++) sum[i]! += vector[i]! - common[i]!;
    const norm = Math.hypot(...sum);
    return norm > 0 ? sum.map((x) => x / norm) : null;
  }

  async mergeScenes(targetId: string, sourceIds: readonly string[]): Promise<void> {
    const scenes = await this.#ex.scenes();
    const members = scenes.filter((s) => s.id === targetId || sourceIds.includes(s.id)).flatMap((s) => s.members.map((m) => m.id));
    await this.#ex.mergeScenes(targetId, sourceIds, await this.#centroidOf(members), this.#now());
    await this.#resummarise([targetId]);
    this.#d.changed();
  }

  /** Moves the given episodes of a scene into a new scene (named `title` if given); returns its id. */
  async splitScene(sceneId: string, memcellIds: readonly string[], title?: string): Promise<string> {
    const scene = (await this.#ex.scenes()).find((s) => s.id === sceneId);
    if (!scene) throw new RecollectError('NOT_FOUND', 'This scene no longer exists.');
    const moving = new Set(memcellIds);
    if (scene.members.every((m) => moving.has(m.id)))
      throw new RecollectError('INVALID_INPUT', 'Leave at least one episode in the scene (or rename it instead).');
    const newId = this.#d.newId();
    await this.#ex.splitScene(
      sceneId,
      memcellIds,
      newId,
      title ?? null,
      {
        kept: await this.#centroidOf(scene.members.filter((m) => !moving.has(m.id)).map((m) => m.id)),
        split: await this.#centroidOf(memcellIds),
      },
      this.#now(),
    );
    await this.#resummarise([sceneId, newId]);
    this.#d.changed();
    return newId;
  }

  /**
   * Splits every theme that holds episodes from both sides of a project-only wall (a chat moved into
   * or out of such a project after its episodes joined a theme): the side with the most episodes
   * keeps the theme, each other side gets a theme of its own. Their summaries, written from both
   * sides, are dropped and made again from each side alone, so no walled text is read outside its
   * project. Returns how many themes were split; a second call splits none.
   */
  async splitMixedScenes(): Promise<number> {
    const mixed = await this.#ex.mixedScenes();
    const touched: string[] = [];
    for (const { sceneId, sides } of mixed) {
      // Most episodes first; on a tie the shared side keeps the theme.
      const ordered = [...sides].sort(([a, x], [b, y]) => y.length - x.length || (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b)));
      let kept = ordered.flatMap(([, ids]) => ids);
      for (const [, ids] of ordered.slice(1)) {
        const moving = new Set(ids);
        kept = kept.filter((id) => !moving.has(id));
        const newId = this.#d.newId();
        const centroids = { kept: await this.#centroidOf(kept), split: await this.#centroidOf(ids) };
        await this.#ex.splitScene(sceneId, ids, newId, null, centroids, this.#now());
        touched.push(newId);
      }
      touched.push(sceneId);
    }
    if (touched.length === 0) return 0;
    await this.#resummarise(touched);
    this.#d.changed();
    return mixed.length;
  }

  listProfile(): Promise<ProfileItemView[]> {
    return this.#ex.profile();
  }

  async editProfileItem(id: string, value: string): Promise<void> {
    await this.#ex.editProfileItem(id, value, this.#now());
    this.#d.changed();
  }

  /** A pinned item is protected from the pipeline: proposals become conflicts for the user. */
  async pinProfileItem(id: string, pinned: boolean): Promise<void> {
    await this.#ex.pinProfileItem(id, pinned, this.#now());
    this.#d.changed();
  }

  async resolveProfileConflict(id: string, choice: 'keep' | 'accept'): Promise<void> {
    if (choice !== 'keep' && choice !== 'accept') throw new RecollectError('INVALID_INPUT', `Unknown choice "${String(choice)}".`);
    await this.#ex.resolveProfileConflict(id, choice, this.#now());
    this.#d.changed();
  }

  async deleteProfileItem(id: string): Promise<void> {
    await this.#ex.deleteProfileItem(id, this.#now());
    this.#d.changed({ answers: true });
    this.#d.synced?.noteSweep(); // a model item's key: deleted on every device
  }

  /** A page of foresight (the app reads these). */
  listForesightPage(query: ForesightQuery): Promise<ForesightPage> {
    return this.#ex.listForesight({ ...query, limit: Math.max(1, Math.min(query.limit, 500)) });
  }

  /** Every foresight item, dismissed ones too, page by page (tests and tools; the app reads pages). */
  async listForesight(): Promise<ForesightItem[]> {
    const all: ForesightItem[] = [];
    let cursor: string | null = null;
    do {
      const page = await this.#ex.listForesight({ limit: 500, cursor, dismissed: true });
      all.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return all;
  }

  async editForesight(id: string, patch: ForesightEdit): Promise<void> {
    await this.#ex.editForesight(id, patch, this.#now());
    this.#d.changed();
  }

  async dismissForesight(id: string): Promise<void> {
    await this.#ex.dismissForesight(id, this.#now());
    this.#d.changed();
  }

  /** "Forget everything about X", step 1: what would go (shown to the user before anything is deleted). */
  forgetPreview(query: string, filter?: { readonly project?: ProjectFilter }): Promise<ForgetCandidate[]> {
    return this.#ex.forgetCandidates(query, FORGET_PREVIEW_LIMIT, filter);
  }

  /**
   * Step 2: deletes the confirmed items in one transaction, each tombstoned; a confirmed
   * conversation title loses the words of `about`, the query of step 1.
   */
  async forget(items: readonly { readonly kind: ForgetKind; readonly id: string }[], about?: string): Promise<ForgetResult> {
    const result = await this.#ex.forget(items, this.#now(), about);
    this.#d.resetLifecycle();
    await this.#turnsDeleted(result.deletedTurnIds);
    this.#d.synced?.noteSweep(); // titles redacted and memories forgotten: sync compares what it holds
    await this.#resummarise(result.sceneIds);
    this.#d.changed({ turns: result.deletedTurnIds.length > 0, answers: true, conversations: result.deleted.title > 0 });
    return { deleted: result.deleted };
  }
}
