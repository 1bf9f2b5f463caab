/**
 * A history import that did not finish (the page was reloaded or closed, the tab crashed) leaves
 * what it had stored, which looks complete but is not. The import marks itself running in this
 * browser's storage and clears the mark when it ends; a mark found on load means it was cut
 * short, and this says so. Importing the same file again completes it: ids come from the export,
 * so what is already stored is skipped, never duplicated.
 */
import { useState } from 'react';

const KEY = 'recollect:history-import-running';

interface RunningImport {
  readonly name: string;
  readonly startedAt: number;
}

export function markImportRunning(name: string, startedAt: number): void {
  try {
    localStorage.setItem(KEY, JSON.stringify({ name, startedAt } satisfies RunningImport));
  } catch {
    /* storage unavailable or full: the notice is a courtesy, the import itself is unaffected */
  }
}

export function clearImportRunning(): void {
  try {
    localStorage.removeItem(KEY);
  } catch {
    /* as above */
  }
}

function interruptedImport(): RunningImport | null {
  try {
    const raw = localStorage.getItem(KEY);
    const value = raw ? (JSON.parse(raw) as Partial<RunningImport>) : null;
    return value && typeof value.name === 'string' && typeof value.startedAt === 'number'
      ? { name: value.name, startedAt: value.startedAt }
      : null;
  } catch {
    // storage blocked (private mode) or a value this version cannot read: no notice
    return null;
  }
}

export function PartialImportNotice() {
  // Read once on load: an import started in this page sets the mark again and is not "interrupted".
  const [interrupted, setInterrupted] = useState(interruptedImport);
  if (!interrupted) return null;
  const dismiss = () => {
    clearImportRunning();
    setInterrupted(null);
  };
  return (
    <div className="banner partial-import" role="status" data-testid="partial-import">
      The import of <strong>{interrupted.name}</strong> started {new Date(interrupted.startedAt).toLocaleString()} did not finish: part of
      it is stored. Import it again to complete it without duplicates: what is already stored is recognised and skipped.{' '}
      <button type="button" className="link-button" onClick={dismiss}>
        Dismiss
      </button>
    </div>
  );
}
