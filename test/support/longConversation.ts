/**
 * One long conversation for the segmentation work tests and bench/segmentLong.ts: `n` turns a
 * minute apart (so days change and gaps stay short), the topic word changing every seven turns
 * (topicEmbedder's axes: drift closes episodes too), and a counter of SQLite's own work.
 */
import type { NewTurn } from '../../src/core/base/types';
import type { WaSqliteDatabase } from '../../src/storage/WaSqliteDatabase';

const WORDS = ['dog', 'flight', 'guitar', 'rent', 'tea'];
const T0 = Date.UTC(2026, 0, 1);

export function longConversation(conversationId: string, n: number): NewTurn[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${conversationId}-${i}`,
    conversationId,
    role: i % 2 ? 'assistant' : 'user',
    content: `turn ${i} about the ${WORDS[Math.floor(i / 7) % WORDS.length]} and a few more words here`,
    occurredAt: T0 + i * 60_000,
  }));
}

/**
 * Counts SQLite virtual-machine steps on `db` (a progress handler called every 100 steps) until
 * `stop()`: the work the database did, which does not depend on the machine's load as time does.
 */
export function countVmSteps(db: WaSqliteDatabase): { stop(): number } {
  let calls = 0;
  db.sqlite3.progress_handler(
    db.db,
    100,
    () => {
      calls++;
      return 0;
    },
    null,
  );
  return {
    stop() {
      db.sqlite3.progress_handler(db.db, 0, () => 0, null);
      return calls * 100;
    },
  };
}
