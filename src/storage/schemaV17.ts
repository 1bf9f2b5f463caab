/**
 * v17: sync (docs/sync.md). Empty and untouched until the person turns sync on.
 * - sync_log: every synced event this device holds, its own and other devices', by event id (the
 *   dedupe key: a duplicated delivery is one row). Rows of this device's own events with
 *   `uploaded = 0` are the outbox. `body` is the event's JSON as it is sealed; a deleted turn's or
 *   memory's text is blanked in place (deleted means gone: the log keeps that it existed, not its words).
 * - sync_state: device id, owner id, relay address, last relay offset, the clock's last reading.
 *   The recovery phrase is never here: it lives in the device's settings beside the endpoint key,
 *   so a downloaded `.sqlite` file never carries it, and an import does not copy these tables.
 */
export const v17 = /* sql */ `
CREATE TABLE sync_log (
  event_id TEXT PRIMARY KEY,
  hlc TEXT NOT NULL,
  kind TEXT NOT NULL,
  body TEXT NOT NULL,
  origin TEXT NOT NULL CHECK (origin IN ('local', 'remote')),
  uploaded INTEGER NOT NULL DEFAULT 0 CHECK (uploaded IN (0, 1))
) WITHOUT ROWID;
CREATE INDEX sync_log_outbox ON sync_log(uploaded, hlc);
CREATE TABLE sync_state (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
`;
