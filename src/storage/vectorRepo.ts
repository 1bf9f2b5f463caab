/**
 * SQL for vectors (one row per item, model) and the `meta` key/value table.
 * Vectors are stored as little-endian float32 BLOBs (format 'f32'); deleting an item removes its
 * vectors through the item table's AFTER DELETE trigger (schema.ts).
 */
import type { Sql } from '../core/base/sql';
import type { ItemKind, ItemVector, PendingEmbedding } from '../core/base/store';
import { RecollectError } from '../core/base/errors';

export function encodeVector(v: Float32Array): Uint8Array {
  const out = new Uint8Array(v.length * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < v.length; i++) view.setFloat32(i * 4, v[i]!, true);
  return out;
}

export function decodeVector(blob: Uint8Array, dim: number): Float32Array {
  if (blob.byteLength !== dim * 4)
    throw new RecollectError('SQL_ERROR', `A stored vector has ${blob.byteLength} bytes; expected ${dim * 4}.`);
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const out = new Float32Array(dim);
  for (let i = 0; i < dim; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/**
 * Stores (or replaces) vectors. An item deleted while its vector was being computed gets none:
 * the existence check keeps vector counts equal to item counts, which the indexer relies on.
 */
export async function putVectors(tx: Sql, kind: ItemKind, model: string, items: readonly ItemVector[], now: number): Promise<void> {
  const { table } = ITEM_TABLES[kind];
  for (const { itemId, vector } of items) {
    await tx.exec(
      `INSERT INTO vectors (item_kind, item_id, model_id, dim, format, vector, created_at)
       SELECT ?, ?, ?, ?, 'f32', ?, ? WHERE EXISTS (SELECT 1 FROM ${table} WHERE id = ?)
       ON CONFLICT(item_kind, item_id, model_id) DO UPDATE SET dim = excluded.dim, vector = excluded.vector, created_at = excluded.created_at`,
      [kind, itemId, model, vector.length, encodeVector(vector), now, itemId],
    );
  }
}

export async function loadVectors(sql: Sql, kind: ItemKind, model: string): Promise<ItemVector[]> {
  const rows = await sql.query<{ item_id: string; dim: number; vector: Uint8Array }>(
    'SELECT item_id, dim, vector FROM vectors WHERE model_id = ? AND item_kind = ?',
    [model, kind],
  );
  return rows.map((r) => ({ itemId: r.item_id, vector: decodeVector(r.vector, Number(r.dim)) }));
}

export async function getVectors(sql: Sql, kind: ItemKind, ids: readonly string[], model: string): Promise<ItemVector[]> {
  const out: ItemVector[] = [];
  // Chunked to stay well under SQLite's bound-parameter limit.
  for (let i = 0; i < ids.length; i += 200) {
    const chunk = ids.slice(i, i + 200);
    const rows = await sql.query<{ item_id: string; dim: number; vector: Uint8Array }>(
      `SELECT item_id, dim, vector FROM vectors WHERE model_id = ? AND item_kind = ? AND item_id IN (${chunk.map(() => '?').join(',')})`,
      [model, kind, ...chunk],
    );
    for (const r of rows) out.push({ itemId: r.item_id, vector: decodeVector(r.vector, Number(r.dim)) });
  }
  return out;
}

export async function countVectors(sql: Sql, kind: ItemKind, model: string): Promise<number> {
  const [row] = await sql.query<{ n: number }>('SELECT count(*) AS n FROM vectors WHERE model_id = ? AND item_kind = ?', [model, kind]);
  return Number(row?.n ?? 0);
}

const ITEM_TABLES: Record<ItemKind, { table: string; order: string; text: string }> = {
  // `order` is the rowid (INTEGER PRIMARY KEY pk for messages): the cursor of pendingEmbeddings.
  // A message is embedded with its image caption, if any (LoCoMo-style `blip_caption` metadata).
  message: {
    table: 'messages',
    order: 't.pk',
    text: "t.content || coalesce(' [image: ' || json_extract(t.metadata, '$.caption') || ']', '')",
  },
  fact: { table: 'facts', order: 't.rowid', text: 't.content' },
  memcell: { table: 'memcells', order: 't.rowid', text: "coalesce(t.title || '. ', '') || coalesce(t.narrative, '')" },
  memscene: { table: 'memscenes', order: 't.rowid', text: "coalesce(t.title || '. ', '') || coalesce(t.summary, '')" },
};

/** `t` (a row of an item table) has no vector of the given kind and model (two parameters). */
const LACKS_VECTOR = 'NOT EXISTS (SELECT 1 FROM vectors v WHERE v.item_kind = ? AND v.item_id = t.id AND v.model_id = ?)';

export async function countItems(sql: Sql, kind: ItemKind): Promise<number> {
  const [row] = await sql.query<{ n: number }>(`SELECT count(*) AS n FROM ${ITEM_TABLES[kind].table}`);
  return Number(row?.n ?? 0);
}

export async function pendingEmbeddings(
  sql: Sql,
  kind: ItemKind,
  model: string,
  limit: number,
  after = Number.MIN_SAFE_INTEGER,
): Promise<PendingEmbedding[]> {
  const { table, order, text } = ITEM_TABLES[kind];
  const rows = await sql.query<{ id: string; text: string; key: number }>(
    `SELECT t.id AS id, ${text} AS text, ${order} AS key FROM ${table} t
      WHERE ${order} > ? AND ${LACKS_VECTOR}
      ORDER BY ${order} LIMIT ?`,
    [after, kind, model, limit],
  );
  return rows.map((r) => ({ itemId: r.id, text: r.text ?? '', key: Number(r.key) }));
}

/** Items of `kind` with a vector of `from` and none of `to`, in table order from after `after` (an embedder switch). */
export async function pendingReembed(
  sql: Sql,
  kind: ItemKind,
  from: string,
  to: string,
  limit: number,
  after = Number.MIN_SAFE_INTEGER,
): Promise<PendingEmbedding[]> {
  const { table, order, text } = ITEM_TABLES[kind];
  const rows = await sql.query<{ id: string; text: string; key: number }>(
    `SELECT t.id AS id, ${text} AS text, ${order} AS key FROM ${table} t
      WHERE ${order} > ? AND EXISTS (SELECT 1 FROM vectors v WHERE v.item_kind = ? AND v.item_id = t.id AND v.model_id = ?) AND ${LACKS_VECTOR}
      ORDER BY ${order} LIMIT ?`,
    [after, kind, from, kind, to, limit],
  );
  return rows.map((r) => ({ itemId: r.id, text: r.text ?? '', key: Number(r.key) }));
}

export async function newestPendingKey(sql: Sql, kind: ItemKind, model: string, count: number): Promise<number> {
  const { table, order } = ITEM_TABLES[kind];
  const [row] = await sql.query<{ key: number | null }>(
    `SELECT min(key) AS key FROM (SELECT ${order} AS key FROM ${table} t
      WHERE ${LACKS_VECTOR}
      ORDER BY ${order} DESC LIMIT ?)`,
    [kind, model, count],
  );
  return row?.key === null || row?.key === undefined ? Number.MAX_SAFE_INTEGER : Number(row.key);
}

/** Deletes other models' vectors of `kind`, and vectors whose item no longer exists (e.g. in an imported file). */
export async function deleteOtherVectors(sql: Sql, kind: ItemKind, keep: string): Promise<number> {
  const { table } = ITEM_TABLES[kind];
  // The candidates come from a scan of the (model, kind) index, which holds the keys but not the
  // vector blobs: measured in Node at 20,000 turns 16 ms against 47 ms for the same DELETE scanning
  // the table (it runs once per open, before the first search can use the connection).
  await sql.exec(
    `DELETE FROM vectors WHERE (item_kind, item_id, model_id) IN (
       SELECT item_kind, item_id, model_id FROM vectors INDEXED BY vectors_by_model
        WHERE item_kind = ? AND (model_id <> ? OR NOT EXISTS (SELECT 1 FROM ${table} t WHERE t.id = vectors.item_id)))`,
    [kind, keep],
  );
  return sql.changes();
}

export async function getMeta(sql: Sql, key: string): Promise<string | null> {
  const [row] = await sql.query<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key]);
  return row ? row.value : null;
}

export async function setMeta(sql: Sql, key: string, value: string): Promise<void> {
  await sql.exec('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [key, value]);
}
