/** SQL for conversations. Every function takes the `Sql` to run on, so callers choose the transaction. */
import type { Sql } from '../core/base/sql';
import type { Conversation, ConversationMemory, ConversationModel, ConversationPlace, TitleSource } from '../core/base/types';
import { titleSourceOf } from '../core/base/titles';
import { RecollectError } from '../core/base/errors';
import { MAX_TITLE_CHARS } from '../core/base/limits';
import { deleteTurnsWhere } from './deletedTurns';
import { writeTitle } from './titleRepo';

interface ConversationRow {
  [key: string]: string | number | null;
  id: string;
  title: string;
  created_at: number;
  updated_at: number;
  message_count: number;
  use_memory: number;
  remember: number;
  titled_by: string | null;
  project_id: string | null;
  pinned_at: number | null;
  archived_at: number | null;
  answer_model: string | null;
}

const SELECT = `SELECT c.id, c.title, c.created_at, c.updated_at, c.use_memory, c.remember, c.project_id, c.pinned_at, c.archived_at, c.answer_model, json_extract(c.metadata, '$.titledBy') AS titled_by,
  (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id) AS message_count
  FROM conversations c`;

function toConversation(r: ConversationRow): Conversation {
  return {
    id: r.id,
    title: r.title,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    messageCount: Number(r.message_count),
    useMemory: Number(r.use_memory) !== 0,
    remember: Number(r.remember) !== 0,
    titledBy: titleSourceOf(r.titled_by, r.title).titledBy,
    projectId: typeof r.project_id === 'string' ? r.project_id : null,
    pinned: r.pinned_at !== null,
    archived: r.archived_at !== null,
    model: modelFromColumn(r.answer_model),
  };
}

/** answer_model (schema v15): NULL, 'device' or 'endpoint:<name>'. */
function modelFromColumn(value: string | null): ConversationModel {
  if (value === 'device') return { kind: 'device' };
  if (typeof value === 'string' && value.startsWith('endpoint:') && value.length > 'endpoint:'.length)
    return { kind: 'endpoint', name: value.slice('endpoint:'.length) };
  return null;
}

function modelColumn(model: ConversationModel): string | null {
  return model === null ? null : model.kind === 'device' ? 'device' : `endpoint:${model.name}`;
}

export function cleanTitle(title: string): string {
  const t = title.replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE_CHARS);
  if (!t) throw new RecollectError('INVALID_INPUT', 'A conversation needs a title.');
  return t;
}

export async function getConversation(sql: Sql, id: string): Promise<Conversation | null> {
  const [row] = await sql.query<ConversationRow>(`${SELECT} WHERE c.id = ?`, [id]);
  return row ? toConversation(row) : null;
}

export async function requireConversation(sql: Sql, id: string): Promise<Conversation> {
  const c = await getConversation(sql, id);
  if (!c) throw new RecollectError('NOT_FOUND', 'That conversation no longer exists.');
  return c;
}

export async function listConversations(sql: Sql): Promise<Conversation[]> {
  const rows = await sql.query<ConversationRow>(`${SELECT} ORDER BY c.updated_at DESC, c.id`);
  return rows.map(toConversation);
}

/** Creates the conversation (in `projectId` when given); one that exists stays as it is, project included. */
export async function insertConversation(
  sql: Sql,
  id: string,
  title: string,
  now: number,
  memory: Partial<ConversationMemory> = {},
  projectId: string | null = null,
): Promise<Conversation> {
  await sql.exec(
    'INSERT INTO conversations (id, title, created_at, updated_at, use_memory, remember, project_id) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING',
    [
      id,
      cleanTitle(title),
      Math.round(now),
      Math.round(now),
      memory.useMemory === false ? 0 : 1,
      memory.remember === false ? 0 : 1,
      projectId,
    ],
  );
  return requireConversation(sql, id);
}

export async function setConversationMemory(sql: Sql, id: string, patch: Partial<ConversationMemory>): Promise<Conversation> {
  await requireConversation(sql, id);
  if (patch.useMemory !== undefined) await sql.exec('UPDATE conversations SET use_memory = ? WHERE id = ?', [patch.useMemory ? 1 : 0, id]);
  if (patch.remember !== undefined) await sql.exec('UPDATE conversations SET remember = ? WHERE id = ?', [patch.remember ? 1 : 0, id]);
  return requireConversation(sql, id);
}

/** Pins or archives (or undoes either); the time is kept, the conversation's own time is not touched. */
export async function placeConversation(sql: Sql, id: string, patch: Partial<ConversationPlace>, now: number): Promise<Conversation> {
  await requireConversation(sql, id);
  const at = Math.round(now);
  if (patch.pinned !== undefined) await sql.exec('UPDATE conversations SET pinned_at = ? WHERE id = ?', [patch.pinned ? at : null, id]);
  if (patch.archived !== undefined)
    await sql.exec('UPDATE conversations SET archived_at = ? WHERE id = ?', [patch.archived ? at : null, id]);
  return requireConversation(sql, id);
}

export async function setConversationModel(sql: Sql, id: string, model: ConversationModel): Promise<Conversation> {
  await requireConversation(sql, id);
  await sql.exec('UPDATE conversations SET answer_model = ? WHERE id = ?', [modelColumn(model), id]);
  return requireConversation(sql, id);
}

export async function conversationsNotRemembered(sql: Sql): Promise<string[]> {
  const rows = await sql.query<{ id: string }>('SELECT id FROM conversations WHERE remember = 0');
  return rows.map((r) => r.id);
}

export async function renameConversation(
  sql: Sql,
  id: string,
  title: string,
  now: number,
  by: TitleSource = 'user',
): Promise<Conversation> {
  await writeTitle(sql, id, cleanTitle(title), by, now);
  return requireConversation(sql, id);
}

export async function touchConversation(sql: Sql, id: string, now: number): Promise<void> {
  await sql.exec('UPDATE conversations SET updated_at = max(updated_at, ?) WHERE id = ?', [now, id]);
}

/** Deletes the conversation; its messages (and through their triggers, FTS rows and vectors) cascade. */
export async function deleteConversation(sql: Sql, id: string): Promise<void> {
  // Delete messages explicitly first so their AFTER DELETE triggers run (FK cascades fire them too,
  // but being explicit keeps this correct even if foreign_keys were ever off on a connection).
  await deleteTurnsWhere(sql, 'conversation_id = ?', [id]);
  // Hidden versions of its turns (schemaV18.ts) go too: deleted means gone.
  await sql.exec('DELETE FROM turn_versions WHERE conversation_id = ?', [id]);
  await sql.exec('DELETE FROM conversations WHERE id = ?', [id]);
  if (sql.changes() > 0) sql.contentRemoved?.(); // its title, even with no turn left
}
