/**
 * Deleted means gone from the live files too, not only from the rows and the export: on a file
 * database with the browser's journal (write-ahead log, exclusive locking; writeAheadLog.ts), over
 * the same wa-sqlite build as the other unit tests and a VFS on Node's file API, a deleted turn's
 * words are searched in the raw bytes of the database file and of its `-wal` file. The log keeps
 * every page as it was written until a checkpoint copies it back and the log is reset, so a frame
 * written before the deletion still holds the turn unless the deletion truncates the log.
 *
 * In the log nothing of it may stay, not even a word. In the database file the text itself may not
 * stay; single index terms still can, because the full-text indexes are contentless with
 * contentless_delete, where a deletion only marks the row deleted and its terms go at the next merge
 * of that segment (FTS5 `secure-delete` does not apply to such tables) — a known gap, not tested here.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openFileStore } from '../../src/storage/openNodeDatabase';
import { SqlExplorerStore } from '../../src/storage/explorerRepo';
import { JOURNAL_SIZE_LIMIT } from '../../src/storage/writeAheadLog';

const MARKER = 'Quorvandel';
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function fileStore() {
  const dir = mkdtempSync(join(tmpdir(), 'recollect-log-'));
  dirs.push(dir);
  const path = join(dir, 'memory.sqlite');
  const store = await openFileStore(path, { journal: 'wal' });
  const [mode] = await store.db.query<{ journal_mode: string }>('PRAGMA journal_mode');
  expect(mode!.journal_mode).toBe('wal');
  const [limit] = await store.db.query<{ journal_size_limit: number }>('PRAGMA journal_size_limit');
  expect(Number(limit!.journal_size_limit)).toBe(JOURNAL_SIZE_LIMIT);
  /**
   * Where in the live files the deleted text is: its words as written, in the log also as an index
   * term (lowercased); the database file is searched for the text, not for a term (see above).
   */
  const found = () => {
    const where: string[] = [];
    const wal = existsSync(`${path}-wal`) ? readFileSync(`${path}-wal`) : Buffer.alloc(0);
    if (wal.includes(MARKER) || wal.includes(MARKER.toLowerCase())) where.push('wal');
    if (readFileSync(path).includes(MARKER)) where.push('database');
    return where;
  };
  return { store, path, found };
}

const turns = (conversationId: string) => [
  { id: `${conversationId}1`, conversationId, role: 'user' as const, speaker: 'You', content: `My ${MARKER} account number is on the card in the blue drawer.` },
  { id: `${conversationId}2`, conversationId, role: 'user' as const, speaker: 'You', content: 'Remind me to water the ferns on Sunday.' },
];

describe('a deletion on the live files', () => {
  it('leaves a deleted turn in neither the database file nor its write-ahead log', async () => {
    const { store, path, found } = await fileStore();
    await store.createConversation({ id: 'c', title: 'Notes' });
    await store.appendTurns(turns('c'));
    expect(found()).toContain('wal'); // the search is real: the committed turn is in the log
    expect(await store.deleteMessage('c1')).toBe(true);
    expect(found()).toEqual([]);
    expect(statSync(`${path}-wal`).size).toBe(0); // truncated, not only overwritten in part
    // The database is whole and still holds the rest.
    expect((await store.listMessages('c')).map((m) => m.id)).toEqual(['c2']);
    await store.db.close();
  });

  it('leaves a deleted conversation in neither file', async () => {
    const { store, found } = await fileStore();
    await store.createConversation({ id: 'd', title: `${MARKER} plans` });
    await store.appendTurns(turns('d'));
    await store.deleteConversation('d');
    expect(found()).toEqual([]);
    await store.db.close();
  });

  it('leaves a title forgotten by Forget in neither file', async () => {
    const { store, found } = await fileStore();
    await store.createConversation({ id: 't', title: `Trip with ${MARKER} in May` });
    await store.appendTurns(turns('t').slice(1));
    expect(found()).toContain('wal');
    await new SqlExplorerStore(store.db).forget([{ kind: 'title', id: 't' }], 1, MARKER);
    expect((await store.getConversation('t'))!.title).not.toContain(MARKER);
    expect(found()).toEqual([]);
    await store.db.close();
  });

  it('leaves a deleted fact in neither file', async () => {
    const { store, found } = await fileStore();
    await store.createConversation({ id: 'e', title: 'Notes' });
    await store.appendTurns(turns('e').slice(1));
    await store.db.exec(`INSERT INTO memcells (id, conversation_id, first_seq, last_seq, start_at, end_at, status, created_at, updated_at) VALUES ('m1', 'e', 0, 0, 0, 0, 'synthesised', 0, 0)`);
    await store.db.exec(`INSERT INTO facts (id, memcell_id, speaker, content, created_at, updated_at) VALUES ('f1', 'm1', 'You', ?, 0, 0)`, [`The user keeps the ${MARKER} card in a blue drawer.`]);
    expect(found()).toContain('wal');
    expect(await new SqlExplorerStore(store.db).deleteFact('f1', 1)).toBe(true);
    expect(found()).toEqual([]);
    await store.db.close();
  });
});
