/**
 * Import memory… and Export memory…: carrying what an assistant knows about a person between
 * assistants. Import shows the prompt to ask the other assistant with, takes its answer (pasted, or
 * a file), previews every memory with its kind, date and a checkbox — those Recollect already
 * knows unticked and marked — and stores the ticked ones as saved memories. Export writes the
 * profile, plans and facts as dated lines, Portable AI Memory JSON or Markdown, to the clipboard
 * or a file. Reading and writing the shapes is core (base/carriedMemory.ts, base/memoryExport.ts);
 * this file only renders and calls the engine.
 */
import { useId, useRef, useState } from 'react';
import {
  FORMAT_LABELS,
  KIND_LABELS,
  MAX_CARRY_BYTES,
  TOO_LARGE_MESSAGE,
  dayString,
  parseCarriedMemory,
  type CarriedMemory,
  type CarryParse,
} from '../../core/base/carriedMemory';
import { MEMORY_EXPORT_FORMATS, type MemoryExportFormat } from '../../core/base/memoryExport';
import { plural } from '../format';
import { queryKeys } from '../queries';
import { useEngineClient, useEngineMutation, useEngineQuery } from '../hooks';
import { Dialog } from '../components/Dialog';
import { useMenuItemProps } from '../components/MoreMenu';
import { HistoryImportButton } from '../history/HistoryImportDialog';

/** What to ask the other assistant: everything it keeps about the person, as dated lines in one block. */
export const EXPORT_PROMPT = `I am moving to another assistant and want to take what you know about me with me. Please list every memory you have stored about me, and everything you have learned about me in our conversations: who I am, my work and projects, my plans and goals, how I like you to answer, the people and things in my life, and any instructions I have given you.

Write them all in one code block, one memory per line, each line as:
[YYYY-MM-DD] - the memory

Use the date you saved it, or [unknown] when you do not know it. Keep each memory to one sentence, in my words where you can. Do not summarise, merge or leave any out, and write nothing else inside the code block.`;

const SOURCES = ['ChatGPT', 'Claude', 'Gemini', 'Copilot', 'Grok', 'another assistant'] as const;

function downloadText(text: string, fileName: string, mimeType: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: `${mimeType};charset=utf-8` }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

async function copyText(text: string): Promise<void> {
  if (!navigator.clipboard) throw new Error('This browser does not let the page copy; select the text and copy it yourself.');
  await navigator.clipboard.writeText(text);
}

interface Preview {
  readonly parse: Extract<CarryParse, { ok: true }>;
  readonly known: readonly boolean[];
}

export function ImportMemoryDialog({ onClose }: { onClose: () => void }) {
  const client = useEngineClient();
  const zone = useEngineQuery((q) => q.timeZone()).data?.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const [text, setText] = useState('');
  const [error, setError] = useState<{ readonly message: string; readonly chat: boolean } | null>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [chosen, setChosen] = useState<ReadonlySet<number>>(new Set());
  const [source, setSource] = useState<string>('another assistant');
  const [status, setStatus] = useState('');
  const [reading, setReading] = useState(false);
  const file = useRef<HTMLInputElement>(null);
  const ids = useId();
  const store = useEngineMutation(
    (c, request: Parameters<typeof c.engine.profile.importMemories>[0]) => c.engine.profile.importMemories(request),
    { report: false, invalidate: [queryKeys.explorer] },
  );

  const read = async (input: string) => {
    setError(null);
    setPreview(null);
    setStatus('');
    const parsed = parseCarriedMemory(input, { zone, now: Date.now() });
    if (!parsed.ok) {
      setError({ message: parsed.message, chat: parsed.code === 'CHAT' });
      return;
    }
    setReading(true);
    try {
      const known = await client.engine.profile.knownMemories(parsed.items.map((m) => m.text));
      setPreview({ parse: parsed, known });
      setChosen(new Set(parsed.items.flatMap((m, i) => (known[i] || m.problem ? [] : [i]))));
      if (parsed.source) setSource(parsed.source);
    } catch (err) {
      setError({ message: err instanceof Error ? err.message : String(err), chat: false });
    } finally {
      setReading(false);
    }
  };

  const pick = async (f: File | undefined) => {
    if (!f) return;
    if (f.size > MAX_CARRY_BYTES) {
      setPreview(null);
      setError({ message: TOO_LARGE_MESSAGE, chat: false });
      return;
    }
    const content = await f.text();
    setText(content);
    await read(content);
  };

  const importChosen = async () => {
    if (!preview) return;
    const items = preview.parse.items.filter((_, i) => chosen.has(i)).map(({ text: t, kind, at }) => ({ text: t, kind, at }));
    try {
      const r = await store.mutateAsync({ source, items });
      setStatus(
        `Imported ${plural(r.added, 'memory', 'memories')} from ${source}${r.alreadyKnown ? `; ${plural(r.alreadyKnown, 'was', 'were')} already known` : ''}. They are in Saved memories.`,
      );
      setPreview(null);
      setText('');
    } catch (err) {
      setError({ message: err instanceof Error ? err.message : String(err), chat: false });
    }
  };

  const toggle = (i: number, on: boolean) =>
    setChosen((prev) => {
      const next = new Set(prev);
      if (on) next.add(i);
      else next.delete(i);
      return next;
    });
  const knownCount = preview?.known.filter(Boolean).length ?? 0;

  return (
    <Dialog title="Import memories from another assistant" wide className="carry-memory" testId="import-memories" onClose={onClose}>
      <h3>1. Ask the other assistant</h3>
      <p>Paste this into ChatGPT, Claude, Gemini or any assistant with memory; it answers with what it knows about you.</p>
      <pre className="carry-prompt" data-testid="carry-prompt" tabIndex={0} aria-label="Prompt for the other assistant">
        {EXPORT_PROMPT}
      </pre>
      <div className="buttons">
        <button
          type="button"
          onClick={() =>
            void copyText(EXPORT_PROMPT).then(
              () => setStatus('Prompt copied.'),
              (err: Error) => setStatus(err.message),
            )
          }
        >
          Copy prompt
        </button>
      </div>

      <h3>2. Paste its answer</h3>
      <label htmlFor={`${ids}-text`}>Memories to import</label>
      <textarea
        id={`${ids}-text`}
        rows={8}
        value={text}
        onChange={(e) => setText(e.target.value)}
        data-autofocus
        placeholder="[2025-03-14] - Prefers short answers with code examples."
      />
      <div className="buttons">
        <button type="button" className="primary" onClick={() => void read(text)} disabled={reading}>
          {reading ? 'Reading…' : 'Preview'}
        </button>
        <button type="button" onClick={() => file.current?.click()}>
          Choose a file…
        </button>
        <input
          ref={file}
          type="file"
          hidden
          aria-label="Memory file to import"
          accept=".txt,.md,.markdown,.json,text/plain,text/markdown,application/json"
          onChange={(e) => {
            const f = e.target.files?.[0];
            e.target.value = '';
            void pick(f);
          }}
        />
      </div>
      <p className="muted">
        Reads dated lines (<code>[YYYY-MM-DD] - memory</code>), ChatGPT&apos;s memory list, Portable AI Memory JSON, Markdown, or one memory
        per line.
      </p>
      {error && (
        <div className="error" role="alert" data-testid="carry-error">
          <p>{error.message}</p>
          {error.chat && <HistoryImportButton />}
        </div>
      )}
      <p role="status" data-testid="carry-status">
        {status}
      </p>

      {preview && (
        <section aria-labelledby={`${ids}-preview`}>
          <h3 id={`${ids}-preview`}>3. Choose what to keep</h3>
          <p data-testid="carry-summary">
            {plural(preview.parse.items.length, 'memory', 'memories')} found ({FORMAT_LABELS[preview.parse.format]})
            {knownCount ? `; ${knownCount} already known` : ''}
            {preview.parse.skipped.map((s) => `; ${s.count} skipped: ${s.reason}`).join('')}.
          </p>
          <label htmlFor={`${ids}-source`}>Where they come from</label>{' '}
          <select id={`${ids}-source`} value={source} onChange={(e) => setSource(e.target.value)}>
            {[...new Set([...SOURCES, source])].map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
          <ul className="plain carry-preview" aria-label="Memories found">
            {preview.parse.items.map((m, i) => (
              <PreviewRow
                key={i}
                memory={m}
                known={preview.known[i] ?? false}
                zone={zone}
                checked={chosen.has(i)}
                onChange={(on) => toggle(i, on)}
              />
            ))}
          </ul>
          <div className="buttons">
            <button type="button" className="primary" disabled={chosen.size === 0 || store.isPending} onClick={() => void importChosen()}>
              {store.isPending ? 'Importing…' : `Import ${plural(chosen.size, 'memory', 'memories')}`}
            </button>
            <button type="button" onClick={onClose}>
              Cancel
            </button>
          </div>
        </section>
      )}
    </Dialog>
  );
}

function PreviewRow({
  memory,
  known,
  zone,
  checked,
  onChange,
}: {
  memory: CarriedMemory;
  known: boolean;
  zone: string;
  checked: boolean;
  onChange: (on: boolean) => void;
}) {
  const note = memory.problem ?? (known ? 'already in Recollect' : null);
  return (
    <li data-testid="carry-item" data-known={known ? 'true' : 'false'}>
      <label>
        <input type="checkbox" checked={checked} disabled={note !== null} onChange={(e) => onChange(e.target.checked)} /> {memory.text}
      </label>
      <span className="muted">
        {' '}
        · <span data-testid="carry-kind">{KIND_LABELS[memory.kind]}</span> ·{' '}
        <span data-testid="carry-date">{memory.at === null ? 'no date' : dayString(zone, memory.at)}</span>
        {note ? ` · ${note}` : ''}
      </span>
    </li>
  );
}

export function ExportMemoryDialog({ onClose }: { onClose: () => void }) {
  const [format, setFormat] = useState<MemoryExportFormat>('dated-lines');
  const [status, setStatus] = useState('');
  const [error, setError] = useState<string | null>(null);
  const exporter = useEngineMutation((c, f: MemoryExportFormat) => c.engine.profile.exportMemories(f), { report: false });
  const run = async (to: 'clipboard' | 'file') => {
    setError(null);
    setStatus('');
    try {
      const file = await exporter.mutateAsync(format);
      if (to === 'clipboard') {
        await copyText(file.text);
        setStatus(`Copied ${plural(file.count, 'memory', 'memories')}.`);
      } else {
        downloadText(file.text, file.fileName, file.mimeType);
        setStatus(`Downloaded ${file.fileName} (${plural(file.count, 'memory', 'memories')}).`);
      }
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <Dialog title="Export memories" className="carry-memory" testId="export-memories" onClose={onClose}>
      <p>
        What Recollect knows about you — about you, plans ahead and facts — for another assistant. Your conversations are not included; keys
        and tokens are replaced by [redacted].
      </p>
      <fieldset>
        <legend>Format</legend>
        {(Object.keys(MEMORY_EXPORT_FORMATS) as MemoryExportFormat[]).map((f) => (
          <label key={f} style={{ display: 'block' }}>
            <input
              type="radio"
              name="memory-export-format"
              value={f}
              checked={format === f}
              onChange={() => setFormat(f)}
              data-autofocus={f === format ? true : undefined}
            />{' '}
            {MEMORY_EXPORT_FORMATS[f].label}
          </label>
        ))}
      </fieldset>
      <div className="buttons">
        <button type="button" className="primary" disabled={exporter.isPending} onClick={() => void run('file')}>
          Download file
        </button>
        <button type="button" disabled={exporter.isPending} onClick={() => void run('clipboard')}>
          Copy to clipboard
        </button>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <p role="status" data-testid="export-status">
        {status}
      </p>
    </Dialog>
  );
}

/** The two buttons, where Saved memories and the data actions show them. */
export function CarryMemoryButtons() {
  const [open, setOpen] = useState<'import' | 'export' | null>(null);
  const item = useMenuItemProps();
  return (
    <>
      <button type="button" {...item} onClick={() => setOpen('import')}>
        Import memory…
      </button>
      <button type="button" {...item} onClick={() => setOpen('export')}>
        Export memory…
      </button>
      {open === 'import' && <ImportMemoryDialog onClose={() => setOpen(null)} />}
      {open === 'export' && <ExportMemoryDialog onClose={() => setOpen(null)} />}
    </>
  );
}
