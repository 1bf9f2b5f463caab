/**
 * The memory as a file, and history from elsewhere: storage figures, export and import of the
 * .sqlite file, chat history imports.
 * One group of EngineApi (src/core/protocol.ts): callers write `engine.data.…`.
 */
import type { HistoryFile, HistoryImportReport, HistoryProgress, HistoryRequest, HistoryScan } from '../base/historyImport';
import type { ImportSummary, StorageStats } from '../base/types';
import type { PolicyName } from '../episodes/consolidationPolicy';

export interface DataApi {
  stats(): Promise<StorageStats>;
  exportDatabase(): Promise<Uint8Array>;
  importDatabase(bytes: Uint8Array): Promise<ImportSummary>;
  /** Chat history from other services: scan first (counts, cost estimate), then import; both stream and can be cancelled. */
  scanHistory(file: HistoryFile, request: HistoryRequest, onProgress?: (p: HistoryProgress) => void): Promise<HistoryScan>;
  importHistory(
    file: HistoryFile,
    request: HistoryRequest & { readonly policy?: PolicyName },
    onProgress?: (p: HistoryProgress) => void,
  ): Promise<HistoryImportReport>;
  cancelHistoryImport(importId: string): Promise<void>;
}
