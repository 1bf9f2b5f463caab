/**
 * One error style for expected failures: a `code` a program can switch on and a message a
 * person can act on. Errors cross the worker boundary as `ErrorInfo` values (see protocol.ts).
 */
export const ERROR_CODES = [
  'SQL_ERROR',
  'NOT_FOUND',
  'INVALID_INPUT',
  'IMPORT_NOT_SQLITE',
  'IMPORT_CORRUPT',
  'IMPORT_NOT_RECOLLECT',
  'SCHEMA_TOO_NEW',
  'IMPORT_ENCODING',
  'IMPORT_TOO_LARGE',
  'IMPORT_INVALID_DATA',
  'IMPORT_ROLLED_BACK',
  'IMPORT_WRITE_FAILED',
  'IMPORT_RESTORE_FAILED',
  'DB_BUSY',
  'DB_LOCKED',
  'STORAGE_FULL',
  'STORAGE_UNAVAILABLE',
  'ENGINE_STOPPED',
  'WORKER_STOPPED',
  'MODEL_UNAVAILABLE',
  'MODEL_ERROR',
  'MODEL_IN_USE',
  'LLM_NOT_CONFIGURED',
  'LLM_UNAUTHORIZED',
  'LLM_NOT_FOUND',
  'LLM_RATE_LIMITED',
  'LLM_UNAVAILABLE',
  'LLM_TIMEOUT',
  'LLM_REJECTED',
  'LLM_BAD_OUTPUT',
  'LLM_CANCELLED',
  'LLM_STREAM_CUT',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorInfo {
  readonly code: ErrorCode;
  readonly message: string;
  readonly detail?: string;
}

export class RecollectError extends Error {
  readonly code: ErrorCode;
  readonly detail: string | undefined;
  /** `cause`: the underlying error, for code that must tell failures apart (it never crosses a worker). */
  constructor(code: ErrorCode, message: string, detail?: string, options?: { readonly cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
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

const CODES: ReadonlySet<string> = new Set(ERROR_CODES);

/**
 * The code of an expected failure, or null for anything else: a RecollectError, or (after a
 * worker boundary or from a module that cannot import this class) any error carrying one of
 * ERROR_CODES. Unknown strings in `code` (a DOMException's, Node's 'ENOENT') are not codes of ours.
 */
export function errorCode(err: unknown): ErrorCode | null {
  if (err instanceof RecollectError) return err.code;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CODES.has(code) ? (code as ErrorCode) : null;
}

export function toErrorInfo(err: unknown): ErrorInfo {
  if (err instanceof RecollectError) return err.toInfo();
  // An error that crossed a worker boundary arrives as a plain Error carrying `code`/`detail`.
  const e = err as { code?: unknown; message?: unknown; detail?: unknown } | null;
  if (e && typeof e.code === 'string' && CODES.has(e.code) && typeof e.message === 'string') {
    return typeof e.detail === 'string'
      ? { code: e.code as ErrorCode, message: e.message, detail: e.detail }
      : { code: e.code as ErrorCode, message: e.message };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'INTERNAL', message };
}
