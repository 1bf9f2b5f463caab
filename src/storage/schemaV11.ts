/**
 * v11: no raw ChatGPT markup in stored turns.
 *
 * ChatGPT answers carry private-use markers for citations, file citations, image strips and
 * entity links (`\ue200cite\ue202turn0search19\ue201`, older `【8†source】`; core/base/chatgptMarkup).
 * The history import strips them now; turns imported by earlier versions still hold them and the
 * chat showed them raw (296 of 16,914 turns of one real archive). This strips them from the
 * ChatGPT-imported turns that hold any (ids `chatgpt:…`; text typed in Recollect is left alone),
 * in pages inside the migration's transaction. The update triggers keep both full-text indexes in
 * step (messages_fts, and turns_fts for the turn and its neighbours). Vectors are left as they are:
 * the markers are a few tokens of a turn's text. A turn that would be left empty (an answer that
 * was only a marker) keeps its text: a turn is never emptied or deleted by a migration.
 */
import type { Sql } from '../core/base/sql';
import { stripChatGptMarkup } from '../core/base/chatgptMarkup';
import { charsOverFour } from '../core/base/tokens';
import type { MigrationProgress } from './schemaV9';

export const v11 = '';

const PAGE = 500;
/** Turns that may hold markup: a private-use character of ChatGPT's range (U+E200–U+E2FF), or 【. */
const CANDIDATES = `FROM messages WHERE id LIKE 'chatgpt:%' AND content GLOB '*[' || char(57856) || '-' || char(58111) || '【]*'`;

export async function stripStoredChatGptMarkup(tx: Sql, onProgress?: MigrationProgress): Promise<void> {
  const [count] = await tx.query<{ n: number }>(`SELECT count(*) AS n ${CANDIDATES}`);
  const total = Number(count?.n ?? 0);
  if (total === 0) return; // nothing to report either: most memories hold no markup
  onProgress?.(0, total);
  let done = 0;
  for (let after = 0; done < total;) {
    const rows = await tx.query<{ pk: number; content: string }>(`SELECT pk, content ${CANDIDATES} AND pk > ? ORDER BY pk LIMIT ${PAGE}`, [
      after,
    ]);
    if (rows.length === 0) break;
    for (const { pk, content } of rows) {
      const stripped = stripChatGptMarkup(content).trim();
      if (stripped !== content && stripped.length > 0) {
        await tx.exec('UPDATE messages SET content = ?, token_count = ? WHERE pk = ?', [stripped, charsOverFour(stripped), pk]);
      }
    }
    done += rows.length;
    after = Number(rows[rows.length - 1]!.pk);
    onProgress?.(Math.min(done, total), total);
  }
}
