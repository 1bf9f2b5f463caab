/** SQL for a conversation's title and who made it (its metadata's `titledBy`): renames and retitles after a deletion. */
import type { Sql } from '../core/base/sql';
import type { TitleSource } from '../core/base/types';

/** The conversation's metadata as a JSON object (`{}` when it holds none or no valid JSON). */
export const CONVERSATION_METADATA = `CASE WHEN json_valid(metadata) THEN metadata ELSE '{}' END`;

/** Sets the title and who made it; `updatedAt`, when given, moves the conversation up the list. */
export async function writeTitle(sql: Sql, id: string, title: string, by: TitleSource, updatedAt?: number): Promise<void> {
  await sql.exec(
    `UPDATE conversations SET title = ?, ${updatedAt === undefined ? '' : 'updated_at = ?, '}metadata = json_set(${CONVERSATION_METADATA}, '$.titledBy', ?) WHERE id = ?`,
    updatedAt === undefined ? [title, by, id] : [title, updatedAt, by, id],
  );
}
