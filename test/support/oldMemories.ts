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
  {
    id: 'chatgpt:c1:m2',
    role: 'assistant',
    content:
      'The Alfa Pendular runs hourly on Sundays \ue200cite\ue202turn0search19\ue201. The Intercidades is slower but cheaper \ue200cite\ue202turn0search3\ue202turn0news2\ue201.\n\ue200image_group\ue202{"query":["Alfa Pendular train"]}\ue201',
  },
  {
    id: 'chatgpt:c1:m3',
    role: 'assistant',
    content:
      'Your packing list mentions the rail pass \ue200filecite\ue202turn1file0\ue202L3-L9\ue201, and the station is \ue200entity\ue202["place","Porto Campanhã",""]\ue201.',
  },
  {
    id: 'chatgpt:c1:m4',
    role: 'assistant',
    content: 'The older answers cited the guide like this【8†source】 and this 【12:3†guide.pdf】.',
  },
] as const;

/** A schema-10 memory holding MARKED_TURNS, and a turn typed in Recollect that happens to hold 【…†…】. */
export async function markedMemoryV10(): Promise<WaSqliteDatabase> {
  const db = await openMemoryDatabase({ migrateSchema: false });
  await migrate(db, MIGRATIONS, 10);
  await db.exec('INSERT INTO conversations (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)', [
    'chatgpt:c1',
    'Trains to Lisbon',
    T,
    T + 10,
  ]);
  await db.exec('INSERT INTO conversations (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)', ['typed', 'Notes', T, T]);
  for (const [i, m] of MARKED_TURNS.entries()) {
    await db.exec(
      'INSERT INTO messages (id, conversation_id, seq, role, speaker, content, occurred_at, ingested_at, token_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [
        m.id,
        'chatgpt:c1',
        i + 1,
        m.role,
        m.role === 'user' ? 'User' : 'Assistant',
        m.content,
        T + i,
        T + 100,
        Math.ceil(m.content.length / 4),
      ],
    );
  }
  await db.exec(
    "INSERT INTO messages (id, conversation_id, seq, role, speaker, content, occurred_at, ingested_at, token_count) VALUES ('typed-1', 'typed', 1, 'user', 'User', 'I wrote 【note†mine】 on purpose', ?, ?, 8)",
    [T, T],
  );
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

/** A time with microseconds, as ChatGPT exports write them (2024-11-19T07:06:40.000777Z in ms, fractional). */
export const FRACTIONAL_T = (1_732_000_000 + 0.000_777) * 1000;

/**
 * A schema-7 memory as a ChatGPT import before v8 left it: times stored with a fraction of a ms
 * in a conversation, its two turns, a job and an LLM call, exported as a file (an old backup).
 */
export async function fractionalMemoryV7File(): Promise<Uint8Array> {
  const db = await openMemoryDatabase({ migrateSchema: false });
  try {
    await migrate(db, MIGRATIONS, 7);
    const t = FRACTIONAL_T;
    await db.exec('INSERT INTO conversations (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)', [
      'chatgpt:conv-micro',
      'Microsecond times',
      t,
      t + 60_000.5,
    ]);
    await db.exec(
      "INSERT INTO messages (id, conversation_id, seq, role, speaker, content, occurred_at, ingested_at, token_count) VALUES ('chatgpt:m1', 'chatgpt:conv-micro', 1, 'user', 'User', 'When was the treaty of Tordesillas signed?', ?, ?, 11)",
      [t, t + 0.25],
    );
    await db.exec(
      "INSERT INTO messages (id, conversation_id, seq, role, speaker, content, occurred_at, ingested_at, token_count) VALUES ('chatgpt:m2', 'chatgpt:conv-micro', 2, 'assistant', 'ChatGPT', 'The treaty of Tordesillas was signed on 7 June 1494.', ?, ?, 13)",
      [t + 60_000.5, t + 0.25],
    );
    await db.exec("INSERT INTO jobs (kind, payload, run_after, created_at, updated_at) VALUES ('embed', '{}', ?, ?, ?)", [t, t, t]);
    await db.exec("INSERT INTO llm_calls (stage, model, latency_ms, outcome, created_at) VALUES ('answer', 'm', 12.5, 'ok', ?)", [t]);
    return await new SqliteMemoryStore(db, { openTemp: () => openMemoryDatabase({ migrateSchema: false }) }).exportDatabase();
  } finally {
    await db.close();
  }
}
