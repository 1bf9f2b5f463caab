/**
 * Replacing the memory with an imported file, all or nothing (docs/architecture.md, Reliability).
 *
 * The store validates and rebuilds the file and swaps it in (a refusal there changes nothing).
 * After the swap, everything that reads the database at start-up must start again on the new
 * memory: the LLM settings and consolidation settings, the embedding indexer (which also sets up
 * re-embedding when the file's model is replaced), the lifecycle and the job queue. If any of that
 * fails, the previous memory is put back byte for byte and started again, and the error says so;
 * if even that fails, the error says that instead. The message is always what really happened.
 */
import { RecollectError, toErrorInfo } from '../base/errors';
import type { ImportOptions, StagedImport } from '../base/store';
import type { ImportSummary } from '../base/types';

export interface ImportSteps {
  /** Validates, rebuilds and swaps in the file (store.stageImport). */
  stage(bytes: Uint8Array, options: ImportOptions): Promise<StagedImport>;
  /** Restarts everything that reads the database at start (the engine's start-up). */
  restart(): Promise<void>;
}

export async function importMemory(steps: ImportSteps, bytes: Uint8Array, options: ImportOptions): Promise<ImportSummary> {
  const staged = await steps.stage(bytes, options);
  try {
    await steps.restart();
    return staged.summary;
  } catch (err) {
    const cause = toErrorInfo(err);
    try {
      await staged.rollback();
    } catch (restoreErr) {
      throw new RecollectError(
        'IMPORT_RESTORE_FAILED',
        'The imported memory could not be started, and putting your previous memory back failed too. Do not close this tab: export what is shown now, then reload and import your latest export.',
        `${cause.code}: ${cause.message}; restore: ${toErrorInfo(restoreErr).message}`,
      );
    }
    let restarted = true;
    try {
      await steps.restart();
    } catch {
      // the import's own error below is what the person needs; this only changes its advice
      restarted = false;
    }
    throw new RecollectError(
      'IMPORT_ROLLED_BACK',
      `The file passed every check, but Recollect could not start with it (${cause.message.replace(/\.$/, '')}), so your previous memory was put back unchanged.${restarted ? '' : ' Reload the page to resume background work.'}`,
      `${cause.code}: ${cause.message}`,
    );
  }
}
