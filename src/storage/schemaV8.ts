/**
 * v8: every time is a whole number of ms again.
 *
 * History imports stored ChatGPT's microsecond times (`create_time * 1000`) as they came, and an
 * INTEGER column keeps a fraction as REAL; the database import then refused the memory's own
 * export ("should hold a whole number"). The write path rounds now; this repairs what is already
 * stored, in every table and every time column (and llm_calls.latency_ms, a duration measured
 * with a sub-ms clock). Rows already whole are not touched.
 */
const TIME_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  conversations: ['created_at', 'updated_at'],
  messages: ['occurred_at', 'ingested_at'],
  vectors: ['created_at'],
  memscenes: ['last_activity_at', 'created_at', 'updated_at'],
  memcells: ['start_at', 'end_at', 'last_visited_at', 'created_at', 'updated_at'],
  facts: ['occurred_at', 'valid_from', 'valid_to', 'created_at', 'updated_at'],
  foresights: ['start_at', 'end_at', 'created_at', 'updated_at'],
  profile_items: ['created_at', 'updated_at'],
  profile_item_history: ['changed_at'],
  jobs: ['run_after', 'created_at', 'updated_at'],
  llm_calls: ['latency_ms', 'created_at'],
  tombstones: ['created_at'],
};

/** Columns of a schema before v8 that may hold a fractional ms value (the file import lets them through to this repair). */
export function isRepairedTimeColumn(table: string, column: string): boolean {
  return TIME_COLUMNS[table]?.includes(column) ?? false;
}

/**
 * The migration. Rounding a turn's time by less than a millisecond changes nothing the turn index
 * holds, but its update trigger would re-index every repaired turn and its neighbours (≈28 CPU-s
 * for a 17,000-turn ChatGPT import, at app start): the trigger is set aside for the update and
 * put back as it was (`turnsFtsUpdate`, its definition from v2).
 */
export function v8(turnsFtsUpdate: string): string {
  const updates = Object.entries(TIME_COLUMNS).flatMap(([table, columns]) =>
    columns.map((c) => `UPDATE ${table} SET ${c} = CAST(round(${c}) AS INTEGER) WHERE typeof(${c}) = 'real';`),
  );
  return ['DROP TRIGGER turns_fts_update;', ...updates, turnsFtsUpdate].join('\n');
}
