/**
 * Titles after a deletion: a conversation's automatic title that was made from a deleted turn is
 * remade from the turns that remain (core/base/titles.ts titleAfterDeletion decides), in the
 * deletion's transaction, so the deleted words leave the sidebar and the file together with the
 * turn. `updated_at` is left alone: a deletion does not move a conversation up the list.
 */
import type { Sql } from '../core/base/sql';
import { titleAfterDeletion, titleSourceOf, type TitleTurn } from '../core/base/titles';
import { CONVERSATION_METADATA, writeTitle } from './titleRepo';

/** Remakes the titles of the conversations `deleted` turns left, where they were made from them. */
export async function retitleAfterDeletion(tx: Sql, deleted: readonly (TitleTurn & { readonly conversationId: string })[]): Promise<void> {
  const byConversation = new Map<string, TitleTurn[]>();
  for (const t of deleted) byConversation.set(t.conversationId, [...(byConversation.get(t.conversationId) ?? []), t]);
  for (const [conversationId, turns] of byConversation) {
    const [row] = await tx.query<{ title: string; titled_by: string | null }>(
      `SELECT title, json_extract(${CONVERSATION_METADATA}, '$.titledBy') AS titled_by
         FROM conversations WHERE id = ?`,
      [conversationId],
    );
    if (!row) continue;
    const source = titleSourceOf(row.titled_by, row.title);
    if (source.titledBy === 'none') continue;
    const [firstUser] = await tx.query<{ seq: number; content: string }>(
      "SELECT seq, content FROM messages WHERE conversation_id = ? AND role = 'user' ORDER BY seq LIMIT 1",
      [conversationId],
    );
    const [firstAssistant] = await tx.query<{ seq: number }>(
      "SELECT seq FROM messages WHERE conversation_id = ? AND role = 'assistant' ORDER BY seq LIMIT 1",
      [conversationId],
    );
    const next = titleAfterDeletion({ title: row.title, ...source }, turns, {
      firstUser: firstUser ? { role: 'user', seq: Number(firstUser.seq), content: String(firstUser.content) } : null,
      firstAssistantSeq: firstAssistant ? Number(firstAssistant.seq) : null,
    });
    if (!next) continue;
    await writeTitle(tx, conversationId, next.title, next.titledBy);
  }
}
