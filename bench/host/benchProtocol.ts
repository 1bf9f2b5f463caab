/**
 * The benchmark worker's wire types (bench.html's worker, bench/page/bench.worker.ts): what the
 * benchmark page and the Node runners send to BenchEngineHost / ScaleBenchHost and get back.
 * They cross a worker boundary like the product's (src/core/protocol.ts, whose Result transport
 * they use), but are not the product's, so they live here; test/core/protocolTypes.test.ts checks
 * they survive structured cloning.
 */
import type { MessagePortLike } from '../../src/core/protocol';

export interface BenchTurnInput {
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly speaker: string;
  readonly text: string;
  /** Caption of a shared image, stored in message metadata (indexed with the turn). */
  readonly caption?: string;
}

export interface BenchSessionInput {
  readonly id: string;
  /** ms since epoch: every turn of the session is stored with this time. */
  readonly date: number;
  readonly turns: readonly BenchTurnInput[];
}

/** One benchmark corpus (bench/datasets.ts's BenchCorpus fits this shape). */
export interface BenchCorpusInput {
  readonly id: string;
  readonly speakers: readonly string[];
  readonly sessions: readonly BenchSessionInput[];
  readonly questions: readonly { readonly id: string; readonly text: string; readonly askedAt: number }[];
}

export interface BenchRecallOptions {
  /** Ranking depth per question (default 100). */
  readonly depth?: number;
  /** Untimed warm-up questions before the timed pass (default 3). */
  readonly warmup?: number;
}

export interface BenchIngestTiming {
  readonly turns: number;
  /** appendTurns for every session (the write path: messages, FTS and turn-index triggers). */
  readonly captureMs: number;
  /** After capture, until background embedding has caught up (engine.idle()). */
  readonly embedMs: number;
}

export interface BenchCorpusResult {
  readonly corpusId: string;
  readonly fileName: string;
  readonly embedderId: string | null;
  readonly ingest: BenchIngestTiming;
  readonly dbBytes: number;
  /** Per question, in input order: turn ids best first, and retrieval time inside the engine. */
  readonly ranked: readonly (readonly string[])[];
  readonly latenciesMs: readonly number[];
}

/** The benchmark worker's API (Comlink). */
export interface BenchWorkerApi {
  connectModels(port: MessagePortLike): Promise<void>;
  recallCorpus(corpus: BenchCorpusInput, options?: BenchRecallOptions, onProgress?: (line: string) => void): Promise<BenchCorpusResult>;
}

/** The scale benchmark's side of the benchmark worker (bench/host/ScaleBenchHost.ts). */
export interface ScaleQuestionInput {
  readonly id: string;
  readonly text: string;
  readonly askedAt: number;
}

export interface ScaleSystemResult {
  /** Per question, in input order: turn ids best first. */
  readonly ranked: readonly (readonly string[])[];
  readonly latenciesMs: readonly number[];
}

export interface ScaleMeasurement {
  readonly turns: number;
  readonly dbBytes: number;
  /** SQLite's WebAssembly memory (wa-sqlite's heap: page cache, FTS buffers); 0 when not visible. */
  readonly wasmBytes: number;
  readonly ours: ScaleSystemResult;
  readonly bm25: ScaleSystemResult;
  /** The answer's whole memory read (MemoryEngine.answerContext), timed in turn with the two. */
  readonly answer: ScaleAnswerResult;
}

/** Items one answer read got back (after gatherContext's limits). */
export interface ScaleAnswerItems {
  readonly turns: number;
  readonly facts: number;
  readonly episodes: number;
  readonly profile: number;
  readonly plans: number;
}

export interface ScaleAnswerResult {
  readonly latenciesMs: readonly number[];
  /** Per question, in input order. */
  readonly items: readonly ScaleAnswerItems[];
}

/** What the database's synthesised layer holds after `scaleAddLayer` (bench/scaleLayer.ts), and the time this call took. */
export interface ScaleLayerResult {
  /** Turns placed in episodes. */
  readonly turns: number;
  /** Synthesised episodes. */
  readonly episodes: number;
  readonly facts: number;
  readonly profile: number;
  readonly plans: number;
  readonly scenes: number;
  /** Episodes, raw and synthesised. */
  readonly cells: number;
  readonly ms: number;
}

export interface ScaleMeasureOptions {
  /** Turns ranked per question (default 10, what the app's recall asks for). */
  readonly depth?: number;
  /** Untimed warm-up questions per system before the timed passes (default 3). */
  readonly warmup?: number;
  /**
   * Timed passes over all the questions (default 3). Every pass's time counts in the percentiles (no
   * best-of): the first pass keeps the cold costs a user's first searches pay, the others measure the
   * steady state, and a p95 over 150 single samples is too few to be stable.
   */
  readonly reps?: number;
}

/** Timed passes of the scale benchmark when none is asked for (ScaleMeasureOptions.reps). */
export const DEFAULT_SCALE_REPS = 3;

export interface ColdOpenResult {
  readonly turns: number;
  /** Turn ids of the first search, best first (proves it searched the grown database). */
  readonly ranked: readonly string[];
  /** Inside the worker: opening the file, starting the engine and the first recall. */
  readonly openMs: number;
  readonly firstRecallMs: number;
  /**
   * When each phase ended, as epoch ms (performance.timeOrigin + now(), comparable across the page
   * and its workers): the worker was asked (its SQLite and the model port ready), the file was open,
   * the engine had started, the speaker list was read, the first result came, the vectors (model and index) were ready, and a
   * second search — with vectors — came.
   */
  readonly phases?: {
    readonly askedAt: number;
    readonly fileOpenAt: number;
    readonly engineStartedAt: number;
    /** The speaker list read (the first recall's first read, which scans every turn). */
    readonly speakersAt?: number;
    readonly firstResultAt: number;
    readonly vectorsReadyAt: number;
    readonly secondResultAt: number;
  };
  /** Whether the first result used vectors (false: keyword recall while they loaded). */
  readonly firstUsedVectors?: boolean;
  readonly secondUsedVectors?: boolean;
}

export interface ScaleWorkerApi {
  scaleOpen(fileName: string, options?: { reuse?: boolean }): Promise<{ embedderId: string | null }>;
  scaleAppend(corpus: BenchCorpusInput): Promise<BenchIngestTiming>;
  scaleMeasure(questions: readonly ScaleQuestionInput[], options?: ScaleMeasureOptions): Promise<ScaleMeasurement>;
  scaleAddLayer(): Promise<ScaleLayerResult>;
  scaleClose(): Promise<void>;
  scaleDelete(fileName: string): Promise<void>;
  coldOpen(fileName: string, question: ScaleQuestionInput): Promise<ColdOpenResult>;
}
