/**
 * Deleted means gone from the live files too, not only from the rows and the export: on a file
 * database with the browser's journal (write-ahead log, exclusive locking; writeAheadLog.ts), over
 * the same wa-sqlite build as the other unit tests and a VFS on Node's file API, a deleted turn's
 * words are searched in the raw bytes of the database file and of its `-wal` file. The log keeps
 * every page as it was written until a checkpoint copies it back and the log is reset, so a frame
 * written before the deletion still holds the turn unless the deletion truncates the log.
 *
 * Nothing of it may stay in either file, not even a word: the full-text indexes are contentless
 * with contentless_delete, where a deletion only marks the row deleted in its segment (FTS5
 * `secure-delete` does not apply to such tables), so a deletion is followed by steps that merge
 * the indexes (deletedTerms.ts; the files are searched once `whenScrubbed()` resolves) and the
 * lowercased index term is searched for as well as the text.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openFileStore } from '../../src/storage/openNodeDatabase';
import { SqlExplorerStore } from '../../src/storage/explorerRepo';
import { JOURNAL_SIZE_LIMIT } from '../../src/storage/writeAheadLog';
import { FTS_TABLES, indexesWithDeletedTerms, resumeCutShortScrub, scrubPending } from '../../src/storage/deletedTerms';

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
  /** Where in the live files the deleted text is: its words as written, or as an index term (lowercased). */
  const holds = (bytes: Buffer) => bytes.includes(MARKER) || bytes.includes(MARKER.toLowerCase());
  /** After the deletion's scrub (the steps that merge its words out of the indexes, deletedTerms.ts) has ended. */
  const found = async () => {
    await store.whenScrubbed();
    const where: string[] = [];
    if (holds(existsSync(`${path}-wal`) ? readFileSync(`${path}-wal`) : Buffer.alloc(0))) where.push('wal');
    if (holds(readFileSync(path))) where.push('database');
    return where;
  };
  /** After a checkpoint: the committed turn's term is in the database file's index pages (the search is real). */
  const checkpointed = async () => {
    await store.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    return holds(readFileSync(path));
  };
  return { store, path, found, checkpointed };
}

/** 120 real-length turns in conversation `id` (ids `${id}0`…), the 61st holding the marker. */
async function manyTurns(store: Awaited<ReturnType<typeof openFileStore>>, id: string): Promise<void> {
  await store.createConversation({ id, title: 'Notes' });
  const filler = (i: number) =>
    `Entry ${i}: the ferns by the north window need water twice a week, and the basil wants the afternoon sun near pot ${i * 7}. `.repeat(
      9,
    );
  const many = Array.from({ length: 120 }, (_, i) => ({
    id: `${id}${i}`,
    conversationId: id,
    role: 'user' as const,
    speaker: 'You',
    content: i === 60 ? `My ${MARKER} account number is on the card in the blue drawer. ${filler(i)}` : filler(i),
  }));
  for (let i = 0; i < many.length; i += 40) await store.appendTurns(many.slice(i, i + 40));
}

const turns = (conversationId: string) => [
  {
    id: `${conversationId}1`,
    conversationId,
    role: 'user' as const,
    speaker: 'You',
    content: `My ${MARKER} account number is on the card in the blue drawer.`,
  },
  { id: `${conversationId}2`, conversationId, role: 'user' as const, speaker: 'You', content: 'Remind me to water the ferns on Sunday.' },
];

describe('a deletion on the live files', () => {
  it('leaves a deleted turn in neither the database file nor its write-ahead log', async () => {
    const { store, path, found } = await fileStore();
    await store.createConversation({ id: 'c', title: 'Notes' });
    await store.appendTurns(turns('c'));
    expect(await found()).toContain('wal'); // the search is real: the committed turn is in the log
    expect(await store.deleteMessage('c1')).toBe(true);
    expect(await found()).toEqual([]);
    expect(statSync(`${path}-wal`).size).toBe(0); // truncated, not only overwritten in part
    // The database is whole and still holds the rest.
    expect((await store.listMessages('c')).map((m) => m.id)).toEqual(['c2']);
    await store.db.close();
  });

  it('leaves no index term of a deleted turn in the database file, among many turns checkpointed before', async () => {
    const { store, found, checkpointed } = await fileStore();
    await store.createConversation({ id: 'm', title: 'Notes' });
    const filler = (i: number) =>
      `Entry ${i}: the ferns by the north window need water twice a week, and the basil wants the afternoon sun. `.repeat(11);
    const many = Array.from({ length: 60 }, (_, i) => ({
      id: `m${i}`,
      conversationId: 'm',
      role: 'user' as const,
      speaker: 'You',
      content: i === 30 ? `My ${MARKER} account number is on the card in the blue drawer. ${filler(i)}` : filler(i),
    }));
    for (let i = 0; i < many.length; i += 20) await store.appendTurns(many.slice(i, i + 20));
    expect(await checkpointed()).toBe(true); // the term is in the file's index pages, not only in the log
    expect(await store.deleteMessage('m30')).toBe(true);
    expect(await found()).toEqual([]);
    // Search still works on what is left.
    expect((await store.db.query("SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH 'ferns'"))[0]!.n).toBe(59);
    await store.db.close();
  });

  it('merges the words out in steps after the deletion returns, with reads going between them', async () => {
    const { store, path, found, checkpointed } = await fileStore();
    await manyTurns(store, 's');
    for (const t of FTS_TABLES) await store.db.exec(`INSERT INTO ${t}(${t}) VALUES ('optimize')`); // one segment, as a previous deletion leaves it
    expect(await checkpointed()).toBe(true);
    store.db.scrubStepPages = 4; // several steps for an index of this size
    expect(await store.deleteMessage('s60')).toBe(true);
    let scrubbed = false;
    void store.whenScrubbed().then(() => {
      scrubbed = true;
    });
    // A read asked for right after the deletion returned is answered before the scrub is over.
    expect(await store.countItems('message')).toBe(119);
    expect(scrubbed).toBe(false);
    expect(await found()).toEqual([]);
    expect(scrubbed).toBe(true);
    expect(statSync(`${path}-wal`).size).toBe(0);
    expect((await store.db.query("SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH 'ferns'"))[0]!.n).toBe(119);
    await store.db.close();
  });

  it('gives an export asked for right after a deletion only once its words have left the indexes', async () => {
    const { store, checkpointed } = await fileStore();
    await manyTurns(store, 'x');
    for (const t of FTS_TABLES) await store.db.exec(`INSERT INTO ${t}(${t}) VALUES ('optimize')`); // one segment
    expect(await checkpointed()).toBe(true);
    store.db.scrubStepPages = 4;
    const before = Buffer.from(await store.db.serialize());
    expect(before.includes(MARKER.toLowerCase())).toBe(true); // the search is real
    expect(await store.deleteMessage('x60')).toBe(true);
    // Not waiting for the scrub: the export does.
    const exported = Buffer.from(await store.db.serialize());
    expect(exported.includes(MARKER) || exported.includes(MARKER.toLowerCase())).toBe(false);
    expect((await store.db.query("SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH 'ferns'"))[0]!.n).toBe(119);
    await store.db.close();
  });

  it("leaves an edited turn's old words in neither file", async () => {
    const { store, found, checkpointed } = await fileStore();
    await store.createConversation({ id: 'e', title: 'Notes' });
    await store.appendTurns(turns('e'));
    expect(await checkpointed()).toBe(true);
    await store.sendTurn(
      { id: 'e1b', conversationId: 'e', role: 'user', speaker: 'You', content: 'My account number is on the card in the blue drawer.' },
      { replaces: ['e1', 'e2'] },
    );
    expect(await found()).toEqual([]);
    expect((await store.listMessages('e')).map((m) => m.content)).toEqual(['My account number is on the card in the blue drawer.']);
    await store.db.close();
  });

  it('has secure-delete set on every full-text index', async () => {
    const { store } = await fileStore();
    for (const t of FTS_TABLES) {
      const rows = await store.db.query<{ v: number }>(`SELECT v FROM ${t}_config WHERE k = 'secure-delete'`);
      expect(
        rows.map((r) => Number(r.v)),
        t,
      ).toEqual([1]);
    }
    await store.db.close();
  });

  it('leaves a deleted conversation in neither file', async () => {
    const { store, found } = await fileStore();
    await store.createConversation({ id: 'd', title: `${MARKER} plans` });
    await store.appendTurns(turns('d'));
    await store.deleteConversation('d');
    expect(await found()).toEqual([]);
    await store.db.close();
  });

  it('leaves a title forgotten by Forget in neither file', async () => {
    const { store, found } = await fileStore();
    await store.createConversation({ id: 't', title: `Trip with ${MARKER} in May` });
    await store.appendTurns(turns('t').slice(1));
    expect(await found()).toContain('wal');
    await new SqlExplorerStore(store.db).forget([{ kind: 'title', id: 't' }], 1, MARKER);
    expect((await store.getConversation('t'))!.title).not.toContain(MARKER);
    expect(await found()).toEqual([]);
    await store.db.close();
  });

  it('leaves a deleted fact in neither file', async () => {
    const { store, found } = await fileStore();
    await store.createConversation({ id: 'e', title: 'Notes' });
    await store.appendTurns(turns('e').slice(1));
    await store.db.exec(
      `INSERT INTO memcells (id, conversation_id, first_seq, last_seq, start_at, end_at, status, created_at, updated_at) VALUES ('m1', 'e', 0, 0, 0, 0, 'synthesised', 0, 0)`,
    );
    await store.db.exec(
      `INSERT INTO facts (id, memcell_id, speaker, content, created_at, updated_at) VALUES ('f1', 'm1', 'You', ?, 0, 0)`,
      [`The user keeps the ${MARKER} card in a blue drawer.`],
    );
    expect(await found()).toContain('wal');
    expect(await new SqlExplorerStore(store.db).deleteFact('f1', 1)).toBe(true);
    expect(await found()).toEqual([]);
    await store.db.close();
  });
});

describe('a scrub cut short resumes at the next open, and only then', () => {
  it("leaves the turn index alone at open after appends alone; resumes a deletion's scrub the tab closed on", async () => {
    const { store, path } = await fileStore();
    await manyTurns(store, 'r');
    // Appends re-index a turn's neighbours, which leaves deleted-row pages in the turn index: no
    // deleted text, so nothing is marked and an open merges nothing.
    expect(await indexesWithDeletedTerms(store.db)).not.toEqual([]);
    expect(await scrubPending(store.db)).toBe(false);
    expect(await resumeCutShortScrub(store.db)).toBe(false);

    // A deletion marks its scrub in its own transaction; the tab closes before the steps end.
    store.db.scrubStepPages = 1;
    expect(await store.deleteMessage('r60')).toBe(true);
    expect(await scrubPending(store.db)).toBe(true);
    await store.db.close();

    const reopened = await openFileStore(path, { journal: 'wal' });
    expect(await scrubPending(reopened.db)).toBe(true);
    expect(await resumeCutShortScrub(reopened.db)).toBe(true);
    await reopened.db.query('SELECT 1'); // queued behind the task that starts the scrub
    await reopened.whenScrubbed();
    expect(await scrubPending(reopened.db)).toBe(false);
    expect(await indexesWithDeletedTerms(reopened.db)).toEqual([]);
    await reopened.db.close();
    const bytes = readFileSync(path);
    expect(bytes.includes(MARKER) || bytes.includes(MARKER.toLowerCase())).toBe(false);
  });
});
