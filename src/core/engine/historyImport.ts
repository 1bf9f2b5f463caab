/**
 * Imports chat history from another service through the normal write path.
 *
 * A `HistoryReader` (src/import) streams the file and yields conversations; this module stores
 * them with `appendTurns` in batches (so turns are indexed, embedded, segmented and clustered like
 * any other), reports progress, stops on cancel, and ends with a report. A scan is the same pass
 * without writing: it counts what the file holds and estimates synthesis cost per policy.
 *
 * Invariants: ids come from the source, so a second import of the same file adds nothing; a bad
 * entry or turn is skipped and counted, never fatal; a cancelled run keeps what it committed.
 */
import type { AppendResult, NewTurn } from '../base/types';
import type { NewConversation } from '../base/store';
import type { Clock } from '../base/ports';
import type {
  HistoryFile,
  HistoryFormat,
  HistoryImportReport,
  HistoryItem,
  HistoryProgress,
  HistoryReader,
  HistoryRequest,
  HistoryScan,
  ImportedConversation,
  ImportedProject,
  ScannedProject,
  SkipCount,
  TranscriptLayout,
} from '../base/historyImport';
import type { ProjectMemoryMode } from '../base/types';
import { EARLIEST_YEAR, isSaneTime, LATEST_YEAR, validateTurnContent } from '../base/limits';
import { RecollectError } from '../base/errors';
import type { PolicyName } from '../episodes/consolidationPolicy';
import { EpisodeTally, estimateSynthesis } from '../synthesis/synthesisEstimate';
import { formatCount } from '../base/numbers';

/** What the importer writes through (the engine: its appendTurns kicks embedding and the lifecycle). */
export interface HistorySink {
  /** Creates the batch's conversations (existing ones stay as they are) and stores its turns, in one transaction: one commit a batch. */
  appendTurns(turns: readonly NewTurn[], create: readonly NewConversation[]): Promise<AppendResult[]>;
  setConsolidationPolicy(name: PolicyName): Promise<PolicyName>;
  /** Ids of the turns stored in the conversation, or null when it does not exist yet. */
  storedTurnIds(conversationId: string): Promise<ReadonlySet<string> | null>;
  /** Removes a conversation this import created when none of its turns could be stored (no empty shell in the sidebar). */
  discardConversation(conversationId: string): Promise<void>;
  /** The project an earlier import made from this source project (absent: projects are not stored, chats go in none). */
  projectBySource?(sourceId: string): Promise<{ readonly name: string } | null>;
  /** That project, or a new one with `memory` (Projects.fromSource). */
  importProject?(
    source: ImportedProject,
    memory: ProjectMemoryMode,
  ): Promise<{ readonly project: { readonly id: string }; readonly created: boolean; readonly instructionsLeftOut: boolean }>;
  /** Gives a project this run made from a chat's reference the name and instructions the export's list has for it. */
  describeProject?(projectId: string, source: ImportedProject): Promise<{ readonly instructionsLeftOut: boolean }>;
}

export interface HistoryImportsDeps {
  readonly reader: HistoryReader;
  readonly sink: HistorySink;
  readonly clock: Clock;
  /**
   * Resolves when no recall or search is in flight (engine: ForegroundReads.whenIdle). Each write
   * transaction waits for it, so a recall's statements are not queued behind the next batch on
   * the one connection while its question is being embedded.
   */
  readonly readsFirst?: () => Promise<void>;
}

/**
 * What a scan read is kept (up to this many characters of turn text) so the import that follows
 * does not read and parse the file a second time; a bigger file is read again.
 */
const SCAN_KEEP_CHARS = 100_000_000;

/** A file is the one scanned when its name, size and modification time match (a File crosses to the worker as a copy). */
function fileKey(file: HistoryFile): string | null {
  return file.lastModified === undefined ? null : `${file.name ?? ''}\u0000${file.size}\u0000${file.lastModified}`;
}

/**
 * A write transaction's size: at most this many turns and (at least one turn) this many characters
 * of turn text. The database has one connection, so a search or a chat message sent during an
 * import waits for the transaction that holds it; its time grows with the text it indexes (≈1.5 MB
 * of text a second on OPFS), so ≈150 KB keeps that wait near 100 ms. Smaller transactions cost
 * little: the commit is cheap next to the full-text rows.
 */
const BATCH_TURNS = 1_000;
const BATCH_CHARS = 150_000;
const PROGRESS_EVERY_MS = 200;
/** Progress on bytes alone (no conversation finished meanwhile: one huge entry being read) this often. */
const BYTES_PROGRESS_MS = 1_000;
/**
 * In the app's worker, file chunks, parsing and SQLite calls all settle as microtasks, so the
 * import never gave the worker's message queue a turn and "Stop import" (a message) waited for the
 * end. A macrotask break this often lets it in.
 */
const YIELD_EVERY_MS = 50;

/** `turns` in slices within the transaction budget (a slice holds at least one turn). */
function slices<T extends { readonly content: string }>(turns: readonly T[]): T[][] {
  const out: T[][] = [];
  let at = 0;
  while (at < turns.length) {
    let end = at;
    let chars = 0;
    while (end < turns.length && end - at < BATCH_TURNS && (end === at || chars + turns[end]!.content.length <= BATCH_CHARS))
      chars += turns[end++]!.content.length;
    out.push(turns.slice(at, end));
    at = end;
  }
  return out;
}

function yieldToEvents(): Promise<void> {
  const g = globalThis as unknown as { setTimeout(f: () => void, ms: number): unknown };
  return new Promise((resolve) => g.setTimeout(resolve, 0));
}

/**
 * A piece of a conversation the reader yields in several items: `first` when it is the first piece
 * that holds turns, `last` for the reader's final piece.
 */
interface Part {
  readonly first: boolean;
  readonly last: boolean;
}

class Skips {
  readonly #counts = new Map<string, number>();
  total = 0;
  add(reason: string, n = 1): void {
    this.#counts.set(reason, (this.#counts.get(reason) ?? 0) + n);
    this.total += n;
  }
  list(): SkipCount[] {
    return [...this.#counts].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count);
  }
}

const n = (x: number) => formatCount(x);

export function importSummary(r: Omit<HistoryImportReport, 'summary'>): string {
  const skipped = r.skipped.reduce((s, x) => s + x.count, 0);
  const parts = [
    `${n(r.conversations)} conversation${r.conversations === 1 ? '' : 's'}, ${n(r.turns)} turn${r.turns === 1 ? '' : 's'} imported`,
  ];
  if (skipped > 0) parts.push(`${n(skipped)} skipped: ${r.skipped.map((s) => `${n(s.count)} ${s.reason}`).join(', ')}`);
  if (r.projectsCreated > 0) parts.push(`${n(r.projectsCreated)} project${r.projectsCreated === 1 ? '' : 's'} created`);
  if (r.alreadyPresent > 0) parts.push(`${n(r.alreadyPresent)} turns were already in memory`);
  return `${r.cancelled ? 'Cancelled. ' : ''}${parts.join('; ')}.`;
}

/** The scan's items again, with progress through the file as they are used. */
async function* replay(items: readonly HistoryItem[], size: number, onBytes: (b: number) => void): AsyncGenerator<HistoryItem> {
  for (let i = 0; i < items.length; i++) {
    onBytes(Math.round((size * (i + 1)) / items.length));
    yield items[i]!;
  }
}

export class HistoryImports {
  readonly #d: HistoryImportsDeps;
  readonly #running = new Set<string>();
  readonly #cancelled = new Set<string>();
  /** The items the last scan read, for the import of the same file. */
  #scanned: { key: string; format: HistoryFormat | null; items: HistoryItem[] } | null = null;

  constructor(deps: HistoryImportsDeps) {
    this.#d = deps;
  }

  /** Stops the run `importId` after its current batch (what was committed stays). */
  cancel(importId: string): void {
    if (this.#running.has(importId)) this.#cancelled.add(importId);
  }

  /** Reads the whole file without writing: counts and the synthesis estimate per policy. */
  async scan(file: HistoryFile, request: HistoryRequest, onProgress?: (p: HistoryProgress) => void): Promise<HistoryScan> {
    const tally = new EpisodeTally();
    let conversations = 0;
    const projects = new Map<string, { name: string; chats: number; hasInstructions: boolean; listed: boolean }>();
    const noteProject = (p: ImportedProject, listed: boolean) => {
      const known = projects.get(p.sourceId);
      const entry = known ?? { name: p.name, chats: 0, hasInstructions: false, listed };
      // The export's own list names a project better than a chat's reference to it.
      if (listed) Object.assign(entry, { name: p.name, hasInstructions: !!p.instructions, listed });
      projects.set(p.sourceId, entry);
      return entry;
    };
    this.#scanned = null;
    const key = fileKey(file);
    let kept: HistoryItem[] | null = key ? [] : null;
    let keptChars = 0;
    const result = await this.#pass(
      file,
      request,
      'scanning',
      onProgress,
      async (c, turns, _skips, _step, part) => {
        if (!part || part.first) {
          conversations++;
          if (c.project) noteProject(c.project, false).chats++;
        }
        tally.addConversation(turns);
        return turns.length;
      },
      undefined,
      (item) => {
        if (item.kind === 'project') noteProject(item.project, true);
        if (!kept) return;
        if (item.kind === 'conversation') for (const t of item.conversation.turns) keptChars += t.content.length;
        if (keptChars > SCAN_KEEP_CHARS) kept = null;
        else kept.push(item);
      },
    );
    if (key && kept && !result.cancelled) this.#scanned = { key, format: result.format, items: kept };
    const scanned: ScannedProject[] = [];
    for (const [sourceId, p] of projects) {
      const existing = (await this.#d.sink.projectBySource?.(sourceId)) ?? null;
      scanned.push({
        sourceId,
        name: p.name,
        chats: p.chats,
        hasInstructions: p.hasInstructions,
        ...(existing ? { existingName: existing.name } : {}),
      });
    }
    return {
      format: result.format,
      conversations,
      turns: tally.turns,
      skipped: result.skips.list(),
      episodes: tally.cells,
      estimates: estimateSynthesis(tally),
      cancelled: result.cancelled,
      ...(result.layout ? { transcript: result.layout } : {}),
      projects: scanned,
    };
  }

  /** Imports the file under `policy` (set before the first turn is written, so synthesis follows it). */
  async import(
    file: HistoryFile,
    request: HistoryRequest & { readonly policy?: PolicyName },
    onProgress?: (p: HistoryProgress) => void,
  ): Promise<HistoryImportReport> {
    const started = this.#d.clock.now();
    if (request.policy) await this.#d.sink.setConsolidationPolicy(request.policy);
    let conversations = 0;
    let turnsAdded = 0;
    let alreadyPresent = 0;
    let projectsCreated = 0;
    const memory: ProjectMemoryMode = request.projectMemory === 'project-only' ? 'project-only' : 'shared';
    /** Source project id → our project id, for this run. */
    const projectIds = new Map<string, string>();
    /** Projects this run made from a chat's reference alone (named from the id until the export's list names them). */
    const unnamed = new Set<string>();
    const tooLong = 'project instructions too long to keep (the project was made without them)';
    const projectFor = async (source: ImportedProject | undefined, skips: Skips, listed = false): Promise<void> => {
      if (!source || !this.#d.sink.importProject) return;
      const known = projectIds.get(source.sourceId);
      if (known !== undefined) {
        // The list came after the chats that named the project (a zip's members come in any order).
        if (listed && unnamed.delete(source.sourceId) && (await this.#d.sink.describeProject?.(known, source))?.instructionsLeftOut)
          skips.add(tooLong);
        return;
      }
      const r = await this.#d.sink.importProject(source, memory);
      projectIds.set(source.sourceId, r.project.id);
      if (r.created) projectsCreated++;
      if (r.created && !listed) unnamed.add(source.sourceId);
      if (r.instructionsLeftOut) skips.add(tooLong);
    };
    // `known`: a slice of a long conversation after its first, whose stored turns were looked up once.
    let batch: { conversation: ImportedConversation; turns: NewTurn[]; formerIds: (string | undefined)[]; known?: ReadonlySet<string> }[] =
      [];
    let batchTurns = 0;
    let batchChars = 0;
    const counted = new Set<string>();
    const flush = async (skips: Skips) => {
      if (batch.length === 0) return;
      const groups = batch;
      batch = [];
      batchTurns = 0;
      batchChars = 0;
      // A conversation already in memory sends only turns it does not hold, under either id scheme.
      const isNew: boolean[] = [];
      for (const g of groups) {
        const stored = g.known ?? (await this.#d.sink.storedTurnIds(g.conversation.id));
        isNew.push(stored === null);
        if (!stored) continue;
        const before = g.turns.length;
        g.turns = g.turns.filter((t, i) => !stored.has(t.id) && !(g.formerIds[i] && stored.has(g.formerIds[i]!)));
        alreadyPresent += before - g.turns.length;
      }
      let results: AppendResult[][];
      const create = (g: (typeof groups)[number]): NewConversation => {
        const projectId = g.conversation.project ? projectIds.get(g.conversation.project.sourceId) : undefined;
        return {
          id: g.conversation.id,
          title: g.conversation.title,
          createdAt: g.conversation.createdAt,
          ...(projectId ? { projectId } : {}),
        };
      };
      await this.#d.readsFirst?.();
      try {
        const flat = await this.#d.sink.appendTurns(
          groups.flatMap((g) => g.turns),
          groups.map(create),
        );
        let i = 0;
        results = groups.map((g) => flat.slice(i, (i += g.turns.length)));
      } catch (err) {
        // A full disk fails every conversation alike: stop and say so rather than skip them all.
        if (err instanceof RecollectError && err.code === 'STORAGE_FULL') throw err;
        // One conversation spoiled the transaction: store the others one by one and skip it.
        results = [];
        for (const [k, g] of groups.entries()) {
          try {
            results.push(await this.#d.sink.appendTurns(g.turns, [create(g)]));
          } catch (err) {
            if (err instanceof RecollectError && err.code === 'STORAGE_FULL') throw err;
            skips.add(`conversation${err instanceof RecollectError ? ` refused (${err.message})` : 's that failed to store'}`);
            if (isNew[k]) await this.#d.sink.discardConversation(g.conversation.id);
            results.push([]);
          }
        }
      }
      for (const [k, r] of results.entries()) {
        const created = r.filter((x) => x.created).length;
        const id = groups[k]!.conversation.id;
        if (created > 0 && !counted.has(id)) {
          counted.add(id);
          conversations++;
        }
        turnsAdded += created;
        alreadyPresent += r.length - created;
      }
      // A search or a chat message sent meanwhile is a worker message: let it in (and onto the
      // connection) before the next transaction is queued.
      await yieldToEvents();
    };
    // The turns already stored of the conversation that comes in pieces, looked up at its first piece.
    let splitStored: ReadonlySet<string> | null = null;
    const result = await this.#pass(
      file,
      request,
      'importing',
      onProgress,
      async (conversation, turns, skips, step, part) => {
        await projectFor(conversation.project, skips);
        const chars = turns.reduce((sum, t) => sum + t.content.length, 0);
        if (part || turns.length > BATCH_TURNS || chars > BATCH_CHARS) {
          // A long conversation (a 200 MB chat) goes in slices: a transaction and a progress report
          // each, instead of one transaction holding the connection for minutes with nothing shown.
          await flush(skips);
          const first = !part || part.first;
          const stored = first ? await this.#d.sink.storedTurnIds(conversation.id) : splitStored;
          if (part) splitStored = stored ?? new Set<string>();
          for (const [k, slice] of slices(turns).entries()) {
            batch.push({
              conversation,
              formerIds: slice.map((t) => t.formerId),
              ...(k > 0 || !first ? { known: stored ?? new Set<string>() } : {}),
              turns: slice.map((t) => ({
                id: t.id,
                conversationId: conversation.id,
                role: t.role,
                content: t.content,
                occurredAt: t.occurredAt,
                ...(t.speaker ? { speaker: t.speaker } : {}),
              })),
            });
            await flush(skips);
            if (!(await step(slice.length, true))) break;
          }
          return 0;
        }
        batch.push({
          conversation,
          formerIds: turns.map((t) => t.formerId),
          turns: turns.map((t) => ({
            id: t.id,
            conversationId: conversation.id,
            role: t.role,
            content: t.content,
            occurredAt: t.occurredAt,
            ...(t.speaker ? { speaker: t.speaker } : {}),
          })),
        });
        batchTurns += turns.length;
        batchChars += chars;
        if (batchTurns >= BATCH_TURNS || batchChars >= BATCH_CHARS) await flush(skips);
        return turns.length;
      },
      flush,
      undefined,
      (project, skips) => projectFor(project, skips, true),
    );
    const report = {
      format: result.format,
      conversations,
      turns: turnsAdded,
      alreadyPresent,
      projectsCreated,
      skipped: result.skips.list(),
      cancelled: result.cancelled,
      seconds: (this.#d.clock.now() - started) / 1000,
    };
    return { ...report, summary: importSummary(report) };
  }

  /**
   * One streaming pass: validates each conversation's turns, hands the valid ones to `use`, counts
   * skips, reports progress and honours cancel. `end` runs before the final progress report.
   */
  async #pass(
    file: HistoryFile,
    request: HistoryRequest,
    phase: HistoryProgress['phase'],
    onProgress: ((p: HistoryProgress) => void) | undefined,
    /** Returns the turns it took that it did not count with `step` (which reports progress, and says false once cancelled). */
    use: (
      c: ImportedConversation,
      turns: ImportedConversation['turns'],
      skips: Skips,
      step: (turns: number, report?: boolean) => Promise<boolean>,
      part?: Part,
    ) => Promise<number>,
    end?: (skips: Skips) => Promise<void>,
    seen?: (item: HistoryItem) => void,
    /** A project the export lists (chats name theirs in `use`). */
    project?: (p: ImportedProject, skips: Skips) => Promise<void>,
  ): Promise<{ format: HistoryFormat | null; skips: Skips; cancelled: boolean; layout: TranscriptLayout | null }> {
    if (this.#running.has(request.importId)) throw new RecollectError('INVALID_INPUT', 'This import is already running.');
    this.#running.add(request.importId);
    const skips = new Skips();
    let format: HistoryFormat | null = request.format === 'auto' ? null : request.format;
    let bytesRead = 0;
    let layout: TranscriptLayout | null = null;
    let conversations = 0;
    let turns = 0;
    let lastReport = 0;
    /** Valid turns so far of the conversation that comes in pieces. */
    let splitTurns = 0;
    let lastYield = this.#d.clock.now();
    const passStarted = lastYield;
    const cancelled = () => this.#cancelled.has(request.importId);
    const report = (force = false) => {
      const now = this.#d.clock.now();
      if (!onProgress || (!force && now - lastReport < PROGRESS_EVERY_MS)) return;
      lastReport = now;
      onProgress({ phase, conversations, turns, skipped: skips.total, bytesRead, bytesTotal: file.size });
    };
    try {
      const key = phase === 'importing' ? fileKey(file) : null;
      const cache = this.#scanned;
      const scanned = key && cache?.key === key && (request.format === 'auto' || request.format === cache.format) ? cache.items : null;
      this.#scanned = null;
      const items = scanned
        ? replay(scanned, file.size, (b) => (bytesRead = b))
        : this.#d.reader(file, {
            format: request.format,
            now: this.#d.clock.now(),
            cancelled,
            // Progress through the bytes too: one huge conversation is read for minutes before it is counted.
            onBytes: (b) => {
              bytesRead = b;
              const now = this.#d.clock.now();
              if (now - lastReport >= BYTES_PROGRESS_MS && now - passStarted >= BYTES_PROGRESS_MS) report();
            },
          });
      // `always`: a slice of one long conversation reports each time (its commit is the progress a person waits for).
      const step = async (k: number, always = false) => {
        turns += k;
        report(always);
        if (this.#d.clock.now() - lastYield >= YIELD_EVERY_MS) {
          await yieldToEvents();
          lastYield = this.#d.clock.now();
        }
        return !cancelled();
      };
      for await (const item of items) {
        seen?.(item);
        if (item.kind === 'format') {
          format = item.format;
          continue;
        }
        if (item.kind === 'layout') {
          layout = item.layout;
          continue;
        }
        if (item.kind === 'skipped') {
          skips.add(item.reason);
          continue;
        }
        if (item.kind === 'project') {
          await project?.(item.project, skips);
          continue;
        }
        const valid = item.conversation.turns.filter((t) => {
          if (!isSaneTime(t.occurredAt)) {
            // A misread or damaged date: this turn is left out, the rest of the file goes on.
            skips.add(`turns with an impossible date (not between ${EARLIEST_YEAR} and ${LATEST_YEAR - 1})`);
            return false;
          }
          try {
            validateTurnContent(t.content);
            return true;
          } catch {
            skips.add(t.content.trim() ? 'turns that were too long or not text' : 'empty turns');
            return false;
          }
        });
        if (item.part?.first) splitTurns = 0;
        if (valid.length === 0) {
          // A conversation in pieces is empty only when none of its pieces held a turn.
          if (!item.part || (item.part.last && splitTurns === 0)) skips.add('empty conversations');
          continue;
        }
        const part = item.part ? { first: splitTurns === 0, last: item.part.last } : undefined;
        if (item.part) splitTurns += valid.length;
        const conversation = isSaneTime(item.conversation.createdAt)
          ? item.conversation
          : { ...item.conversation, createdAt: valid[0]!.occurredAt };
        // Not `turns += await use(…)`: that reads `turns` before the await and so would drop what
        // `step` counted meanwhile (a long conversation's slices).
        const taken = await use(conversation, valid, skips, step, part);
        turns += taken;
        if (!part || part.first) conversations++;
        report();
        if (this.#d.clock.now() - lastYield >= YIELD_EVERY_MS) {
          await yieldToEvents();
          lastYield = this.#d.clock.now();
        }
        if (cancelled()) break;
      }
      if (end) await end(skips);
      report(true);
      return { format, skips, cancelled: cancelled(), layout };
    } finally {
      this.#running.delete(request.importId);
      this.#cancelled.delete(request.importId);
    }
  }
}
