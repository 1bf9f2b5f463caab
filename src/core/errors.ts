/**
 * One error style for expected failures: a `code` a program can switch on and a message a
 * person can act on. Errors cross the worker boundary as `ErrorInfo` values (see protocol.ts).
 */
export type ErrorCode =
  | 'SQL_ERROR'
  | 'NOT_FOUND'
  | 'INVALID_INPUT'
  | 'IMPORT_NOT_SQLITE'
  | 'IMPORT_CORRUPT'
  | 'IMPORT_NOT_RECOLLECT'
  | 'SCHEMA_TOO_NEW'
  | 'DB_BUSY'
  | 'MODEL_UNAVAILABLE'
  | 'MODEL_ERROR'
  | 'INTERNAL';

export interface ErrorInfo {
  readonly code: ErrorCode;
  readonly message: string;
  readonly detail?: string;
}

export class RecollectError extends Error {
  readonly code: ErrorCode;
  readonly detail: string | undefined;
  constructor(code: ErrorCode, message: string, detail?: string) {
    super(message);
    this.name = 'RecollectError';
    this.code = code;
    this.detail = detail;
  }
  toInfo(): ErrorInfo {
    return this.detail === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, detail: this.detail };
  }
}

export function toErrorInfo(err: unknown): ErrorInfo {
  if (err instanceof RecollectError) return err.toInfo();
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'INTERNAL', message };
}
