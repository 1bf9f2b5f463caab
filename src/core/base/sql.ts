/**
 * The one database capability core code receives. Implemented over wa-sqlite in src/storage
 * (OPFS in the browser worker, memory in Node). Every method is async because wa-sqlite's
 * statement API is, even on the synchronous build.
 */
export type SqlValue = string | number | bigint | Uint8Array | null;
export type SqlRow = Record<string, SqlValue>;

export interface Sql {
  /** Runs one or more statements; parameters bind to the (single) statement when given. */
  exec(sql: string, params?: readonly SqlValue[]): Promise<void>;
  /** Runs one statement and returns its rows as objects keyed by column name. */
  query<T extends SqlRow = SqlRow>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** Runs `fn` inside BEGIN IMMEDIATE … COMMIT, rolling back on any throw. Nested calls join the outer transaction. */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  /** Rows changed by the last INSERT/UPDATE/DELETE. */
  changes(): number;
  /**
   * Says that the running transaction (outside one: the statement just run) deleted or redacted
   * the person's content, so copies kept outside the live rows must go once it commits — for a
   * database with a write-ahead log, the log's frames of the pages as they were before. Optional:
   * a store that keeps no such copies (memory) has nothing to do.
   */
  contentRemoved?(): void;
  /**
   * How many times the whole content was replaced under this connection (an import's backup or a
   * deserialize), which SQLite's total_changes() does not count. Optional: caches keyed on
   * total_changes() add it when present.
   */
  readonly replacements?: number;
}
