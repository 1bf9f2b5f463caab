/**
 * The engine's upkeep while it runs: at start and every IDLE_CHECK_MS, idle episodes close (and
 * get their theme and follow the policy) and past foresight expires; a policy change is applied to
 * the work already queued or left raw. Started by MemoryEngine.start and again after an import
 * replaced the database, so a restored file is organised like one the engine wrote itself.
 */
import type { Clock } from '../base/ports';
import type { ErrorInfo } from '../base/errors';
import type { JobStore, Timer } from '../base/jobs';
import { PeriodicTask } from '../base/periodicTask';
import type { EpisodeStore } from '../episodes/episodes';
import { IDLE_CHECK_MS } from '../episodes/idleClose';
import type { PolicyName } from '../episodes/consolidationPolicy';
import { applyPolicyChange } from '../synthesis/policyChange';
import type { EpisodeStage, SynthesisStage } from './writePath';

export interface EngineUpkeepDeps {
  /** NO_EPISODES / NO_SYNTHESIS when the stage is off (writePath.ts). */
  readonly lifecycle: EpisodeStage;
  readonly consolidator: SynthesisStage;
  readonly jobs: JobStore | null;
  readonly episodes: EpisodeStore | null;
  readonly clock: Clock;
  /** The upkeep's own timer (a fake one in tests; default the platform's, not keeping Node alive). */
  readonly timer?: Timer;
  readonly everyMs?: number;
  /**
   * Splits themes that hold both sides of a project-only wall (ExplorerService.splitMixedScenes):
   * a memory from before the split existed, or a move applied while the engine was closed.
   */
  readonly splitMixedScenes?: () => Promise<unknown>;
}

/** platformTimer, except that in Node a pending upkeep tick does not keep a finished benchmark running. */
const unrefTimer: Timer = (fn, ms) => {
  const g = globalThis as unknown as { setTimeout(f: () => void, ms: number): { unref?(): void }; clearTimeout(h: unknown): void };
  const h = g.setTimeout(fn, ms);
  h.unref?.();
  return { cancel: () => g.clearTimeout(h) };
};

export class EngineUpkeep {
  readonly #d: EngineUpkeepDeps;
  readonly #task: PeriodicTask;

  constructor(deps: EngineUpkeepDeps) {
    this.#d = deps;
    this.#task = new PeriodicTask(() => this.#pass(), deps.timer ?? unrefTimer, deps.everyMs ?? IDLE_CHECK_MS);
  }

  /**
   * Starts a pass now and then on the timer (again after stop(), e.g. after an import). Not
   * awaited by the engine's start: the first pass waits for segmentation, which may be long.
   */
  start(): void {
    void this.#task.start();
  }

  /** Resolves when no pass is running (tests, benchmark ingest). */
  idle(): Promise<void> {
    return this.#task.idle();
  }

  stop(): void {
    this.#task.stop();
  }

  /** Why the last pass failed, or null when it succeeded (shown in the overview). */
  get lastError(): ErrorInfo | null {
    return this.#task.lastError;
  }

  async #pass(): Promise<void> {
    await this.#d.lifecycle.closeIdle();
    await this.#d.consolidator.expireForesight();
    await this.#d.splitMixedScenes?.();
  }

  /** Applies a new consolidation policy to queued and raw work (see synthesis/policyChange.ts). */
  async policyChanged(name: PolicyName): Promise<void> {
    const { jobs, episodes, lifecycle, consolidator } = this.#d;
    // The episode stage runs exactly when there are episodes and a job queue (writePath.ts).
    if (!jobs || !episodes) return;
    await applyPolicyChange(
      {
        jobs,
        episodes,
        reevaluate: () => lifecycle.reevaluate(),
        kick: () => consolidator.runner.kick(),
      },
      name,
      this.#d.clock.now(),
    );
  }
}
