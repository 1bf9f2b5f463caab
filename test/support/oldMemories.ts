/**
 * Memory files as earlier versions of Recollect wrote them, built by writing raw rows into a
 * database migrated only that far: for the migration's unit tests and for browser tests that
 * import them through the app (the repair must hold on both ways in).
 */
import { openMemoryDatabase } from '../../src/storage/openNodeDatabase';
import { migrate } from '../../src/storage/migrate';
import { MIGRATIONS } from '../../src/storage/schema';
import { SqliteMemoryStore } from '../../src/storage/SqliteMemoryStore';
import type { WaSqliteDatabase } from '../../src/storage/WaSqliteDatabase';

const T = Date.UTC(2025, 2, 3, 9);
/** What ChatGPT-imported turns held under schema 10 (the import did not strip markup before). */
export const MARKED_TURNS = [
  { id: 'chatgpt:c1:m1', role: 'user', content: 'Which trains run from Porto to Lisbon on Sundays?' },
  { id: 'chatgpt:c1:m2', role: 'assistant', content: 'The Alfa Pendular runs hourly on Sundays \ue200cite\ue202turn0search19\ue201. The Intercidades is slower but cheaper \ue200cite\ue202turn0search3\ue202turn0news2\ue201.\n\ue200image_group\ue202{"query":["Alfa Pendular train"]}\ue201' },
  { id: 'chatgpt:c1:m3', role: 'assistant', content: 'Your packing list mentions the rail pass \ue200filecite\ue202turn1file0\ue202L3-L9\ue201, and the station is \ue200entity\ue202["place","Porto Campanhã",""]\ue201.' },
  { id: 'chatgpt:c1:m4', role: 'assistant', content: 'The older answers cited the guide like this【8†source】 and this 【12:3†guide.pdf】.' },
] as const;

/** A schema-10 memory holding MARKED_TURNS, and a turn typed in Recollect that happens to hold 【…†…】. */
export async function markedMemoryV10(): Promise<WaSqliteDatabase> {
  const db = await openMemoryDatabase({ migrateSchema: false });
  await migrate(db, MIGRATIONS, 10);
  await db.exec('INSERT INTO conversations (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)', ['chatgpt:c1', 'Trains to Lisbon', T, T + 10]);
  await db.exec('INSERT INTO conversations (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)', ['typed', 'Notes', T, T]);
  for (const [i, m] of MARKED_TURNS.entries()) {
    await db.exec('INSERT INTO messages (id, conversation_id, seq, role, speaker, content, occurred_at, ingested_at, token_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [m.id, 'chatgpt:c1', i + 1, m.role, m.role === 'user' ? 'User' : 'Assistant', m.content, T + i, T + 100, Math.ceil(m.content.length / 4)]);
  }
  await db.exec("INSERT INTO messages (id, conversation_id, seq, role, speaker, content, occurred_at, ingested_at, token_count) VALUES ('typed-1', 'typed', 1, 'user', 'User', 'I wrote 【note†mine】 on purpose', ?, ?, 8)", [T, T]);
  return db;
}

/** The schema-10 memory of `markedMemoryV10` as an exported file (what an old backup holds). */
export async function markedMemoryV10File(): Promise<Uint8Array> {
  const db = await markedMemoryV10();
  try {
    return await new SqliteMemoryStore(db, { openTemp: () => openMemoryDatabase({ migrateSchema: false }) }).exportDatabase();
  } finally {
    await db.close();
  }
}
