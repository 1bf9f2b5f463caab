/**
 * SQL behind synced profile records (core/synthesis/derivedProfile.ts): episodes as their turns and
 * turns as the episodes holding them here, the items the model made, and how far this device
 * applied the records (a `meta` row).
 */
import type { Sql } from '../core/base/sql';
import type { DerivedProfileStore, ProfileSyncState } from '../core/synthesis/derivedProfile';
import { UPDATE_PROFILE } from '../core/synthesis/Consolidator';
import { dropProfileFrom } from './deletedTurns';
import { IN_CHUNK, marks } from './explorerRows';

/** meta key of how far the records were applied (ProfileSyncState as JSON). */
export const PROFILE_SYNC_META_KEY = 'sync.profile.applied';

export class SqlDerivedProfiles implements DerivedProfileStore {
  constructor(private readonly sql: Sql) {}

  async turnsOfEpisodes(memcellIds: readonly string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    const ids = [...new Set(memcellIds)];
    for (let i = 0; i < ids.length; i += IN_CHUNK) {
      const chunk = ids.slice(i, i + IN_CHUNK);
      const rows = await this.sql.query<{ cell: string; turn: string }>(
        `SELECT c.id AS cell, m.id AS turn FROM memcells c
           JOIN messages m ON m.conversation_id = c.conversation_id AND m.seq BETWEEN c.first_seq AND c.last_seq
          WHERE c.id IN (${marks(chunk.length)}) ORDER BY c.id, m.seq`,
        chunk,
      );
      for (const r of rows) out.set(r.cell, [...(out.get(r.cell) ?? []), r.turn]);
    }
    return out;
  }

  async episodesOfTurns(turnIds: readonly string[]): Promise<{ ids: string[]; waiting: boolean }> {
    const ids = [...new Set(turnIds)].slice(0, IN_CHUNK);
    if (!ids.length) return { ids: [], waiting: false };
    const rows = await this.sql.query<{ cell: string | null; start_at: number | null }>(
      `SELECT c.id AS cell, c.start_at FROM messages m
         LEFT JOIN memcells c ON c.conversation_id = m.conversation_id AND m.seq BETWEEN c.first_seq AND c.last_seq
        WHERE m.id IN (${marks(ids.length)})`,
      ids,
    );
    const cells = new Map<string, number>();
    for (const r of rows) if (r.cell !== null) cells.set(r.cell, Number(r.start_at));
    return {
      ids: [...cells].sort(([a, x], [b, y]) => x - y || (a < b ? -1 : a > b ? 1 : 0)).map(([id]) => id),
      waiting: rows.some((r) => r.cell === null),
    };
  }

  async updatePending(): Promise<boolean> {
    const [row] = await this.sql.query("SELECT 1 AS x FROM jobs WHERE kind = ? AND status <> 'done' LIMIT 1", [UPDATE_PROFILE]);
    return row !== undefined;
  }

  async clearModelItems(): Promise<void> {
    await this.sql.exec('DELETE FROM profile_items WHERE edited_by_user = 0'); // their history cascades
  }

  async dropItemsFrom(memcellIds: readonly string[]): Promise<void> {
    await this.sql.transaction((tx) => dropProfileFrom(tx, memcellIds));
  }

  async appliedState(): Promise<ProfileSyncState | null> {
    const [row] = await this.sql.query<{ value: string }>('SELECT value FROM meta WHERE key = ?', [PROFILE_SYNC_META_KEY]);
    if (!row) return null;
    try {
      const v = JSON.parse(row.value) as ProfileSyncState;
      return typeof v?.digest === 'string' ? v : null;
    } catch {
      return null; // unreadable: the records are applied again from the start
    }
  }

  async setAppliedState(state: ProfileSyncState | null): Promise<void> {
    if (state === null) await this.sql.exec('DELETE FROM meta WHERE key = ?', [PROFILE_SYNC_META_KEY]);
    else await this.sql.exec('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [PROFILE_SYNC_META_KEY, JSON.stringify(state)]);
  }
}
