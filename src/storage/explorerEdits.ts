/**
 * The person's edits in the memory explorer (SQL behind core's ExplorerStore): an episode's title
 * and narrative, a fact, scene rename / merge / split, profile edits, pins and conflicts, a plan's
 * dates and its dismissal. An edit that replaces the model's words writes a tombstone for them
 * (explorerDeletes.ts) so synthesis does not write them back beside the correction.
 */
import type { Sql, SqlRow } from '../core/base/sql';
import type { FactEdit, ForesightEdit, MemCellEdit, FactView } from '../core/explorer/explorer';
import type { ProfileHistoryEntry } from '../core/synthesis/knowledge';
import { SCENE_USER_TITLE } from '../core/synthesis/knowledge';
import { RecollectError } from '../core/base/errors';
import { FACT_VIEW, marks, num, numOrNull, str, strOrNull, toFact } from './explorerRows';
import { encodeVector } from './vectorRepo';
import { sceneLostMembers, tombstone } from './explorerDeletes';

export async function editMemCell(sql: Sql, id: string, patch: MemCellEdit, now: number): Promise<void> {
  await sql.exec(
    `UPDATE memcells SET title = coalesce(?, title), narrative = coalesce(?, narrative), edited_by_user = 1, updated_at = ? WHERE id = ?`,
    [patch.title?.trim() ?? null, patch.narrative?.trim() ?? null, now, id],
  );
  if (sql.changes() === 0) throw new RecollectError('NOT_FOUND', 'This episode no longer exists.');
}

export function editFact(sql: Sql, id: string, patch: FactEdit, now: number): Promise<FactView> {
  return sql.transaction(async (tx) => {
    const [old] = await tx.query(`${FACT_VIEW} WHERE id = ?`, [id]);
    if (!old) throw new RecollectError('NOT_FOUND', 'This fact no longer exists.');
    const content = patch.content?.trim();
    if (patch.content !== undefined && !content) throw new RecollectError('INVALID_INPUT', 'A fact cannot be empty; delete it instead.');
    if (content && content !== str(old.content)) {
      // The pipeline must not write the old wording back next to the correction.
      await tombstone(tx, { kind: 'fact', itemId: id, text: str(old.content), memcellId: str(old.memcell_id), reason: 'edited' }, now);
      await tx.exec("DELETE FROM vectors WHERE item_kind = 'fact' AND item_id = ?", [id]);
    }
    await tx.exec(`UPDATE facts SET content = ?, valid_from = ?, valid_to = ?, edited_by_user = 1, updated_at = ? WHERE id = ?`, [
      content ?? str(old.content),
      patch.validFrom === undefined ? numOrNull(old.valid_from) : patch.validFrom,
      patch.validTo === undefined ? numOrNull(old.valid_to) : patch.validTo,
      now,
      id,
    ]);
    const [row] = await tx.query(`${FACT_VIEW} WHERE id = ?`, [id]);
    return toFact(row!);
  });
}

export async function renameScene(sql: Sql, id: string, title: string, now: number): Promise<void> {
  const t = title.trim();
  if (!t) throw new RecollectError('INVALID_INPUT', 'A scene needs a name.');
  await sql.exec('UPDATE memscenes SET title = ?, edited_by_user = edited_by_user | ?, updated_at = ? WHERE id = ?', [
    t,
    SCENE_USER_TITLE,
    now,
    id,
  ]);
  if (sql.changes() === 0) throw new RecollectError('NOT_FOUND', 'This scene no longer exists.');
}

export function mergeScenes(
  sql: Sql,
  targetId: string,
  sourceIds: readonly string[],
  centroid: Float32Array | null,
  now: number,
): Promise<void> {
  return sql.transaction(async (tx) => {
    const sources = sourceIds.filter((s) => s !== targetId);
    if (sources.length === 0) throw new RecollectError('INVALID_INPUT', 'Pick at least one other scene to merge.');
    const [t] = await tx.query('SELECT id FROM memscenes WHERE id = ?', [targetId]);
    if (!t) throw new RecollectError('NOT_FOUND', 'The scene to merge into no longer exists.');
    await tx.exec(`UPDATE memcells SET scene_id = ?, updated_at = ? WHERE scene_id IN (${marks(sources.length)})`, [
      targetId,
      now,
      ...sources,
    ]);
    await tx.exec(`DELETE FROM memscenes WHERE id IN (${marks(sources.length)})`, sources);
    await sceneLostMembers(tx, targetId, now); // recount and refresh the summary
    if (centroid) await tx.exec('UPDATE memscenes SET centroid = ? WHERE id = ?', [encodeVector(centroid), targetId]);
  });
}

export function splitScene(
  sql: Sql,
  sceneId: string,
  memcellIds: readonly string[],
  newId: string,
  title: string | null,
  centroids: { kept: Float32Array | null; split: Float32Array | null },
  now: number,
): Promise<void> {
  return sql.transaction(async (tx) => {
    const [s] = await tx.query('SELECT centroid_model FROM memscenes WHERE id = ?', [sceneId]);
    if (!s) throw new RecollectError('NOT_FOUND', 'This scene no longer exists.');
    if (memcellIds.length === 0) throw new RecollectError('INVALID_INPUT', 'Pick the episodes to move into the new scene.');
    const moving = await tx.query(`SELECT id, end_at FROM memcells WHERE scene_id = ? AND id IN (${marks(memcellIds.length)})`, [
      sceneId,
      ...memcellIds,
    ]);
    if (moving.length === 0) throw new RecollectError('INVALID_INPUT', 'None of these episodes belongs to the scene.');
    const t = title?.trim() || null;
    await tx.exec(
      `INSERT INTO memscenes (id, title, centroid, centroid_model, member_count, last_activity_at, summary_stale, edited_by_user, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?)`,
      [
        newId,
        t,
        centroids.split ? encodeVector(centroids.split) : null,
        s.centroid_model ?? null,
        moving.length,
        Math.max(...moving.map((m) => num(m.end_at))),
        t ? 1 : 0,
        now,
        now,
      ],
    );
    await tx.exec(`UPDATE memcells SET scene_id = ?, updated_at = ? WHERE id IN (${marks(moving.length)})`, [
      newId,
      now,
      ...moving.map((m) => str(m.id)),
    ]);
    const kept = await sceneLostMembers(tx, sceneId, now);
    if (kept && centroids.kept) await tx.exec('UPDATE memscenes SET centroid = ? WHERE id = ?', [encodeVector(centroids.kept), sceneId]);
  });
}

async function profileHistory(
  tx: Sql,
  id: string,
  op: ProfileHistoryEntry['op'],
  value: string | null,
  reason: string,
  now: number,
): Promise<void> {
  await tx.exec(
    "INSERT INTO profile_item_history (profile_item_id, op, value, confidence, evidence, reason, changed_at) VALUES (?, ?, ?, NULL, '[]', ?, ?)",
    [id, op, value, reason, now],
  );
}

async function profileRow(tx: Sql, id: string): Promise<SqlRow> {
  const [r] = await tx.query("SELECT id, key, value, status FROM profile_items WHERE id = ? AND status IN ('active', 'conflict')", [id]);
  if (!r) throw new RecollectError('NOT_FOUND', 'This profile item no longer exists.');
  return r;
}

export function editProfileItem(sql: Sql, id: string, value: string, now: number): Promise<void> {
  return sql.transaction(async (tx) => {
    const v = value.trim();
    if (!v) throw new RecollectError('INVALID_INPUT', 'A profile item needs a value; delete it instead.');
    const r = await profileRow(tx, id);
    // An edit is the user's answer: it pins the item and settles an open conflict.
    await tx.exec(
      "UPDATE profile_items SET value = ?, edited_by_user = 1, status = 'active', confidence = 1, updated_at = ? WHERE id = ?",
      [v, now, id],
    );
    await profileHistory(tx, id, r.status === 'conflict' ? 'resolve' : 'update', v, 'edited by the user', now);
  });
}

export async function pinProfileItem(sql: Sql, id: string, pinned: boolean, now: number): Promise<void> {
  await sql.exec("UPDATE profile_items SET edited_by_user = ?, updated_at = ? WHERE id = ? AND status IN ('active', 'conflict')", [
    pinned ? 1 : 0,
    now,
    id,
  ]);
  if (sql.changes() === 0) throw new RecollectError('NOT_FOUND', 'This profile item no longer exists.');
}

export function resolveProfileConflict(sql: Sql, id: string, choice: 'keep' | 'accept', now: number): Promise<void> {
  return sql.transaction(async (tx) => {
    const r = await profileRow(tx, id);
    if (r.status !== 'conflict') throw new RecollectError('INVALID_INPUT', 'This profile item has no conflict to resolve.');
    const [c] = await tx.query(
      "SELECT value FROM profile_item_history WHERE profile_item_id = ? AND op = 'conflict' ORDER BY changed_at DESC, id DESC LIMIT 1",
      [id],
    );
    if (choice === 'keep') {
      await tx.exec("UPDATE profile_items SET status = 'active', updated_at = ? WHERE id = ?", [now, id]);
      await profileHistory(tx, id, 'resolve', str(r.value), 'the user kept the current value', now);
    } else if (c && c.value !== null) {
      // Accepting the pipeline's value also unpins, so later evidence can update it.
      await tx.exec("UPDATE profile_items SET value = ?, status = 'active', edited_by_user = 0, updated_at = ? WHERE id = ?", [
        str(c.value),
        now,
        id,
      ]);
      await profileHistory(tx, id, 'resolve', str(c.value), 'the user accepted the proposed value', now);
    } else {
      await tx.exec("UPDATE profile_items SET status = 'deleted', updated_at = ? WHERE id = ?", [now, id]);
      await profileHistory(tx, id, 'resolve', null, 'the user accepted the proposed deletion', now);
    }
  });
}

export function editForesight(sql: Sql, id: string, patch: ForesightEdit, now: number): Promise<void> {
  return sql.transaction(async (tx) => {
    const [r] = await tx.query('SELECT content, memcell_id, source, status FROM foresights WHERE id = ?', [id]);
    if (!r) throw new RecollectError('NOT_FOUND', 'This foresight item no longer exists.');
    if (patch.startAt !== null && patch.endAt !== null && patch.endAt < patch.startAt)
      throw new RecollectError('INVALID_INPUT', 'The end of the validity is before its start.');
    const content = patch.content?.trim() || str(r.content);
    // Re-timed by the user: source 'user' survives re-synthesis, and the tombstone keeps the
    // model's original from being written again beside it.
    if (str(r.source) !== 'user')
      await tombstone(
        tx,
        { kind: 'foresight', itemId: id, text: str(r.content), memcellId: strOrNull(r.memcell_id), reason: 'edited' },
        now,
      );
    const status = r.status === 'dismissed' ? 'dismissed' : patch.endAt !== null && patch.endAt < now ? 'expired' : 'active';
    await tx.exec("UPDATE foresights SET content = ?, start_at = ?, end_at = ?, source = 'user', status = ?, updated_at = ? WHERE id = ?", [
      content,
      patch.startAt,
      patch.endAt,
      status,
      now,
      id,
    ]);
  });
}

export function dismissForesight(sql: Sql, id: string, now: number): Promise<void> {
  return sql.transaction(async (tx) => {
    const [r] = await tx.query('SELECT content, memcell_id FROM foresights WHERE id = ?', [id]);
    if (!r) throw new RecollectError('NOT_FOUND', 'This foresight item no longer exists.');
    await tombstone(
      tx,
      { kind: 'foresight', itemId: id, text: str(r.content), memcellId: strOrNull(r.memcell_id), reason: 'dismissed' },
      now,
    );
    await tx.exec("UPDATE foresights SET status = 'dismissed', updated_at = ? WHERE id = ?", [now, id]);
  });
}
