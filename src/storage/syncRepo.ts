/**
 * SQL of the sync event log and state (schema v17, core/sync/syncPorts.ts). The log is keyed by
 * event id, so adding an event twice (a duplicated delivery, a re-upload read back) stores it once.
 */
import type { Sql } from '../core/base/sql';
import { parseSyncEvent, type SyncEvent } from '../core/sync/syncEvents';
import type { SyncLogStore, SyncOrigin, SyncStateRecord } from '../core/sync/syncPorts';

const STATE_KEYS = ['deviceId', 'ownerId', 'relayUrl', 'offset', 'hlc', 'lastSyncedAt', 'retiring', 'shareEndpoint'] as const;

export class SqlSyncLog implements SyncLogStore {
  constructor(private readonly db: Sql) {}

  add(events: readonly SyncEvent[], origin: SyncOrigin): Promise<SyncEvent[]> {
    return this.db.transaction(async (tx) => {
      const added: SyncEvent[] = [];
      for (const e of events) {
        await tx.exec('INSERT OR IGNORE INTO sync_log (event_id, hlc, kind, body, origin, uploaded) VALUES (?, ?, ?, ?, ?, ?)', [
          e.id,
          e.hlc,
          e.kind,
          JSON.stringify(e),
          origin,
          // Another device's event is on the relay already (that is where it came from).
          origin === 'remote' ? 1 : 0,
        ]);
        if (tx.changes() > 0) added.push(e);
      }
      return added;
    });
  }

  async all(): Promise<SyncEvent[]> {
    const rows = await this.db.query<{ body: string }>('SELECT body FROM sync_log ORDER BY hlc, event_id');
    return rows.map((r) => parseSyncEvent(JSON.parse(r.body)));
  }

  async outbox(limit: number): Promise<SyncEvent[]> {
    const rows = await this.db.query<{ body: string }>('SELECT body FROM sync_log WHERE uploaded = 0 ORDER BY hlc, event_id LIMIT ?', [
      limit,
    ]);
    return rows.map((r) => parseSyncEvent(JSON.parse(r.body)));
  }

  async outboxCount(): Promise<number> {
    const [row] = await this.db.query<{ n: number }>('SELECT count(*) AS n FROM sync_log WHERE uploaded = 0');
    return Number(row?.n ?? 0);
  }

  markUploaded(ids: readonly string[]): Promise<void> {
    return this.db.transaction(async (tx) => {
      for (const id of ids) await tx.exec('UPDATE sync_log SET uploaded = 1 WHERE event_id = ?', [id]);
    });
  }

  async held(ids: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += 500) {
      const chunk = unique.slice(i, i + 500);
      const rows = await this.db.query<{ event_id: string }>(
        `SELECT event_id FROM sync_log WHERE event_id IN (${chunk.map(() => '?').join(', ')})`,
        chunk,
      );
      for (const r of rows) out.add(r.event_id);
    }
    return out;
  }

  reupload(): Promise<number> {
    return this.db.transaction(async (tx) => {
      await tx.exec('UPDATE sync_log SET uploaded = 0');
      return tx.changes();
    });
  }

  forgetText(kind: 'turn' | 'memory', id: string): Promise<void> {
    const [field, kinds] =
      kind === 'turn' ? ['$.turnId', ['turn.appended', 'turn.edited']] : ['$.memoryId', ['memory.written', 'memory.edited']];
    return this.db.transaction(async (tx) => {
      await tx.exec(
        `UPDATE sync_log SET body = json_set(body, '$.text', '') WHERE kind IN (?, ?) AND json_extract(body, '${field}') = ? AND json_extract(body, '$.text') <> ''`,
        [kinds[0]!, kinds[1]!, id],
      );
      if (tx.changes() > 0) tx.contentRemoved?.();
    });
  }

  forgetOldTitles(conversationId: string, beforeHlc: string): Promise<void> {
    return this.db.transaction(async (tx) => {
      await tx.exec(
        `UPDATE sync_log SET body = json_set(body, '$.title', '') WHERE kind IN ('conversation.created', 'conversation.renamed')
           AND json_extract(body, '$.conversationId') = ? AND hlc < ? AND json_extract(body, '$.title') <> ''`,
        [conversationId, beforeHlc],
      );
      if (tx.changes() > 0) tx.contentRemoved?.();
    });
  }

  async state(): Promise<SyncStateRecord> {
    const rows = await this.db.query<{ key: string; value: string }>('SELECT key, value FROM sync_state');
    const get = (k: string) => rows.find((r) => r.key === k)?.value ?? null;
    const at = get('lastSyncedAt');
    return {
      deviceId: get('deviceId'),
      ownerId: get('ownerId'),
      relayUrl: get('relayUrl'),
      offset: get('offset'),
      hlc: get('hlc'),
      lastSyncedAt: at === null ? null : Number(at),
      retiring: get('retiring'),
      shareEndpoint: get('shareEndpoint'),
    };
  }

  setState(patch: Partial<SyncStateRecord>): Promise<void> {
    return this.db.transaction(async (tx) => {
      for (const key of STATE_KEYS) {
        if (!(key in patch)) continue;
        const value = patch[key];
        if (value === null || value === undefined) await tx.exec('DELETE FROM sync_state WHERE key = ?', [key]);
        else await tx.exec('INSERT OR REPLACE INTO sync_state (key, value) VALUES (?, ?)', [key, String(value)]);
      }
    });
  }

  clear(): Promise<void> {
    return this.db.transaction(async (tx) => {
      await tx.exec('DELETE FROM sync_log');
      await tx.exec('DELETE FROM sync_state');
      tx.contentRemoved?.();
    });
  }
}
