/**
 * What the person deleted of what the model made — a fact, a plan, a profile item — as sync sees it
 * (core/engine/syncWrites.ts, `derived.forgotten`): the tombstones' hashes (schemaV5.ts; a hash of
 * the normalised words, never the words), and on the receiving side the same tombstones written
 * here with the items they name found, so they go and the model never writes them again.
 */
import type { Sql } from '../core/base/sql';
import { tombstoneHash } from '../core/explorer/explorerText';

export type ForgottenKind = 'fact' | 'foresight' | 'profile';
export interface Forgotten {
  readonly item: ForgottenKind;
  readonly textHash: string;
}

/** Every item the person deleted here, by kind and hash (deletions only: edits and dismissals stay on the device). */
export async function forgottenHashes(sql: Sql): Promise<Forgotten[]> {
  const rows = await sql.query<{ kind: ForgottenKind; h: string }>(
    "SELECT DISTINCT kind, text_hash AS h FROM tombstones WHERE kind IN ('fact', 'foresight', 'profile') AND reason = 'deleted' AND text_hash IS NOT NULL",
  );
  return rows.map((r) => ({ item: r.kind, textHash: String(r.h) }));
}

/**
 * Writes the tombstones another device's deletions left (so synthesis and profile updates here
 * skip those words too) and returns the live items they name: facts and plans by their words,
 * the model's profile items (not written or edited by the person) by their key.
 */
export async function adoptForgotten(
  tx: Sql,
  forgotten: readonly Forgotten[],
  now: number,
): Promise<{ kind: ForgottenKind; id: string }[]> {
  const held = new Set((await forgottenHashes(tx)).map((f) => `${f.item}:${f.textHash}`));
  const wanted = new Set(forgotten.map((f) => `${f.item}:${f.textHash}`));
  for (const f of forgotten) {
    if (held.has(`${f.item}:${f.textHash}`)) continue;
    await tx.exec("INSERT INTO tombstones (kind, item_id, text_hash, reason, created_at) VALUES (?, 'sync', ?, 'deleted', ?)", [
      f.item,
      f.textHash,
      now,
    ]);
  }
  const out: { kind: ForgottenKind; id: string }[] = [];
  const match = (kind: ForgottenKind, text: string) => wanted.has(`${kind}:${tombstoneHash(text)}`);
  const kinds = new Set(forgotten.map((f) => f.item));
  if (kinds.has('fact'))
    for (const r of await tx.query<{ id: string; content: string }>('SELECT id, content FROM facts'))
      if (match('fact', String(r.content))) out.push({ kind: 'fact', id: String(r.id) });
  if (kinds.has('foresight'))
    for (const r of await tx.query<{ id: string; content: string }>("SELECT id, content FROM foresights WHERE source <> 'user'"))
      if (match('foresight', String(r.content))) out.push({ kind: 'foresight', id: String(r.id) });
  if (kinds.has('profile'))
    for (const r of await tx.query<{ id: string; key: string }>(
      "SELECT id, key FROM profile_items WHERE edited_by_user = 0 AND status <> 'deleted'",
    ))
      if (match('profile', String(r.key))) out.push({ kind: 'profile', id: String(r.id) });
  return out;
}
