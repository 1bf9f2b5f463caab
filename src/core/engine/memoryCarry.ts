/**
 * Memory you can carry: Import memory… and Export memory… on the engine's side. Import stores the
 * memories the person kept in the preview as saved memories (SavedMemories.importMany), skipping
 * any already known as a saved memory, a profile item, a fact or a plan — the same words compared
 * by memoryIdentity — so a second paste adds nothing. Export reads the profile, the plans still
 * ahead and the current facts (never turns) and writes them with base/memoryExport.ts.
 */
import { importedFrom, memoryIdentity, type CarriedKind } from '../base/carriedMemory';
import { newId } from '../base/ids';
import {
  formatMemoryExport,
  type ExportedMemory,
  type MemoryExportFile,
  type MemoryExportFormat,
  MEMORY_EXPORT_FORMATS,
} from '../base/memoryExport';
import { RecollectError } from '../base/errors';
import type { Clock } from '../base/ports';
import type { ExplorerService } from '../explorer/ExplorerService';
import { profileLine } from '../recall/answerContext';
import type { KnowledgeStore } from '../synthesis/knowledge';
import type { MemoryImportRequest, MemoryImportResult, SavedMemories } from './savedMemories';

export interface MemoryCarryDeps {
  readonly saved: SavedMemories;
  readonly explorer: ExplorerService | null;
  readonly knowledge: KnowledgeStore | null;
  readonly clock: Clock;
  readonly zone: () => string;
  /** The endpoint's key, for redaction (it is never exported). */
  readonly apiKey: () => Promise<string | null>;
}

const FACT_PAGE = 500;

export class MemoryCarry {
  readonly #deps: MemoryCarryDeps;

  constructor(deps: MemoryCarryDeps) {
    this.#deps = deps;
  }

  #explorer(): ExplorerService {
    if (!this.#deps.explorer) throw new RecollectError('INTERNAL', 'This engine was built without the memory explorer.');
    return this.#deps.explorer;
  }

  /** Every current fact, page by page. */
  async #facts(): Promise<{ readonly id: string; readonly content: string; readonly at: number | null }[]> {
    const out: { id: string; content: string; at: number | null }[] = [];
    let cursor: string | null = null;
    do {
      const page = await this.#explorer().listFacts({ limit: FACT_PAGE, cursor });
      for (const f of page.items) if (!f.supersededBy) out.push({ id: f.id, content: f.content, at: f.occurredAt ?? f.validFrom });
      cursor = page.nextCursor;
    } while (cursor);
    return out;
  }

  /** memoryIdentity of every fact and plan (saved memories and the profile are read by importMany itself). */
  async #knownFactsAndPlans(): Promise<Set<string>> {
    const known = new Set<string>();
    for (const f of await this.#facts()) known.add(memoryIdentity(f.content));
    for (const p of await this.#explorer().listForesight()) known.add(memoryIdentity(p.content));
    return known;
  }

  /** For the preview: which of `texts` Recollect already knows. */
  async known(texts: readonly string[]): Promise<boolean[]> {
    const known = await this.#knownFactsAndPlans();
    for (const p of (await this.#deps.knowledge?.profileItems()) ?? []) known.add(memoryIdentity(p.value));
    return texts.map((t) => known.has(memoryIdentity(String(t))));
  }

  async import(request: MemoryImportRequest): Promise<MemoryImportResult> {
    return this.#deps.saved.importMany(request, await this.#knownFactsAndPlans());
  }

  /** The profile, the plans still ahead and the current facts, each kind oldest first. */
  async #items(): Promise<ExportedMemory[]> {
    const ex = this.#explorer();
    const about: ExportedMemory[] = [];
    const carried: ExportedMemory[] = [];
    for (const p of await ex.listProfile()) {
      const added = p.history.find((h) => h.op === 'add');
      // A memory imported as a plan or a fact goes back out as one.
      const kind: CarriedKind = importedFrom(added?.reason ?? null)?.kind ?? 'about';
      const text = p.editedByUser ? p.value : profileLine(p.key, p.value);
      (kind === 'about' ? about : carried).push({ id: p.id, kind, text, at: p.createdAt });
    }
    const now = this.#deps.clock.now();
    const plans: ExportedMemory[] = (await ex.listForesight())
      .filter((f) => f.status === 'active' && (f.endAt === null || f.endAt >= now))
      .map((f) => ({ id: f.id, kind: 'plan', text: f.content, at: f.startAt, validFrom: f.startAt, validUntil: f.endAt }));
    const facts: ExportedMemory[] = (await this.#facts()).map((f) => ({ id: f.id, kind: 'fact', text: f.content, at: f.at }));
    const byDate = (a: ExportedMemory, b: ExportedMemory) => (a.at === null ? 1 : 0) - (b.at === null ? 1 : 0) || (a.at ?? 0) - (b.at ?? 0);
    const all = [...about, ...plans, ...facts, ...carried];
    return (['about', 'plan', 'fact'] as const).flatMap((k) => all.filter((m) => m.kind === k).sort(byDate));
  }

  async export(format: MemoryExportFormat): Promise<MemoryExportFile> {
    if (!(format in MEMORY_EXPORT_FORMATS)) throw new RecollectError('INVALID_INPUT', `Unknown export format: ${String(format)}.`);
    const now = this.#deps.clock.now();
    return formatMemoryExport(format, await this.#items(), {
      zone: this.#deps.zone(),
      exportedAt: now,
      ownerId: newId(),
      exportId: newId(),
      apiKey: await this.#deps.apiKey(),
    });
  }
}
