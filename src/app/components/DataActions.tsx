import { useRef, useState } from 'react';
import { useExportDatabase, useImportDatabase, useStats } from '../hooks';
import { useUi } from '../uiStore';
import { useOpening } from './OwnershipBanner';
import { formatBytes, plural } from '../format';
import { exportFileName } from '../../core/base/exportFileName';
import { HistoryImportButton, POLICY_LABELS, range, tokens } from '../history/HistoryImportDialog';
import { useEngineMutation } from '../hooks';
import { queryKeys } from '../queries';
import type { ImportSummary } from '../../core/base/types';
import type { PolicyName } from '../../core/episodes/consolidationPolicy';
import { toErrorInfo } from '../../core/base/errors';
import { Dialog } from './Dialog';
import { CarryMemoryButtons } from '../explorer/CarryMemory';
import { useMenuItemProps } from './MoreMenu';

/**
 * The sentence shown for a failed import. Import errors carry their own truth (refused and
 * unchanged, or put back, or not restored); anything else is unexpected and its raw text (which
 * may be SQLite's) is not shown.
 */
export function importFailureText(err: unknown): string {
  const info = toErrorInfo(err);
  if (info.code.startsWith('IMPORT_') || info.code === 'SCHEMA_TOO_NEW') return info.message;
  return `The import stopped on an unexpected error (${info.code}). Reload the page to see which memory is loaded; if it is not yours, import your latest export.`;
}

/** Export: the whole memory, downloaded as a dated .sqlite file. `pending` while it is being read. */
export function useExportDownload(): { readonly download: () => Promise<void>; readonly pending: boolean } {
  const exporter = useExportDatabase();
  const download = async () => {
    const bytes = await exporter.mutateAsync();
    const url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'application/vnd.sqlite3' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = exportFileName(new Date());
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };
  return { download, pending: exporter.isPending };
}

/** Export the whole memory as a .sqlite file, or replace it with one (after validation and a confirmation). */
export function DataActions() {
  const exporter = useExportDownload();
  const importer = useImportDatabase();
  const stats = useStats();
  const notify = useUi((s) => s.notify);
  // The dialog sits above the "Opening your memory…" overlay: replacing waits until this tab owns the database.
  const owner = useUi((s) => s.ownership === 'owner');
  // Inert while the memory opens: only the message box is usable then (OwnershipBanner.tsx).
  const opening = useOpening();
  const fileInput = useRef<HTMLInputElement>(null);
  const item = useMenuItemProps();
  const [pending, setPending] = useState<File | null>(null);
  const [importError, setImportError] = useState<string | null>(null);
  const [held, setHeld] = useState<NonNullable<ImportSummary['pendingSynthesis']> | null>(null);
  const [choice, setChoice] = useState<PolicyName>('off');
  const setPolicy = useEngineMutation((c, name: PolicyName) => c.engine.synthesis.setPolicy(name), {
    invalidate: [queryKeys.consolidation],
  });

  const confirmImport = async () => {
    if (!pending) return;
    setImportError(null);
    try {
      const bytes = new Uint8Array(await pending.arrayBuffer());
      const summary = await importer.mutateAsync(bytes);
      notify(
        'info',
        [
          `Imported ${plural(summary.messageCount, 'message')} in ${plural(summary.conversationCount, 'conversation')} from ${pending.name}.`,
          ...(summary.notices ?? []),
        ].join(' '),
      );
      setPending(null);
      if (summary.pendingSynthesis) {
        setChoice('off');
        setHeld(summary.pendingSynthesis);
      }
    } catch (err) {
      setImportError(importFailureText(err));
    }
  };

  return (
    <div className="data-actions" inert={opening}>
      <button type="button" {...item} onClick={() => void exporter.download()} disabled={exporter.pending}>
        {exporter.pending ? 'Exporting…' : 'Export'}
      </button>
      <button type="button" {...item} onClick={() => fileInput.current?.click()}>
        Import…
      </button>
      <HistoryImportButton />
      <CarryMemoryButtons />
      <input
        ref={fileInput}
        type="file"
        accept=".sqlite,.db,.sqlite3,application/vnd.sqlite3"
        hidden
        aria-label="Import database file"
        onChange={(e) => {
          setPending(e.target.files?.[0] ?? null);
          setImportError(null);
          e.target.value = '';
        }}
      />
      {pending && (
        <Dialog
          title="Import memory"
          onClose={() => {
            setPending(null);
            setImportError(null);
          }}
        >
          <p>
            Replace your current memory ({stats.data?.messageCount ?? 0} messages) with <strong>{pending.name}</strong> (
            {formatBytes(pending.size)})? The file is checked first; if it is not a valid Recollect database, nothing changes.
          </p>
          {importError && (
            <p className="error" role="alert">
              Import failed: {importError}
            </p>
          )}
          <div className="buttons">
            {importError ? (
              // After a refusal the same file would be refused again: offer another file instead.
              <button type="button" onClick={() => fileInput.current?.click()}>
                Choose another file…
              </button>
            ) : (
              <button type="button" className="danger" onClick={() => void confirmImport()} disabled={importer.isPending || !owner}>
                {importer.isPending ? 'Importing…' : 'Replace memory'}
              </button>
            )}
            <button
              type="button"
              onClick={() => {
                setPending(null);
                setImportError(null);
              }}
            >
              Cancel
            </button>
          </div>
        </Dialog>
      )}
      {held && (
        // Closing it (Escape, ×) keeps synthesis off, which is what the restore already set.
        <Dialog title="Synthesise the restored memory?" onClose={() => setHeld(null)} closeLabel="Close and keep synthesis off">
          <p>
            The restored memory has {plural(held.turns, 'message')} in about {plural(held.episodes, 'episode')}
            that are not synthesised yet. Nothing has been sent to your endpoint; synthesis is off until you choose (the file was saved with
            “{held.policyInFile}”).
          </p>
          <fieldset>
            <legend>Synthesis on your endpoint (estimate)</legend>
            {held.estimates.map((e) => (
              <label key={e.policy} className="policy-choice" style={{ display: 'block' }}>
                <input
                  type="radio"
                  name="restore-policy"
                  value={e.policy}
                  checked={choice === e.policy}
                  onChange={() => setChoice(e.policy)}
                  data-autofocus={e.policy === 'off' ? true : undefined}
                />{' '}
                {POLICY_LABELS[e.policy]}:{' '}
                <span data-testid={`restore-estimate-${e.policy}`}>
                  {range(e.calls)} calls, ~{tokens(e)} tokens
                </span>
              </label>
            ))}
          </fieldset>
          <div className="buttons">
            <button
              type="button"
              className="primary"
              disabled={setPolicy.isPending}
              onClick={() => setPolicy.mutate(choice, { onSuccess: () => setHeld(null) })}
            >
              Use this policy
            </button>
          </div>
        </Dialog>
      )}
    </div>
  );
}
