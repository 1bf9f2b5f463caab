/**
 * The recall benchmark's engine side, shared by both runtimes: the browser's benchmark worker
 * (bench/page/bench.worker.ts, OPFS) runs `BenchEngineHost.recallCorpus`, and the Node runner
 * (bench/recall.ts, in-memory) builds its engine with `createBenchEngine` and ingests with
 * `ingestCorpus` — so both runtimes write through the same code: MemoryEngine.appendTurns, one
 * transaction per session, with the session's timestamp.
 *
 * Invariants: each corpus gets a fresh database file named `bench-<corpus>.sqlite` (never the
 * app's `recollect.sqlite`); a leftover file of that name is deleted before opening, and the file
 * is closed and deleted when the corpus is done, whether it succeeded or not. Retrieval latency is
 * measured here, around `MemoryEngine.recall`, so it excludes the worker round trip.
 *
 * Its wire types (BenchCorpusInput …) live in bench/host/benchProtocol.ts.
 */
import type { VectorIndexFactory } from '../../src/core/capture/vectorIndex';
import type { MemoryEngine } from '../../src/core/engine/MemoryEngine';
import { RecollectError } from '../../src/core/base/errors';
import type { EmbedderProvider } from '../../src/core/base/ports';
import type { MessagePortLike } from '../../src/core/protocol';
import type { BenchCorpusInput, BenchCorpusResult, BenchIngestTiming, BenchRecallOptions, BenchWorkerApi } from './benchProtocol';
import type { NewTurn } from '../../src/core/base/types';
import type { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import { createEngine } from '../../src/host/createEngine';

/** A turn with no text is stored as its caption (or a marker): the write path rejects empty turns. */
export function turnContent(text: string, caption: string | undefined): string {
  if (text.trim()) return text;
  return caption ? `[image: ${caption}]` : '[empty turn]';
}

/**
 * The engine the benchmark measures, built like EngineHost builds the app's (same retrieval
 * source over the same connection, speakers from the store, the given embedders), without the
 * episode lifecycle and consolidation, which retrieval does not read.
 */
export function createBenchEngine(
  store: SqliteMemoryStore,
  embedders: EmbedderProvider | undefined,
  vectorIndex?: VectorIndexFactory,
): MemoryEngine {
  return createEngine(store, { only: ['recall'], ...(embedders ? { embedders } : {}), ...(vectorIndex ? { vectorIndex } : {}) });
}

/**
 * Loads the embedding model before the timed ingest (untimed warm-up, as for every benchmark
 * here): ingest throughput measures writing and embedding turns, not the one-off model load
 * (≈2 s in the browser's model worker), which would otherwise land on the first corpus only.
 */
export async function warmUpEmbedder(embedders: EmbedderProvider | undefined): Promise<void> {
  if (embedders) await embedders.embedder(embedders.defaultModelId).embed(['warm up'], 'document');
}

/**
 * LoCoMo is one conversation with many sessions; LongMemEval's haystack sessions (User/Assistant)
 * are each their own chat. Returns turn id → session id.
 */
export async function ingestCorpus(
  engine: MemoryEngine,
  corpus: BenchCorpusInput,
): Promise<{ timing: BenchIngestTiming; sessionOfTurn: Map<string, string> }> {
  const perSessionConversations = corpus.speakers.includes('Assistant');
  const sessionOfTurn = new Map<string, string>();
  let t0 = performance.now();
  for (const [i, session] of corpus.sessions.entries()) {
    const conversationId = perSessionConversations ? session.id : corpus.id;
    if (perSessionConversations || i === 0) await engine.conversations.create({ id: conversationId, title: conversationId });
    const turns: NewTurn[] = session.turns.map((turn) => {
      sessionOfTurn.set(turn.id, session.id);
      return {
        id: turn.id,
        conversationId,
        role: turn.role,
        speaker: turn.speaker,
        content: turnContent(turn.text, turn.caption),
        occurredAt: session.date,
        metadata: turn.caption ? { caption: turn.caption } : {},
      };
    });
    if (turns.length) await engine.conversations.appendTurns(turns);
  }
  const captureMs = performance.now() - t0;
  t0 = performance.now();
  await engine.idle();
  const embedMs = performance.now() - t0;
  return { timing: { turns: sessionOfTurn.size, captureMs, embedMs }, sessionOfTurn };
}

/** The corpus's database file: `bench-` + a file-name-safe corpus id. */
export function benchFileName(corpusId: string): string {
  return `bench-${corpusId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 80)}.sqlite`;
}

export interface BenchEngineHostDeps {
  readonly openStore: (fileName: string) => Promise<SqliteMemoryStore>;
  /** Deletes the database file and its journals; a missing file is not an error. */
  readonly deleteStore: (fileName: string) => Promise<void>;
  /** Builds the embedder provider over a port to the model worker. */
  readonly connectModels?: (port: MessagePortLike) => EmbedderProvider;
  /** The vector index the app would use here (the WASM SIMD kernel where it loads). */
  readonly vectorIndex?: () => Promise<VectorIndexFactory>;
  /** Embedders given directly (Node); a connected port replaces them. */
  readonly embedders?: EmbedderProvider;
}

export class BenchEngineHost implements BenchWorkerApi {
  readonly #deps: BenchEngineHostDeps;
  #embedders: EmbedderProvider | undefined;
  /** Runs per corpus id in this worker: OPFSCoopSyncVFS keeps a handle per path for the worker's
   * lifetime, so a name is never reused here (a second run gets `-2`, and so on). */
  readonly #runs = new Map<string, number>();

  constructor(deps: BenchEngineHostDeps) {
    this.#deps = deps;
    this.#embedders = deps.embedders;
  }

  /** The embedders in use (given, or connected to the model worker); undefined without a model. */
  get embedders(): EmbedderProvider | undefined {
    return this.#embedders;
  }

  async connectModels(port: MessagePortLike): Promise<void> {
    this.#embedders = this.#deps.connectModels?.(port);
  }

  async recallCorpus(
    corpus: BenchCorpusInput,
    options: BenchRecallOptions = {},
    onProgress?: (line: string) => void,
  ): Promise<BenchCorpusResult> {
    const depth = options.depth ?? 100;
    const warmup = options.warmup ?? 3;
    const run = (this.#runs.get(corpus.id) ?? 0) + 1;
    this.#runs.set(corpus.id, run);
    const fileName = benchFileName(run === 1 ? corpus.id : `${corpus.id}-${run}`);
    await this.#deps.deleteStore(fileName);
    const store = await this.#deps.openStore(fileName);
    const engine = createBenchEngine(store, this.#embedders, await this.#deps.vectorIndex?.());
    try {
      await engine.start();
      await warmUpEmbedder(this.#embedders);
      const turnCount = corpus.sessions.reduce((n, s) => n + s.turns.length, 0);
      onProgress?.(`ingesting ${turnCount} turns`);
      const { timing } = await ingestCorpus(engine, corpus);
      const dbBytes = (await store.stats()).databaseBytes;
      const embedderId = this.#embedders ? this.#embedders.embedder(this.#embedders.defaultModelId).id : null;
      const recall = (text: string, now: number) => engine.answers.recall(text, { limit: depth, now });
      // Warm-up (untimed): loads the vector index, JIT-compiles the hot paths.
      for (const q of corpus.questions.slice(0, warmup)) await recall(q.text, q.askedAt);
      const ranked: string[][] = [];
      const latenciesMs: number[] = [];
      for (const [i, q] of corpus.questions.entries()) {
        const start = performance.now();
        const result = await recall(q.text, q.askedAt);
        latenciesMs.push(performance.now() - start);
        ranked.push(result.turns.map((t) => t.message.id));
        if (i % 25 === 0) onProgress?.(`question ${i + 1}/${corpus.questions.length}`);
      }
      return { corpusId: corpus.id, fileName, embedderId, ingest: timing, dbBytes, ranked, latenciesMs };
    } finally {
      engine.stop();
      await store.db.close();
      await this.#deps.deleteStore(fileName);
    }
  }
}

/** Deletes an OPFS file and the journals OPFSCoopSyncVFS keeps next to it (worker or page). */
export async function deleteOpfsFile(fileName: string): Promise<void> {
  // Only benchmark files: the app's recollect.sqlite is never touched from here.
  if (!fileName.startsWith('bench-')) throw new RecollectError('INVALID_INPUT', `Not a benchmark database file: ${fileName}`);
  const root = await navigator.storage.getDirectory();
  for (const suffix of ['', '-journal', '-wal']) {
    try {
      await root.removeEntry(fileName + suffix);
    } catch (err) {
      if (!(err instanceof DOMException && err.name === 'NotFoundError')) throw err;
    }
  }
}
