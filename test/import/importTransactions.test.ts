import { describe, expect, it } from 'vitest';
import { HistoryImports, type HistorySink } from '../../src/core/engine/historyImport';
import type { HistoryItem, HistoryReader } from '../../src/core/base/historyImport';
import type { AppendResult, NewTurn } from '../../src/core/base/types';

/**
 * The import's write transactions stay small (a search or a chat message waits for the one that
 * holds the single connection), and between two of them a worker message gets its turn.
 */
const T = Date.UTC(2024, 0, 1);
const text = (n: number, seed: number) => `turn ${seed} `.padEnd(n, 'x');

function conversation(id: string, lengths: number[]): HistoryItem {
  return {
    kind: 'conversation',
    conversation: {
      id,
      title: id,
      createdAt: T,
      turns: lengths.map((n, k) => ({
        id: `${id}:${k}`,
        role: k % 2 ? 'assistant' : 'user',
        content: text(n, k),
        occurredAt: T + k * 1000,
      })),
    },
  };
}

function recordingSink(log: string[], sizes: number[][]): HistorySink {
  return {
    appendTurns: async (turns: readonly NewTurn[], create) => {
      // One transaction creates the batch's conversations and stores its turns (one commit).
      const created = new Set(create.map((c) => c.id));
      if (turns.some((t) => !created.has(t.conversationId))) throw new Error('a turn of a conversation the batch does not create');
      log.push('append');
      sizes.push(turns.map((t) => t.content.length));
      return turns.map((t) => ({ created: true, message: { ...t } }) as unknown as AppendResult);
    },
    setConsolidationPolicy: async (p) => p,
    storedTurnIds: async () => null,
    discardConversation: async () => undefined,
  };
}

const file = {
  size: 1,
  name: 'x.json',
  stream: () => {
    throw new Error('read through the fake reader');
  },
};

describe('history import transactions', () => {
  it('keeps each write under the character budget (a long conversation in slices) and stores every turn once', async () => {
    const log: string[] = [];
    const sizes: number[][] = [];
    // 40 short conversations of 10 × 2,000 characters, one of 300 × 2,000 and one single 400,000-character turn.
    const items: HistoryItem[] = [
      ...Array.from({ length: 40 }, (_, c) => conversation(`c${c}`, Array(10).fill(2_000))),
      conversation('long', Array(300).fill(2_000)),
      conversation('huge', [400_000]),
    ];
    const reader: HistoryReader = async function* () {
      yield* items;
    };
    const imports = new HistoryImports({ reader, sink: recordingSink(log, sizes), clock: { now: () => 0 } });
    const report = await imports.import(file, { format: 'chatgpt', importId: 'i' });
    expect(report.turns).toBe(400 + 300 + 1);
    expect(sizes.flat().length).toBe(701);
    for (const s of sizes) {
      const chars = s.reduce((a, b) => a + b, 0);
      // One turn over the budget goes alone; otherwise a transaction holds ≤ 150,000 characters plus the conversation that crossed it.
      if (s.length > 1) expect(chars).toBeLessThanOrEqual(150_000 + 20_000);
    }
    expect(sizes.some((s) => s.length === 1 && s[0] === 400_000)).toBe(true);
    expect(sizes.length).toBeGreaterThanOrEqual(Math.ceil((700 * 2_000) / 170_000));
  });

  it('lets a message sent during the import in between two write transactions', async () => {
    const log: string[] = [];
    const sizes: number[][] = [];
    const items = Array.from({ length: 40 }, (_, c) => conversation(`c${c}`, Array(10).fill(2_000)));
    const reader: HistoryReader = async function* () {
      yield* items;
    };
    const sink = recordingSink(log, sizes);
    const append = sink.appendTurns;
    let sent = false;
    sink.appendTurns = async (turns, create) => {
      // A search arrives (a worker message is a macrotask) while the first transaction runs.
      if (!sent) {
        sent = true;
        setTimeout(() => log.push('search'), 0);
      }
      return append(turns, create);
    };
    // The clock stands still, so the import's own time-based yield never fires: only the one after each transaction can let the search in.
    const imports = new HistoryImports({ reader, sink, clock: { now: () => 0 } });
    await imports.import(file, { format: 'chatgpt', importId: 'i' });
    expect(log.filter((x) => x === 'append').length).toBeGreaterThan(2);
    expect(log.slice(0, 3)).toEqual(['append', 'search', 'append']);
  });
});
