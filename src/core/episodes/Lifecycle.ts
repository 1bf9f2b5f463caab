/**
 * The no-LLM part of the write path, run in the background after turns are embedded (docs/architecture.md, Write path):
 * each stored turn gets an encoding score, explicit future dates become foresight, turns are
 * segmented into MemCells (the open cell of a conversation grows until a boundary closes it),
 * and a closed cell gets a vector (mean of its turns) and joins or founds a MemScene. The
 * consolidation policy then decides which cells to queue for LLM synthesis.
 *
 * The work list is "turns not yet in any cell", read from the database, so the lifecycle is
 * resumable after a crash and idempotent: a turn is placed exactly once.
 */
import type { EpisodeStore, LifecycleTurn, MemCellRecord } from './episodes';
import type { MemoryStore, VectorStore } from '../base/store';
import type { SemanticIndex } from '../capture/SemanticIndex';
import type { JobStore } from '../base/jobs';
import type { Clock } from '../base/ports';
import type { ConsolidationPolicy } from './consolidationPolicy';
import { boundaryBefore, extend, DEFAULT_SEGMENTER_CONFIG, type OpenSegment, type SegmenterConfig } from './segmenter';
import { assignScene, DEFAULT_SCENE_CONFIG } from './sceneClusterer';
import { consolidationPriority, encodingScore } from './encodingScore';
import { findDateForesight } from './dateForesight';
import { toErrorInfo, type ErrorInfo } from '../base/errors';
import { sceneHeat } from './heat';
import { BackgroundLoop } from '../base/backgroundLoop';
import { yieldToEvents } from '../base/yieldToEvents';
import type { BoundaryJudge } from './boundaryCheck';
import { idleCloseReason } from './idleClose';
import { centred, recentreScenes, turnMean } from './modelSwitch';

export const SYNTHESISE_MEMCELL = 'synthesise-memcell';

const WAIT_FOR_VECTOR = Symbol('wait-for-vector');

export interface ActiveVectors {
  readonly id: string;
  readonly dim: number;
}

export interface LifecycleDeps {
  readonly episodes: EpisodeStore;
  readonly store: MemoryStore & VectorStore;
  readonly semantic: SemanticIndex;
  /**
   * The vector model whose vectors segmentation and scenes use; null when there is none or
   * embedding is failing (then turns are placed without vectors rather than waiting forever).
   */
  readonly activeVectors: () => ActiveVectors | null;
  readonly jobs: JobStore;
  readonly policy: () => ConsolidationPolicy;
  readonly clock: Clock;
  readonly newId: () => string;
  /** Called after new jobs were queued. */
  readonly onJobsQueued?: () => void;
  /** Optional LLM boundary check, consulted when the rules would extend an episode (see boundaryCheck.ts). */
  readonly boundaryJudge?: () => BoundaryJudge | null;
  /** The user's time zone (IANA): day boundaries and date foresight are reckoned in it. */
  readonly timeZone?: () => string;
  readonly onChange?: () => void;
}

interface OpenState {
  readonly cellId: string;
  readonly segment: OpenSegment;
}

export class Lifecycle {
  readonly #d: LifecycleDeps;
  readonly #open = new Map<string, OpenState | null>();
  readonly #loop = new BackgroundLoop(() => this.#run());
  #lastError: ErrorInfo | null = null;
  /** An idle close was asked for; the loop runs it once every unplaced turn is placed. */
  #idleDue = false;
  /** …and it closes every open cell, idle or not (closeIdle({ all: true })). */
  #idleAll = false;
  #idleClosed = 0;
  /** The policy changed; the loop re-evaluates the raw cells once the unplaced turns are placed. */
  #reevaluateDue = false;

  constructor(deps: LifecycleDeps) {
    this.#d = deps;
  }

  get lastError(): ErrorInfo | null {
    return this.#lastError;
  }

  kick(): void {
    this.#loop.kick();
  }

  /** Whether a pass is under way (the trailing indexing's progress counts episodes as work). */
  get busy(): boolean {
    return this.#loop.running;
  }

  async idle(): Promise<void> {
    await this.#loop.idle();
  }

  stop(): void {
    this.#loop.stop();
  }

  /** Forgets cached open-cell state (after an import replaced the database). */
  reset(): void {
    this.#open.clear();
  }

  /**
   * Closes the open cells that idleClose.ts calls idle (no activity for the boundary gap, or a new
   * day in the user's time zone), then gives them a scene and lets the policy queue synthesis.
   * Runs inside the loop, after the unplaced turns, so it never races a placement; closing is
   * idempotent (a closed cell is never closed again). Returns how many cells it closed.
   *
   * `all`: every open cell closes as after a time gap, whatever its age — the end of a bulk ingest
   * (the benchmarks, the fixture memory, tests), through the same path as the upkeep's close.
   */
  async closeIdle(options: { readonly all?: boolean } = {}): Promise<number> {
    this.#idleDue = true;
    if (options.all) this.#idleAll = true;
    this.#idleClosed = 0;
    this.#loop.kick();
    await this.#loop.idle();
    return this.#idleClosed;
  }

  /**
   * The consolidation policy changed: every closed cell still raw (or failed) is offered to the
   * policy again, as if it had just closed, in the background loop. Queued work then runs through
   * the job queue in heat order like any other (no burst outside the queue).
   */
  reevaluate(): void {
    this.#reevaluateDue = true;
    this.#loop.kick();
  }

  async #reevaluateNow(): Promise<void> {
    this.#reevaluateDue = false;
    const policy = this.#d.policy();
    if (policy.name === 'off') return;
    const queued = new Set<string>();
    for (const cell of await this.#d.episodes.unsynthesisedCells(100_000)) {
      await yieldToEvents(); // one cell per slice: a search or a send gets in between
      if (this.#loop.stopped) return;
      if (queued.has(cell.id)) continue;
      const sceneCells = cell.sceneId ? (await this.#d.episodes.cellsInScene(cell.sceneId)).filter((c) => c.closedBy !== null) : [cell];
      const ids = policy.onCellClosed(cell, sceneCells).filter((id) => !queued.has(id));
      if (ids.length === 0) continue;
      await this.#queue(ids, cell.sceneId ? await this.#d.episodes.sceneHeat(cell.sceneId) : 0);
      for (const id of ids) queued.add(id);
    }
    if (queued.size) this.#d.onChange?.();
  }

  async #closeIdleNow(): Promise<void> {
    this.#idleDue = false;
    const all = this.#idleAll;
    this.#idleAll = false;
    const now = this.#d.clock.now();
    const rule = this.#segmenter();
    const open = await this.#d.episodes.openCellsIdleSince(Number.MAX_SAFE_INTEGER);
    let closed = 0;
    for (const cell of open) {
      if (this.#loop.stopped) return;
      const reason = all ? 'time-gap' : idleCloseReason(cell, now, rule);
      if (!reason) continue;
      await yieldToEvents(); // one cell per slice
      await this.#d.episodes.closeCell(cell.id, reason, now);
      this.#open.delete(cell.conversationId);
      await this.#afterClose(cell.id);
      closed++;
    }
    this.#idleClosed += closed;
    if (closed) this.#d.onChange?.();
  }

  /**
   * An embedder switch reached `model` for every turn: a raw episode's vector for it (the mean of
   * its turns), or null for an unknown cell; and every theme's centroid rebuilt for it.
   */
  async cellVector(cellId: string, model: string, dim: number): Promise<Float32Array | null> {
    const cell = await this.#d.episodes.getCell(cellId);
    return cell ? turnMean(this.#d, cell, model, dim) : null;
  }

  recentreScenes(model: string, dim: number, onlyStale = false): Promise<number> {
    return recentreScenes(this.#d, model, dim, onlyStale);
  }

  #segmenter(): SegmenterConfig {
    return this.#d.timeZone ? { ...DEFAULT_SEGMENTER_CONFIG, timeZone: this.#d.timeZone() } : DEFAULT_SEGMENTER_CONFIG;
  }

  async #run(): Promise<void> {
    try {
      for (;;) {
        if (this.#loop.stopped) return;
        const turns = await this.#d.episodes.unplacedTurns(64);
        if (turns.length === 0) break;
        const closed: string[] = [];
        let waiting = false;
        for (const turn of turns) {
          // One turn per slice: every await below settles as a microtask on a synchronous
          // database, so without this a search waits for the whole batch (yieldToEvents.ts).
          await yieldToEvents();
          if (this.#loop.stopped) return;
          const c = await this.#place(turn);
          if (c === WAIT_FOR_VECTOR) {
            waiting = true;
            break;
          }
          if (c) closed.push(c);
        }
        for (const id of closed) {
          await yieldToEvents();
          await this.#afterClose(id);
        }
        if (closed.length > 0 || !waiting) this.#d.onChange?.();
        // The embedder has not reached this turn yet: the next kick (when embedding settles) resumes.
        if (waiting) break;
      }
      // Only once nothing waits to be placed: a waiting turn may still extend its open cell.
      if (this.#idleDue && (await this.#d.episodes.unplacedTurns(1)).length === 0) await this.#closeIdleNow();
      if (this.#reevaluateDue) await this.#reevaluateNow();
      this.#lastError = null;
    } catch (err) {
      this.#lastError = toErrorInfo(err);
    }
  }

  async #openState(conversationId: string, active: ActiveVectors | null): Promise<OpenState | null> {
    if (this.#open.has(conversationId)) return this.#open.get(conversationId) ?? null;
    const found = await this.#d.episodes.openCell(conversationId);
    if (!found) {
      this.#open.set(conversationId, null);
      return null;
    }
    const vectors = active
      ? new Map((await this.#d.store.getVectors('message', found.memberIds, active.id)).map((v) => [v.itemId, v.vector]))
      : new Map();
    let segment: OpenSegment | null = null;
    for (const id of found.memberIds) {
      segment = extend(segment, { id, seq: 0, occurredAt: found.cell.endAt, tokenCount: 0, vector: vectors.get(id) ?? null });
    }
    // Token count is not needed exactly for a resumed cell: size caps use turns first.
    const state: OpenState = {
      cellId: found.cell.id,
      segment: segment ?? { lastOccurredAt: found.cell.endAt, turns: 0, tokens: 0, vectorSum: null },
    };
    this.#open.set(conversationId, state);
    return state;
  }

  /** Places one turn; returns the id of a cell it closed, if any, or WAIT_FOR_VECTOR. */
  async #place(turn: LifecycleTurn): Promise<string | null | typeof WAIT_FOR_VECTOR> {
    const d = this.#d;
    const active = d.activeVectors();
    const [vector] = active ? (await d.store.getVectors('message', [turn.id], active.id)).map((v) => v.vector) : [];
    // Segmentation and scenes need the turn's vector; while embedding works, wait for it.
    if (active && !vector) return WAIT_FOR_VECTOR;
    const open = await this.#openState(turn.conversationId, active);
    const segTurn = { id: turn.id, seq: turn.seq, occurredAt: turn.occurredAt, tokenCount: turn.tokenCount, vector: vector ?? null };
    // Read once a turn: the platform's zone is an Intl lookup, costly at a history import's pace.
    const rule = this.#segmenter();
    let reason = boundaryBefore(open?.segment ?? null, segTurn, rule);
    const judge = d.boundaryJudge?.();
    if (!reason && open && judge && open.segment.turns >= rule.minTurnsForDrift) {
      const recent = await this.#recentTurns(turn.conversationId, turn.seq, 6);
      if (await judge(recent, { speaker: turn.speaker, text: turn.content })) reason = 'topic-drift';
    }

    // Encoding score against the nearest stored turns (by meaning when vectors exist).
    let neighbours: string[] = [];
    if (active && vector) {
      const hits = (await d.semantic.search(active.id, active.dim, vector, 11)).filter((h) => h.id !== turn.id).slice(0, 10);
      const texts = await Promise.all(hits.map((h) => d.store.getMessage(h.id)));
      neighbours = texts.filter((m) => m !== null).map((m) => m.content);
    }
    const encoding = encodingScore({ text: turn.content, neighbours });

    const now = d.clock.now();
    const startsNew = !open || reason !== null;
    const cellId = startsNew ? d.newId() : open.cellId;
    const foresight =
      turn.role !== 'system'
        ? findDateForesight(turn.content, turn.occurredAt, rule.timeZone, turn.role).map((f) => ({
            ...f,
            id: d.newId(),
            memcellId: cellId,
            sourceMessageId: turn.id,
          }))
        : [];
    await d.episodes.placeTurn(
      {
        turn,
        encoding,
        priority: consolidationPriority(encoding),
        close: open && reason ? { cellId: open.cellId, reason } : null,
        newCellId: startsNew ? cellId : null,
        extendCellId: startsNew ? null : cellId,
        foresight,
      },
      now,
    );
    this.#open.set(turn.conversationId, { cellId, segment: extend(startsNew ? null : open.segment, segTurn) });
    return open && reason ? open.cellId : null;
  }

  async #recentTurns(conversationId: string, beforeSeq: number, n: number): Promise<{ speaker: string; text: string }[]> {
    const turns = await this.#d.episodes.turnsBefore(conversationId, beforeSeq, n);
    return turns.map((m) => ({ speaker: m.speaker, text: m.content }));
  }

  /** A closed cell gets its vector and scene, and the policy may queue synthesis. */
  async #afterClose(cellId: string): Promise<void> {
    const d = this.#d;
    const cell = await d.episodes.getCell(cellId);
    if (!cell) return;
    const active = d.activeVectors();
    let sceneCells: MemCellRecord[] = [cell];
    if (active) {
      const mean = await turnMean(d, cell, active.id, active.dim);
      if (mean) {
        await d.store.putVectors('memcell', active.id, [{ itemId: cell.id, vector: mean }]);
        // Scenes compare centred vectors (see SemanticIndex.meanVector); centroids are stored centred.
        const centredVector = centred(mean, await d.semantic.meanVector(active.id, active.dim));
        // A theme stays on one side of a project-only wall: a walled episode joins only themes of its
        // own project, a shared one only themes with no walled member (a theme mixing both, made
        // before the wall or by a move, is joined by neither).
        const sides = await d.episodes.sceneSides(cell.conversationId);
        const sameSide = (id: string) => {
          const of = sides.scenes.get(id);
          return !of || (of.size === 1 && of.has(sides.own));
        };
        const scenes = (await d.episodes.scenes(active.id)).filter((s) => s.centroid !== null && sameSide(s.id));
        const decision = assignScene(
          scenes.map((s) => ({ id: s.id, centroid: s.centroid!, memberCount: s.memberCount, lastActivityAt: s.lastActivityAt })),
          centredVector,
          cell.endAt,
          DEFAULT_SCENE_CONFIG,
        );
        const now = d.clock.now();
        if (decision.kind === 'join') {
          await d.episodes.assignScene(cell.id, { ...decision.next, centroidModel: active.id }, false, now);
          sceneCells = await d.episodes.cellsInScene(decision.sceneId);
        } else {
          await d.episodes.assignScene(
            cell.id,
            { id: d.newId(), centroid: centredVector, centroidModel: active.id, memberCount: 1, lastActivityAt: cell.endAt },
            true,
            now,
          );
        }
      }
    }
    // The embedder switch ended while this episode closed: what was written above for the old model
    // would go with its vectors (the episode's) or stay behind (the theme's centroid).
    // Nothing below changes the episode's own row (vectors and theme centroids only): read it once.
    const fresh = (await d.episodes.getCell(cell.id)) ?? cell;
    const now = d.activeVectors();
    if (active && now && now.id !== active.id) {
      const mean = await turnMean(d, cell, now.id, now.dim);
      if (mean) await d.store.putVectors('memcell', now.id, [{ itemId: cell.id, vector: mean }]);
      if (fresh.sceneId) await recentreScenes(d, now.id, now.dim, true);
    }
    const heat = fresh.sceneId ? await this.#refreshHeat(fresh.sceneId) : 0;
    await this.#queue(
      d.policy().onCellClosed(
        fresh,
        sceneCells.map((c) => (c.id === fresh.id ? fresh : c)),
      ),
      heat,
    );
  }

  async #refreshHeat(sceneId: string): Promise<number> {
    const now = this.#d.clock.now();
    const heat = sceneHeat(await this.#d.episodes.sceneHeatInput(sceneId), now);
    await this.#d.episodes.setSceneHeat(sceneId, heat, now);
    return heat;
  }

  async #queue(cellIds: readonly string[], priority: number): Promise<void> {
    if (cellIds.length === 0) return;
    const now = this.#d.clock.now();
    for (const id of cellIds) {
      await this.#d.jobs.enqueue(SYNTHESISE_MEMCELL, { memcellId: id }, { dedupeKey: `memcell:${id}`, priority });
      await this.#d.episodes.setCellStatus(id, 'queued', now);
    }
    this.#d.onJobsQueued?.();
  }

  /**
   * An answer used these turns: their episodes gain a visit (and their scenes heat), and the
   * policy may synthesise the ones still raw (`recurrence`: "until it is retrieved").
   */
  async onRetrieved(messageIds: readonly string[]): Promise<void> {
    const cells = await this.#d.episodes.markVisited(messageIds, this.#d.clock.now());
    if (cells.length === 0) return;
    const heats = new Map<string, number>();
    for (const c of cells) if (c.sceneId && !heats.has(c.sceneId)) heats.set(c.sceneId, await this.#refreshHeat(c.sceneId));
    // Only closed cells: an open one is still growing and is synthesised when it closes.
    const closed = cells.filter((c) => c.closedBy !== null);
    for (const id of this.#d.policy().onRetrieved(closed)) {
      const cell = closed.find((c) => c.id === id);
      await this.#queue([id], (cell?.sceneId ? heats.get(cell.sceneId) : 0) ?? 0);
    }
    this.#d.onChange?.();
  }
}
