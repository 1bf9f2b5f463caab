/**
 * Export memory…: what Recollect knows about a person — the profile ("about you"), plans and
 * facts, never the turns — written in the shapes other assistants read back: dated lines (the
 * `[YYYY-MM-DD] - memory` block Claude's import takes), Portable AI Memory v1.0 JSON, and
 * Markdown. Every text passes redactSecrets first, as LLM errors do. Each shape reads back through
 * parseCarriedMemory with the same memories and dates (kinds too, for JSON and Markdown).
 */
import { dayString, normaliseMemoryText, type CarriedKind } from './carriedMemory';
import { redactSecrets } from './secrets';

export type MemoryExportFormat = 'dated-lines' | 'pam' | 'markdown';

export const MEMORY_EXPORT_FORMATS: Readonly<
  Record<MemoryExportFormat, { readonly label: string; readonly extension: string; readonly mimeType: string }>
> = {
  'dated-lines': { label: 'Dated lines ([date] - memory), for Claude and others', extension: 'txt', mimeType: 'text/plain' },
  pam: { label: 'Portable AI Memory (JSON)', extension: 'json', mimeType: 'application/json' },
  markdown: { label: 'Markdown', extension: 'md', mimeType: 'text/markdown' },
};

export interface ExportedMemory {
  readonly id: string;
  readonly kind: CarriedKind;
  readonly text: string;
  /** When it was saved or happened (ms), if known. */
  readonly at: number | null;
  /** A plan's window. */
  readonly validFrom?: number | null;
  readonly validUntil?: number | null;
}

export interface MemoryExportOptions {
  readonly zone: string;
  readonly exportedAt: number;
  /** PAM's owner.id: any stable or random id (Recollect has no accounts). */
  readonly ownerId: string;
  readonly exportId: string;
  /** The endpoint's key, removed wherever it appears. */
  readonly apiKey?: string | null;
}

export interface MemoryExportFile {
  readonly text: string;
  readonly fileName: string;
  readonly mimeType: string;
  readonly count: number;
}

export const EXPORTER = 'recollect/0.1.0';
const SECTIONS: readonly { readonly kind: CarriedKind; readonly title: string }[] = [
  { kind: 'about', title: 'About you' },
  { kind: 'plan', title: 'Plans' },
  { kind: 'fact', title: 'Facts' },
];

/** `sha256:<hex>` of the normalised text, as Portable AI Memory's content_hash (trim, lower case, NFC, single spaces). */
export async function contentHash(text: string): Promise<string> {
  const g = globalThis as unknown as {
    crypto: { subtle: { digest(algorithm: string, data: Uint8Array): Promise<ArrayBuffer> } };
    TextEncoder: new () => { encode(s: string): Uint8Array };
  };
  const digest = await g.crypto.subtle.digest('SHA-256', new g.TextEncoder().encode(normaliseMemoryText(text)));
  return `sha256:${[...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

const iso = (t: number): string => new Date(t).toISOString();
const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();

function datedLine(m: ExportedMemory, zone: string, bullet: boolean): string {
  const date = m.at === null ? 'unknown' : dayString(zone, m.at);
  return bullet ? `- [${date}] ${m.text}` : `[${date}] - ${m.text}`;
}

/** PAM's closed type taxonomy, from our three kinds (the kind itself rides in metadata). */
function pamType(m: ExportedMemory): string {
  if (m.kind === 'plan') return 'goal';
  if (m.kind === 'fact') return 'fact';
  return /\b(?:prefers?|likes?|loves?|dislikes?|hates?|enjoys?)\b/i.test(m.text) ? 'preference' : 'identity';
}

async function pam(items: readonly ExportedMemory[], o: MemoryExportOptions): Promise<string> {
  const memories = await Promise.all(
    items.map(async (m) => ({
      id: m.id,
      type: pamType(m),
      custom_type: null,
      status: 'active',
      content: m.text,
      content_hash: await contentHash(m.text),
      temporal: {
        created_at: iso(m.at ?? o.exportedAt),
        valid_from: m.validFrom != null ? iso(m.validFrom) : null,
        valid_until: m.validUntil != null ? iso(m.validUntil) : null,
      },
      provenance: { platform: 'recollect', extraction_method: 'api_export', extracted_at: iso(o.exportedAt), extractor: EXPORTER },
      // created_at is required, so an undated memory gets the export time and says so here.
      metadata: { recollect_kind: m.kind, ...(m.at === null ? { recollect_undated: true } : {}) },
    })),
  );
  const store = {
    schema: 'portable-ai-memory',
    schema_version: '1.0',
    spec_uri: 'https://portable-ai-memory.org/spec/v1.0',
    export_id: o.exportId,
    exported_by: EXPORTER,
    export_date: iso(o.exportedAt),
    export_type: 'full',
    owner: { id: o.ownerId },
    memories,
  };
  return `${JSON.stringify(store, null, 2)}\n`;
}

function markdown(items: readonly ExportedMemory[], o: MemoryExportOptions): string {
  const out = [
    `# Memory exported from Recollect on ${dayString(o.zone, o.exportedAt)} (${items.length} ${items.length === 1 ? 'memory' : 'memories'})`,
  ];
  for (const { kind, title } of SECTIONS) {
    const mine = items.filter((m) => m.kind === kind);
    if (!mine.length) continue;
    out.push('', `## ${title}`, '', ...mine.map((m) => datedLine(m, o.zone, true)));
  }
  return `${out.join('\n')}\n`;
}

/** The memories in `format`, secrets redacted, with the file name and type to download it as. */
export async function formatMemoryExport(
  format: MemoryExportFormat,
  items: readonly ExportedMemory[],
  o: MemoryExportOptions,
): Promise<MemoryExportFile> {
  const clean = items.map((m) => ({ ...m, text: redactSecrets(oneLine(m.text), o.apiKey) })).filter((m) => m.text);
  const text =
    format === 'pam'
      ? await pam(clean, o)
      : format === 'markdown'
        ? markdown(clean, o)
        : `${clean.map((m) => datedLine(m, o.zone, false)).join('\n')}\n`;
  const { extension, mimeType } = MEMORY_EXPORT_FORMATS[format];
  const suffix = format === 'pam' ? '.pam' : '';
  return { text, fileName: `recollect-memory-${dayString(o.zone, o.exportedAt)}${suffix}.${extension}`, mimeType, count: clean.length };
}
