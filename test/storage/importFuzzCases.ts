/**
 * Hostile and broken .sqlite files for the import trust boundary, built in Node on the
 * same wa-sqlite the app uses. Each case names its class and its expected verdict: refused with a
 * code, or accepted (then the app's next writes must behave as on a fresh database). Used by the
 * unit fuzz suite (test/storage/importFuzz.test.ts) and a handful by the browser e2e.
 */
import { openMemoryDatabase, openNodeStore } from '../../src/storage/openNodeDatabase';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, RECOLLECT_APPLICATION_ID } from '../../src/storage/schema';
import { migrate } from '../../src/storage/migrate';
import { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import type { ErrorCode } from '../../src/core/base/errors';

export interface FuzzCase {
  readonly name: string;
  readonly kind: string;
  /** An error code, or 'accepted'. */
  readonly verdict: ErrorCode | 'accepted';
  readonly build: () => Promise<Uint8Array>;
  /** For accepted files: conversations and turns the memory must hold afterwards. */
  readonly holds?: { readonly conversations: number; readonly messages: number };
  readonly maxBytes?: number;
}

export const BASE_TURNS = 12;
const T0 = 1_700_000_000_000;

/** A small, valid memory at the latest schema: one conversation, 12 turns, an episode, a fact, settings. */
export async function baseStore(): Promise<SqliteMemoryStore> {
  const store = await openNodeStore();
  await store.createConversation({ id: 'c1', title: 'Garden' });
  await store.appendTurns(
    Array.from({ length: BASE_TURNS }, (_, i) => ({
      id: `m${i}`,
      conversationId: 'c1',
      role: i % 2 ? ('assistant' as const) : ('user' as const),
      content: `Turn ${i} about tomatoes and basil`,
      occurredAt: T0 + i * 60_000,
    })),
  );
  await store.db.exec(
    `INSERT INTO memcells (id, conversation_id, first_seq, last_seq, start_at, end_at, narrative, created_at, updated_at, closed_by) VALUES ('mc1', 'c1', 1, 6, ${T0}, ${T0}, 'Ana planted tomatoes.', ${T0}, ${T0}, 'size')`,
  );
  await store.db.exec(
    `INSERT INTO facts (id, memcell_id, speaker, content, created_at, updated_at) VALUES ('f1', 'mc1', 'Ana', 'Ana grows basil.', ${T0}, ${T0})`,
  );
  await store.db.exec("INSERT INTO vectors VALUES ('message', 'm1', 'topic', 2, 'f32', x'0000803f00000000', 1)");
  await store.setMeta('consolidation.policy', 'off');
  await store.setMeta('answer.budget_tokens', '3000');
  return store;
}

let baseBytes: Uint8Array | undefined;
export async function base(): Promise<Uint8Array> {
  baseBytes ??= await (await baseStore()).exportDatabase();
  return baseBytes.slice();
}

/** The base file after `sql` ran on it (foreign keys and CHECKs off when asked, as another tool could). */
async function edited(
  sql: string,
  options: { writableSchema?: boolean; ignoreChecks?: boolean; from?: Uint8Array } = {},
): Promise<Uint8Array> {
  const db = await openMemoryDatabase({ migrateSchema: false });
  await db.deserialize(options.from ?? (await base()));
  await db.exec('PRAGMA foreign_keys = OFF');
  if (options.ignoreChecks) await db.exec('PRAGMA ignore_check_constraints = ON');
  if (options.writableSchema) await db.exec('PRAGMA writable_schema = ON');
  await db.exec(sql);
  if (options.writableSchema) await db.exec('PRAGMA writable_schema = OFF');
  const out = await db.serialize();
  await db.close();
  return out;
}

function bytesOf(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out[i] = x >> 16;
  }
  return out;
}

async function emptySqlite(sql = ''): Promise<Uint8Array> {
  const db = await openMemoryDatabase({ migrateSchema: false });
  if (sql) await db.exec(sql);
  const out = await db.serialize();
  await db.close();
  return out;
}

/** A Recollect file at an older schema version, with rows, built by our own migrations. */
async function olderVersion(version: number): Promise<Uint8Array> {
  const db = await openMemoryDatabase({ migrateSchema: false });
  await migrate(db, MIGRATIONS, version);
  await db.exec(`INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 'Old', ${T0}, ${T0})`);
  for (let i = 0; i < 5; i++) {
    await db.exec(
      `INSERT INTO messages (id, conversation_id, seq, role, speaker, content, occurred_at, ingested_at, token_count) VALUES ('o${i}', 'c1', ${i + 1}, 'user', 'User', 'Old turn ${i} about peppers', ${T0 + i}, ${T0 + i}, 5)`,
    );
  }
  if (version >= 6) await db.exec('DELETE FROM turn_index_queue');
  const out = await db.serialize();
  await db.close();
  return out;
}

async function utf16(encoding: 'UTF-16le' | 'UTF-16be'): Promise<Uint8Array> {
  const db = await openMemoryDatabase({ migrateSchema: false });
  await db.exec(`PRAGMA encoding = '${encoding}'`);
  await migrate(db);
  await db.exec(`INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 'UTF-16', ${T0}, ${T0})`);
  const out = await db.serialize();
  await db.close();
  return out;
}

const setHeader = (f: (view: DataView, bytes: Uint8Array) => void) => async () => {
  const bytes = await base();
  f(new DataView(bytes.buffer), bytes);
  return bytes;
};

const ok = { conversations: 1, messages: BASE_TURNS };
const TRIGGER = (name: string, on: string, body: string) => `CREATE TRIGGER ${name} AFTER INSERT ON ${on} BEGIN ${body}; END;`;

export const FUZZ_CASES: readonly FuzzCase[] = [
  // Not SQLite at all
  { name: 'empty file', kind: 'empty', verdict: 'IMPORT_NOT_SQLITE', build: async () => new Uint8Array(0) },
  { name: 'random bytes', kind: 'random', verdict: 'IMPORT_NOT_SQLITE', build: async () => bytesOf(65536, 7) },
  { name: 'JSON text', kind: 'random', verdict: 'IMPORT_NOT_SQLITE', build: async () => new TextEncoder().encode('{"conversations": []}') },
  {
    name: 'SQLite magic then random pages',
    kind: 'random',
    verdict: 'IMPORT_CORRUPT',
    build: async () => {
      const b = bytesOf(8192, 3);
      b.set(new TextEncoder().encode('SQLite format 3\u0000'));
      b[16] = 0x10;
      b[17] = 0;
      b[56] = 0;
      b[57] = 0;
      b[58] = 0;
      b[59] = 1;
      return b;
    },
  },
  // Truncated, damaged, odd headers
  {
    name: 'truncated to half',
    kind: 'truncated',
    verdict: 'IMPORT_CORRUPT',
    build: async () => {
      const b = await base();
      return b.slice(0, 4096 * Math.floor(b.byteLength / 8192));
    },
  },
  { name: 'truncated mid-page', kind: 'truncated', verdict: 'IMPORT_CORRUPT', build: async () => (await base()).slice(0, 4096 * 2 + 100) },
  {
    name: 'damaged pages',
    kind: 'damaged',
    verdict: 'IMPORT_CORRUPT',
    build: async () => {
      const b = await base();
      for (let i = 4096 * 2; i < 4096 * 3; i++) b[i] = (i * 7919) & 0xff;
      return b;
    },
  },
  { name: 'invalid page size in header', kind: 'page size', verdict: 'IMPORT_CORRUPT', build: setHeader((v) => v.setUint16(16, 1000)) },
  { name: 'unknown text encoding in header', kind: 'encoding', verdict: 'IMPORT_CORRUPT', build: setHeader((v) => v.setUint32(56, 9)) },
  {
    name: 'page size 1024',
    kind: 'page size',
    verdict: 'accepted',
    holds: { conversations: 1, messages: 1 },
    build: async () => {
      const db = await openMemoryDatabase({ migrateSchema: false });
      await db.exec('PRAGMA page_size = 1024');
      const store = new SqliteMemoryStore(db, { openTemp: () => openMemoryDatabase({ migrateSchema: false }) });
      await migrate(db);
      await store.createConversation({ id: 'c1', title: 'Small pages' });
      await store.appendTurn({ id: 'p1', conversationId: 'c1', role: 'user', content: 'Peppers on small pages' });
      return store.exportDatabase();
    },
  },
  {
    name: 'page size 65536',
    kind: 'page size',
    verdict: 'accepted',
    holds: { conversations: 1, messages: 1 },
    build: async () => {
      const db = await openMemoryDatabase({ migrateSchema: false });
      await db.exec('PRAGMA page_size = 65536');
      const store = new SqliteMemoryStore(db, { openTemp: () => openMemoryDatabase({ migrateSchema: false }) });
      await migrate(db);
      await store.createConversation({ id: 'c1', title: 'Big pages' });
      await store.appendTurn({ id: 'p1', conversationId: 'c1', role: 'user', content: 'Peppers on big pages' });
      return store.exportDatabase();
    },
  },
  {
    name: 'zero-padded by 40 pages',
    kind: 'zero-padded',
    verdict: 'accepted',
    holds: ok,
    build: async () => {
      const b = await base();
      const out = new Uint8Array(b.byteLength + 40 * 4096);
      out.set(b);
      return out;
    },
  },
  {
    name: 'larger than the size limit',
    kind: 'huge',
    verdict: 'IMPORT_TOO_LARGE',
    maxBytes: 64 * 1024,
    build: async () => {
      const b = await base();
      const out = new Uint8Array(Math.max(b.byteLength, 64 * 1024) + 4096 * 4);
      out.set(b);
      return out;
    },
  },
  {
    name: 'header claims 2^31 pages',
    kind: 'huge',
    verdict: 'IMPORT_CORRUPT',
    build: setHeader((v) => {
      v.setUint32(28, 0x7fffffff);
    }),
  },
  {
    name: 'WAL-mode header',
    kind: 'WAL header',
    verdict: 'accepted',
    holds: ok,
    build: setHeader((_v, b) => {
      b[18] = 2;
      b[19] = 2;
    }),
  },
  // Not ours, or a version we cannot read
  {
    name: "another app's SQLite",
    kind: 'foreign SQLite',
    verdict: 'IMPORT_NOT_RECOLLECT',
    build: () => emptySqlite("CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Bo');"),
  },
  { name: 'empty SQLite database', kind: 'foreign SQLite', verdict: 'IMPORT_NOT_RECOLLECT', build: () => emptySqlite() },
  {
    name: 'our mark and version, no tables',
    kind: 'no tables',
    verdict: 'IMPORT_CORRUPT',
    build: () => emptySqlite(`PRAGMA application_id = ${RECOLLECT_APPLICATION_ID}; PRAGMA user_version = ${LATEST_SCHEMA_VERSION};`),
  },
  {
    name: 'future version',
    kind: 'version',
    verdict: 'SCHEMA_TOO_NEW',
    build: () => edited(`PRAGMA user_version = ${LATEST_SCHEMA_VERSION + 1}`),
  },
  { name: 'huge version 2^31-1', kind: 'version', verdict: 'SCHEMA_TOO_NEW', build: () => edited('PRAGMA user_version = 2147483647') },
  { name: 'negative version -1', kind: 'version', verdict: 'IMPORT_NOT_RECOLLECT', build: () => edited('PRAGMA user_version = -1') },
  { name: 'version 0 with our tables', kind: 'version', verdict: 'IMPORT_NOT_RECOLLECT', build: () => edited('PRAGMA user_version = 0') },
  {
    name: 'schema v1 file',
    kind: 'older version',
    verdict: 'accepted',
    holds: { conversations: 1, messages: 5 },
    build: () => olderVersion(1),
  },
  {
    name: 'schema v5 file',
    kind: 'older version',
    verdict: 'accepted',
    holds: { conversations: 1, messages: 5 },
    build: () => olderVersion(5),
  },
  { name: 'UTF-16le database', kind: 'UTF-16', verdict: 'IMPORT_ENCODING', build: () => utf16('UTF-16le') },
  { name: 'UTF-16be database', kind: 'UTF-16', verdict: 'IMPORT_ENCODING', build: () => utf16('UTF-16be') },
  // Broken references and rules
  {
    name: 'message of a missing conversation',
    kind: 'FK violation',
    verdict: 'IMPORT_CORRUPT',
    build: () => edited("UPDATE messages SET conversation_id = 'ghost' WHERE id = 'm3'"),
  },
  {
    name: 'fact of a missing episode',
    kind: 'FK violation',
    verdict: 'IMPORT_CORRUPT',
    build: () => edited("UPDATE facts SET memcell_id = 'ghost'"),
  },
  {
    name: 'role outside the CHECK',
    kind: 'CHECK violation',
    verdict: 'IMPORT_CORRUPT',
    build: () => edited("UPDATE messages SET role = 'root' WHERE id = 'm2'", { ignoreChecks: true }),
  },
  {
    name: 'CHECK widened by writable_schema, row uses it',
    kind: 'CHECK violation',
    verdict: 'IMPORT_INVALID_DATA',
    build: () =>
      edited(
        "UPDATE sqlite_schema SET sql = replace(sql, '''user'', ''assistant'', ''system''', '''user'', ''assistant'', ''system'', ''root''') WHERE name = 'messages'; ",
        { writableSchema: true },
      ).then((b) => edited("UPDATE messages SET role = 'root' WHERE id = 'm2'", { from: b })),
  },
  // Executable schema: triggers, views, extra objects, writable_schema
  {
    name: 'trigger deletes every other message',
    kind: 'trigger',
    verdict: 'accepted',
    holds: ok,
    build: () => edited(TRIGGER('evil_every_other', 'messages', 'DELETE FROM messages WHERE pk % 2 = 0 AND pk <> new.pk')),
  },
  {
    name: 'trigger wipes messages on new conversation',
    kind: 'trigger',
    verdict: 'accepted',
    holds: ok,
    build: () => edited(TRIGGER('evil_wipe', 'conversations', 'DELETE FROM messages')),
  },
  {
    name: 'trigger copies turns to a spy table',
    kind: 'trigger',
    verdict: 'accepted',
    holds: ok,
    build: () => edited(`CREATE TABLE spy (content TEXT); ${TRIGGER('evil_spy', 'messages', 'INSERT INTO spy VALUES (new.content)')}`),
  },
  {
    name: 'trigger rewrites each new turn',
    kind: 'trigger',
    verdict: 'accepted',
    holds: ok,
    build: () => edited(TRIGGER('evil_rewrite', 'messages', "UPDATE messages SET content = 'pwned' WHERE pk = new.pk")),
  },
  {
    name: 'trigger RAISE(ABORT) on insert',
    kind: 'trigger',
    verdict: 'accepted',
    holds: ok,
    build: () => edited(TRIGGER('evil_abort', 'messages', "SELECT RAISE(ABORT, 'no more turns')")),
  },
  {
    name: 'trigger on delete resurrects',
    kind: 'trigger',
    verdict: 'accepted',
    holds: ok,
    build: () => edited('CREATE TRIGGER evil_del BEFORE DELETE ON messages BEGIN SELECT RAISE(IGNORE); END;'),
  },
  {
    name: 'trigger added via writable_schema',
    kind: 'writable_schema',
    verdict: 'accepted',
    holds: ok,
    build: () =>
      edited(
        "INSERT INTO sqlite_schema (type, name, tbl_name, rootpage, sql) VALUES ('trigger', 'evil_ws', 'messages', 0, 'CREATE TRIGGER evil_ws AFTER INSERT ON messages BEGIN DELETE FROM messages; END')",
        { writableSchema: true },
      ),
  },
  {
    name: 'view shadows a table',
    kind: 'view',
    verdict: 'IMPORT_CORRUPT',
    build: () => edited('DROP TABLE llm_calls; CREATE VIEW llm_calls AS SELECT 1 AS id'),
  },
  {
    name: 'extra view over messages',
    kind: 'view',
    verdict: 'accepted',
    holds: ok,
    build: () => edited('CREATE VIEW everything AS SELECT * FROM messages'),
  },
  {
    name: 'extra table with rows',
    kind: 'extra objects',
    verdict: 'accepted',
    holds: ok,
    build: () => edited("CREATE TABLE loot (x); INSERT INTO loot VALUES ('x')"),
  },
  {
    name: 'extra index',
    kind: 'extra objects',
    verdict: 'accepted',
    holds: ok,
    build: () => edited('CREATE INDEX evil_idx ON messages(content)'),
  },
  {
    name: 'writable_schema re-points the FTS table',
    kind: 'writable_schema',
    verdict: 'accepted',
    holds: ok,
    build: () =>
      edited(
        "UPDATE sqlite_schema SET sql = replace(sql, 'content = ''messages''', 'content = ''conversations''') WHERE name = 'messages_fts'",
        { writableSchema: true },
      ),
  },
  {
    name: 'garbage in FTS shadow tables',
    kind: 'FTS garbage',
    verdict: 'IMPORT_CORRUPT',
    build: () =>
      edited(
        'UPDATE messages_fts_data SET block = randomblob(200) WHERE id > 1; UPDATE turns_fts_data SET block = randomblob(50) WHERE id > 1',
      ),
  },
  // meta injections
  {
    name: 'unknown embedder, absurd budget, endpoint settings',
    kind: 'meta injection',
    verdict: 'accepted',
    holds: ok,
    build: () =>
      edited(
        "INSERT OR REPLACE INTO meta VALUES ('embedder.active', 'evil/model'), ('embedder.target', 'evil/model'), ('answer.budget_tokens', '1e15'), ('llm.base_url', 'https://attacker.example'), ('llm.api_key', 'sk-stolen')",
      ),
  },
  {
    name: 'policy and flags out of range',
    kind: 'meta injection',
    verdict: 'accepted',
    holds: ok,
    build: () =>
      edited(
        "INSERT OR REPLACE INTO meta VALUES ('consolidation.policy', 'rm -rf'), ('segmentation.llm_check', 'yes'), ('answer.sufficiency_check', '2')",
      ),
  },
  {
    name: 'a 3 MB meta value',
    kind: 'meta injection',
    verdict: 'accepted',
    holds: ok,
    build: () => edited("INSERT INTO meta VALUES ('x', hex(randomblob(1500000)))"),
  },
  // Rows typed input would refuse
  {
    name: 'a 5,000,000-character message',
    kind: 'oversize row',
    verdict: 'IMPORT_INVALID_DATA',
    build: () => edited("UPDATE messages SET content = printf('%.*c', 5000000, 'a') WHERE id = 'm4'"),
  },
  {
    name: 'a message with NUL',
    kind: 'binary row',
    verdict: 'IMPORT_INVALID_DATA',
    build: () => edited("UPDATE messages SET content = 'hello' || char(0) || 'world' WHERE id = 'm4'"),
  },
  {
    name: 'a BLOB as message text',
    kind: 'binary row',
    verdict: 'IMPORT_INVALID_DATA',
    build: () => edited("UPDATE messages SET content = randomblob(64) WHERE id = 'm4'"),
  },
  {
    name: 'control characters as message text',
    kind: 'binary row',
    verdict: 'IMPORT_INVALID_DATA',
    build: () => edited("UPDATE messages SET content = char(1,2,3,4,5,6,7,8) || 'x' WHERE id = 'm4'"),
  },
  {
    name: 'an empty message',
    kind: 'invalid row',
    verdict: 'IMPORT_INVALID_DATA',
    build: () => edited("UPDATE messages SET content = '   ' WHERE id = 'm4'"),
  },
  {
    name: 'a number where text belongs',
    kind: 'invalid row',
    verdict: 'IMPORT_INVALID_DATA',
    build: () =>
      edited("UPDATE sqlite_schema SET sql = replace(sql, 'speaker         TEXT', 'speaker         ANY') WHERE name = 'messages'", {
        writableSchema: true,
      }).then((b) => edited("UPDATE messages SET speaker = 42 WHERE id = 'm4'", { from: b })),
  },
  {
    name: 'metadata that is not JSON',
    kind: 'invalid row',
    verdict: 'IMPORT_INVALID_DATA',
    build: () => edited("DROP TRIGGER turns_fts_update; UPDATE messages SET metadata = '{not json' WHERE id = 'm4'"),
  },
  {
    name: 'a vector of the wrong size',
    kind: 'invalid row',
    verdict: 'IMPORT_INVALID_DATA',
    build: () => edited('UPDATE vectors SET dim = 3'),
  },
  {
    name: 'a title with NUL',
    kind: 'binary row',
    verdict: 'IMPORT_INVALID_DATA',
    build: () => edited("UPDATE conversations SET title = 'a' || char(0) || 'b'"),
  },
  {
    name: 'a message dated past the end of the calendar',
    kind: 'invalid row',
    verdict: 'IMPORT_INVALID_DATA',
    build: () => edited("DROP TRIGGER turns_fts_update; UPDATE messages SET occurred_at = 9000000000000000 WHERE id = 'm4'"),
  },
  {
    name: 'an episode dated before 1900',
    kind: 'invalid row',
    verdict: 'IMPORT_INVALID_DATA',
    build: () => edited('UPDATE memcells SET start_at = -5000000000000'),
  },
  {
    name: 'answer metadata whose requests is not a list',
    kind: 'odd JSON',
    verdict: 'accepted',
    holds: ok,
    build: () =>
      edited(
        'DROP TRIGGER turns_fts_update; UPDATE messages SET metadata = \'{"requests": "not a list", "answerTo": "m0"}\' WHERE id = \'m1\'',
      ),
  },
  {
    name: 'a 10,000-character title (cut like typed input)',
    kind: 'oversize row',
    verdict: 'accepted',
    holds: ok,
    build: () => edited("UPDATE conversations SET title = printf('%.*c', 10000, 't')"),
  },
];
