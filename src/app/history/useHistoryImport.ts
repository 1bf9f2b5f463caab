/**
 * The history import's UI state machine: pick a file → the engine scans it (counts and
 * a synthesis estimate per policy) → the user picks a policy and imports → progress → report.
 * The engine does all the work in its worker; the File crosses as a structured clone (no copy of
 * its bytes) and is streamed there.
 */
import { useRef, useState } from 'react';
import * as Comlink from 'comlink';
import { useQueryClient } from '@tanstack/react-query';
import { useEngineClient } from '../hooks';
import { formatBytes } from '../format';
import type { HistoryFormat, HistoryImportReport, HistoryProgress, HistoryScan } from '../../core/base/historyImport';
import type { PolicyName } from '../../core/episodes/consolidationPolicy';
import { clearImportRunning, markImportRunning } from './PartialImportNotice';

export type HistoryImportState =
  | { readonly step: 'idle' }
  | { readonly step: 'scanning'; readonly progress: HistoryProgress | null }
  | { readonly step: 'scanned'; readonly scan: HistoryScan }
  | { readonly step: 'importing'; readonly progress: HistoryProgress | null; readonly cancelling: boolean }
  | { readonly step: 'done'; readonly report: HistoryImportReport }
  | { readonly step: 'failed'; readonly message: string };

/**
 * Stored turns take about twice an export's bytes (the text, its full-text index, vectors). When
 * the browser says less room is left, the import is not started: it would fill the storage
 * halfway and stop. The browser's figure is its own (approximate); unknown means go ahead.
 */
async function storageShortfall(fileBytes: number): Promise<string | null> {
  const estimate = await navigator.storage?.estimate?.().catch(() => null);
  if (!estimate || typeof estimate.quota !== 'number' || typeof estimate.usage !== 'number') return null;
  const free = Math.max(0, estimate.quota - estimate.usage);
  const needed = fileBytes * 2;
  if (free >= needed) return null;
  return (
    `This import needs about ${formatBytes(needed)} of storage, and this browser has ${formatBytes(free)} left for Recollect, so nothing was imported. ` +
    "Free space (delete conversations you do not need, or other sites' data, or files on the disk) and try again."
  );
}

export function useHistoryImport() {
  const { engine } = useEngineClient();
  const queryClient = useQueryClient();
  const [state, setState] = useState<HistoryImportState>({ step: 'idle' });
  const run = useRef<string | null>(null);

  const scan = async (file: File, format: HistoryFormat | 'auto') => {
    const importId = crypto.randomUUID();
    run.current = importId;
    setState({ step: 'scanning', progress: null });
    const onProgress = Comlink.proxy((progress: HistoryProgress) => {
      // Progress arrives on the callback's own port, possibly after the result: never step back.
      if (run.current === importId) setState((s) => (s.step === 'scanning' ? { step: 'scanning', progress } : s));
    });
    try {
      const result = await engine.data.scanHistory(file, { format, importId }, onProgress);
      if (run.current === importId) setState(result.cancelled ? { step: 'idle' } : { step: 'scanned', scan: result });
    } catch (err) {
      if (run.current === importId) setState({ step: 'failed', message: err instanceof Error ? err.message : String(err) });
    }
  };

  const start = async (file: File, format: HistoryFormat, policy: PolicyName, projectMemory: 'shared' | 'project-only' = 'shared') => {
    const importId = crypto.randomUUID();
    run.current = importId;
    setState({ step: 'importing', progress: null, cancelling: false });
    const onProgress = Comlink.proxy((progress: HistoryProgress) => {
      if (run.current === importId) setState((s) => (s.step === 'importing' ? { ...s, progress } : s));
    });
    const short = await storageShortfall(file.size);
    if (short) {
      if (run.current === importId) setState({ step: 'failed', message: short });
      return;
    }
    markImportRunning(file.name, Date.now());
    try {
      const report = await engine.data.importHistory(file, { format, importId, policy, projectMemory }, onProgress);
      clearImportRunning();
      // The chosen policy is now the engine's (the engine sends no event for it).
      void queryClient.invalidateQueries({ queryKey: ['consolidation'] });
      if (run.current === importId) setState({ step: 'done', report });
    } catch (err) {
      clearImportRunning(); // the dialog says what happened
      if (run.current === importId) setState({ step: 'failed', message: err instanceof Error ? err.message : String(err) });
    }
  };

  const cancel = () => {
    const id = run.current;
    if (!id) return;
    setState((s) => (s.step === 'importing' ? { ...s, cancelling: true } : s));
    void engine.data.cancelHistoryImport(id);
  };

  /** Forgets the current run (its late progress is ignored) and cancels it if still going. */
  const reset = () => {
    if (run.current && (state.step === 'scanning' || state.step === 'importing')) void engine.data.cancelHistoryImport(run.current);
    run.current = null;
    setState({ step: 'idle' });
  };

  return { state, scan, start, cancel, reset };
}
