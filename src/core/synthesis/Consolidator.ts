/**
 * Consolidation: the LLM part of the write path (docs/architecture.md, Write path), run by the durable job queue.
 *
 *   synthesise-memcell → narrative, facts, foresight (then the scene's summary is due)
 *   summarise-scene    → scene title and summary (then the profile is due, debounced)
 *   update-profile     → profile operations from the scene summaries
 *
 * New facts, narratives and summaries are embedded with the active embedder so retrieval can
 * search every level. Endpoint trouble pauses the queue instead of burning attempts: nothing is
 * lost and the turns are never touched; a job that keeps failing marks its cell 'failed', and
 * comes back by itself once the endpoint proves healthy again (synthesisRecovery.ts) or when the
 * person retries it.
 */
import { errorCode, RecollectError, type ErrorCode } from '../base/errors';
import type { Clock, Embedder, Llm } from '../base/ports';
import type { EpisodeStore } from '../episodes/episodes';
import type { EpisodeSynthesis, KnowledgeStore } from './knowledge';
import type { VectorStore } from '../base/store';
import { CancelJob, DEFAULT_JOB_RUNNER_CONFIG, JobRunner, PauseQueue, type Job, type JobStore, type Timer } from '../base/jobs';
import { expireForesight, summariseScene, synthesiseMemCell } from './synthesis';
import { profileSceneIds, updateProfile, type ProfileSideUpdate } from './profileUpdate';
import { SYNTHESISE_MEMCELL } from '../episodes/Lifecycle';
import { SynthesisRecovery, type SynthesisFailures } from './synthesisRecovery';

export const SUMMARISE_SCENE = 'summarise-scene';
export const UPDATE_PROFILE = 'update-profile';

/** Endpoint problems that pause the whole queue (no attempt is spent). */
const PAUSE_CODES: ReadonlySet<ErrorCode> = new Set(['LLM_NOT_CONFIGURED', 'LLM_UNAUTHORIZED', 'LLM_NOT_FOUND', 'LLM_UNAVAILABLE']);
const PAUSE_MS = 60_000;
/**
 * Longest pause a server's Retry-After may impose: a `Retry-After: 3600` once stopped all synthesis
 * for the hour. Past this, the next job asks again (and is told to wait again if it must).
 */
export const MAX_RATE_LIMIT_PAUSE_MS = 2 * 60_000;

export interface ConsolidatorDeps {
  readonly jobs: JobStore;
  readonly episodes: EpisodeStore;
  readonly knowledge: KnowledgeStore;
  readonly vectors: VectorStore;
  /** The configured endpoint, or null when the user has not set one up. */
  readonly llm: () => Llm | null;
  /** Whether synthesis may spend tokens now (false under the `off` policy: claimed jobs are cancelled). */
  readonly allowed?: () => boolean;
  /** The active embedder, or null (then new knowledge is full-text searchable only). */
  readonly embedder: () => Embedder | null;
  readonly clock: Clock;
  readonly timer: Timer;
  /** The user's IANA time zone, for the dates in synthesis prompts and in what the model returns. */
  readonly timeZone?: () => string;
  /** Wait before a profile update so several scene updates share one call (0 in benchmarks). */
  readonly profileDebounceMs?: number;
  readonly onChange?: () => void;
  /**
   * Sync (when on): what another device's model already made of an episode with exactly these
   * turns is written instead of asking the model again; what this device's model made is recorded
   * for the others (core/synthesis/derivedEpisode.ts).
   */
  readonly derived?: {
    episodeFor(memcellId: string): Promise<EpisodeSynthesis | null>;
    synthesised(memcellId: string): void;
    /** The title and summary another device made of a theme with exactly these episodes, or null. */
    themeFor(sceneId: string): Promise<{ readonly title: string; readonly summary: string } | null>;
    summarised(sceneId: string): void;
    /**
     * Other devices' profile updates applied here (in clock order), then: 'covered' when they
     * already read every theme this update would read (`themes`) as it is now (no model is asked),
     * a time to wait until when the themes left were summarised by another device whose update is
     * likely on its way, else 'due' (core/engine/syncProfile.ts).
     */
    profileFor(themes: () => Promise<readonly string[]>): Promise<'covered' | 'due' | { readonly waitUntil: number }>;
    /** What this device's model changed in the profile, recorded for the others (awaited: the next update builds on it). */
    profiled(sides: readonly ProfileSideUpdate[]): Promise<void>;
  };
}

export class Consolidator {
  readonly #d: ConsolidatorDeps;
  readonly runner: JobRunner;
  /** Brings back work that failed while the endpoint misbehaved. */
  readonly recovery: SynthesisRecovery;

  constructor(deps: ConsolidatorDeps) {
    this.#d = deps;
    this.recovery = new SynthesisRecovery({
      jobs: deps.jobs,
      kinds: { episode: SYNTHESISE_MEMCELL, theme: SUMMARISE_SCENE, profile: UPDATE_PROFILE },
      llm: deps.llm,
      allowed: () => !deps.allowed || deps.allowed(),
      queueBusy: () => {
        const status = this.runner.status();
        return status.running || (status.pausedUntil !== null && status.pausedUntil > deps.clock.now());
      },
      revived: (jobs) => this.#revived(jobs),
      maxAttempts: DEFAULT_JOB_RUNNER_CONFIG.maxAttempts,
      clock: deps.clock,
      timer: deps.timer,
    });
    this.runner = new JobRunner({
      store: deps.jobs,
      clock: deps.clock,
      timer: deps.timer,
      handlers: {
        [SYNTHESISE_MEMCELL]: (job) => this.#guard(job, () => this.#synthesise(job)),
        [SUMMARISE_SCENE]: (job) => this.#guard(job, () => this.#summarise(job)),
        [UPDATE_PROFILE]: (job) => this.#guard(job, () => this.#profile(job)),
      },
      onFailed: async (job) => {
        this.recovery.jobFailed(job);
        if (job.kind === SYNTHESISE_MEMCELL && typeof job.payload.memcellId === 'string') {
          await deps.episodes.setCellStatus(job.payload.memcellId, 'failed', deps.clock.now());
        }
        deps.onChange?.();
      },
    });
  }

  async start(): Promise<void> {
    await this.runner.start();
    this.recovery.start();
  }

  /** Marks foresight whose end has passed as expired (the engine runs this at start and on a timer). */
  async expireForesight(): Promise<number> {
    const n = await expireForesight(this.#d.knowledge, this.#d.clock.now());
    if (n > 0) this.#d.onChange?.();
    return n;
  }

  /** Call when the endpoint settings change: paused work resumes at once, failed work gets a check at once. */
  endpointChanged(): void {
    this.recovery.endpointChanged();
    this.runner.kick({ resume: true });
  }

  /** An LLM call succeeded (an answer, a title): work parked by endpoint trouble gets a check soon. */
  endpointAnswered(): void {
    this.recovery.endpointAnswered();
  }

  /** The person's Retry: every failed synthesis job goes back in the queue now; returns how many. */
  retryFailed(): Promise<number> {
    return this.recovery.retryAll();
  }

  /** What failed, and what will come back by itself. */
  failures(): Promise<SynthesisFailures> {
    return this.recovery.failures();
  }

  /** Failed jobs went back to pending: their episodes are queued again and the queue runs. */
  async #revived(jobs: readonly Job[]): Promise<void> {
    const now = this.#d.clock.now();
    for (const job of jobs) {
      if (job.kind === SYNTHESISE_MEMCELL && typeof job.payload.memcellId === 'string') {
        await this.#d.episodes.setCellStatus(job.payload.memcellId, 'queued', now);
      }
    }
    this.#d.onChange?.();
    this.runner.kick({ resume: true });
  }

  #llm(): Llm {
    const llm = this.#d.llm();
    if (!llm) throw new PauseQueue('No LLM endpoint is configured; episodes stay raw (and fully searchable) until one is.', PAUSE_MS);
    return llm;
  }

  /** `run` resolves true when a reply of the model was used (false: nothing was left to do). */
  async #guard(job: Job, run: () => Promise<boolean>): Promise<void> {
    if (this.#d.allowed && !this.#d.allowed()) {
      if (job.kind === SYNTHESISE_MEMCELL && typeof job.payload.memcellId === 'string') {
        await this.#d.episodes.setCellStatus(job.payload.memcellId, 'raw', this.#d.clock.now());
      }
      throw new CancelJob('the consolidation policy is off');
    }
    let answered: boolean;
    try {
      answered = await run();
    } catch (err) {
      const code = errorCode(err);
      if (code && PAUSE_CODES.has(code)) {
        throw new PauseQueue(`The LLM endpoint is not usable (${(err as Error).message}).`, PAUSE_MS);
      }
      if (code === 'LLM_RATE_LIMITED') {
        const wait = Math.min(Number((err as { retryAfterMs?: unknown }).retryAfterMs) || 30_000, MAX_RATE_LIMIT_PAUSE_MS);
        throw new PauseQueue('The LLM endpoint asked us to slow down.', wait);
      }
      throw err;
    }
    this.#d.onChange?.();
    // A validated reply proves the endpoint healthy: work it failed earlier comes back (never fails this job).
    if (answered) await this.recovery.jobSucceeded();
  }

  async #embed(kind: 'fact' | 'memcell', items: { id: string; text: string }[]): Promise<void> {
    const embedder = this.#d.embedder();
    const texts = items.filter((i) => i.text.trim());
    if (!embedder || texts.length === 0) return;
    try {
      const vectors = await embedder.embed(
        texts.map((t) => t.text),
        'document',
      );
      await this.#d.vectors.putVectors(
        kind,
        embedder.id,
        texts.map((t, i) => ({ itemId: t.id, vector: vectors[i]! })),
      );
    } catch {
      /* vectors are an index: full-text search still finds the item; re-embedding fills gaps */
    }
  }

  async #synthesise(job: Job): Promise<boolean> {
    const memcellId = String(job.payload.memcellId ?? '');
    if (!memcellId) throw new RecollectError('INVALID_INPUT', 'A synthesis job without a MemCell id.');
    // Another device's model already did this episode: its record is written, no model is asked.
    const synced = await this.#d.derived?.episodeFor(memcellId);
    if (synced) {
      await this.writeEpisode(memcellId, synced);
      return false; // a synced record proves nothing about this device's endpoint
    }
    const deps = {
      llm: this.#llm(),
      store: this.#d.knowledge,
      clock: this.#d.clock,
      ...(this.#d.timeZone ? { timeZone: this.#d.timeZone() } : {}),
    };
    const result = await synthesiseMemCell(deps, memcellId, { jobId: job.id });
    if (!result) return false; // the cell was deleted meanwhile
    this.#d.derived?.synthesised(memcellId);
    await this.#afterEpisode(memcellId, result.factIds.length > 0);
    return true;
  }

  /**
   * Another device's synthesis of an episode (sync) written here as this device's own would be:
   * saved, its facts and narrative embedded, its theme's summary due. False when the episode is gone.
   */
  async writeEpisode(memcellId: string, write: EpisodeSynthesis): Promise<boolean> {
    if (!(await this.#d.episodes.getCell(memcellId))) return false;
    const { factIds } = await this.#d.knowledge.saveSynthesis({ memcellId, ...write, now: this.#d.clock.now() });
    await this.#afterEpisode(memcellId, factIds.length > 0);
    return true;
  }

  /** After an episode's synthesis was saved: vectors for what it wrote, then its theme's summary. */
  async #afterEpisode(memcellId: string, newFacts: boolean): Promise<void> {
    const embedder = this.#d.embedder();
    if (embedder && newFacts) {
      // Every fact still without a vector from the active model (this cell's, and any a failed run left).
      const pending = await this.#d.vectors.pendingEmbeddings('fact', embedder.id, 500);
      await this.#embed(
        'fact',
        pending.map((p) => ({ id: p.itemId, text: p.text })),
      );
    }
    const cell = await this.#d.episodes.getCell(memcellId);
    if (cell?.narrative) await this.#embed('memcell', [{ id: cell.id, text: `${cell.title ?? ''}. ${cell.narrative}` }]);
    if (cell?.sceneId) {
      await this.#d.jobs.enqueue(
        SUMMARISE_SCENE,
        { sceneId: cell.sceneId, newMemberIds: [memcellId] },
        { dedupeKey: `scene:${cell.sceneId}` },
      );
      this.runner.kick();
    }
  }

  async #summarise(job: Job): Promise<boolean> {
    const sceneId = String(job.payload.sceneId ?? '');
    const newMemberIds = Array.isArray(job.payload.newMemberIds) ? job.payload.newMemberIds.map(String) : undefined;
    // Another device already summarised a theme of exactly these episodes: its summary is written.
    const synced = await this.#d.derived?.themeFor(sceneId);
    if (synced) {
      if (!(await this.#writeTheme(sceneId, synced))) return false;
      await this.#profileDue();
      return false; // no model was asked
    }
    const deps = { llm: this.#llm(), store: this.#d.knowledge, clock: this.#d.clock };
    const result = await summariseScene(deps, sceneId, { jobId: job.id, ...(newMemberIds ? { newMemberIds } : {}) });
    // No vector for the summary: nothing searched theme summaries by meaning (themes are reached
    // through their episodes' vectors and centroids), so the vectors were written and never read.
    if (!result) return false;
    this.#d.derived?.summarised(sceneId);
    await this.#profileDue();
    return true;
  }

  /**
   * Another device's summary of a theme was written here (sync) or is to be: a forgotten summary
   * stays forgotten and a name the person gave stays; the profile update becomes due.
   */
  async themeWritten(sceneId: string, theme: { readonly title: string; readonly summary: string }): Promise<void> {
    if (await this.#writeTheme(sceneId, theme)) await this.#profileDue();
  }

  async #writeTheme(sceneId: string, theme: { readonly title: string; readonly summary: string }): Promise<boolean> {
    const scene = await this.#d.knowledge.loadScene(sceneId);
    if (!scene || scene.summaryForgotten) return false;
    const title = scene.editedByUser && scene.title ? scene.title : theme.title;
    await this.#d.knowledge.saveSceneSummary(sceneId, title, theme.summary, this.#d.clock.now());
    return true;
  }

  /** Sync brought another device's profile update (or deleted a turn one was made from): the update job applies it. */
  profileDue(): Promise<void> {
    return this.#profileDue();
  }

  /** The profile update after a theme changed, debounced so several themes share one call. */
  async #profileDue(): Promise<void> {
    const debounce = this.#d.profileDebounceMs ?? 30_000;
    await this.#d.jobs.enqueue(UPDATE_PROFILE, {}, { dedupeKey: 'profile', runAfter: this.#d.clock.now() + debounce });
    this.runner.kick();
    // The runner only wakes for a future run_after after a start or a back-off, so a debounced
    // profile update waited for the next unrelated kick (a closed episode): wake when it is due.
    this.#d.timer(() => this.runner.kick(), debounce + 50);
  }

  async #profile(job: Job): Promise<boolean> {
    // Other devices' updates first (sync): when they already read every theme this one would, no model is asked.
    const derived = this.#d.derived;
    const held = derived ? await derived.profileFor(() => profileSceneIds(this.#d.knowledge)) : 'due';
    if (held === 'covered') return false;
    if (held !== 'due') {
      // Their record usually comes first (its arrival makes the update due again); if not, this device does it then.
      this.#d.timer(() => void this.#profileDue().catch(() => undefined), Math.max(0, held.waitUntil - this.#d.clock.now()));
      return false;
    }
    const deps = { llm: this.#llm(), store: this.#d.knowledge, clock: this.#d.clock };
    const result = await updateProfile(deps, { jobId: job.id });
    if (result.calls > 0) await derived?.profiled(result.sides);
    return result.calls > 0;
  }
}
