import { describe, expect, it } from 'vitest';
import type { HistoryFile, HistoryItem, HistoryReader, ImportedConversation } from '../../src/core/base/historyImport';
import { historyReader, readHistory } from '../../src/import/readHistory';
import { JsonEntryStream } from '../../src/import/jsonEntryStream';
import {
  chatGptBranchCopies,
  chatGptConversations,
  chatGptRich,
  claudeBranchedConversations,
  claudeConversations,
} from './historyFixtures';
import { historyEngines } from '../support/historyEngine';

const NOW = Date.UTC(2025, 0, 1);

/** A file streamed in `chunkSize`-byte pieces that records, per read of it, how many bytes it has handed out. */
function countingFile(data: string, chunkSize = 512): HistoryFile & { reads: number[] } {
  const bytes = new TextEncoder().encode(data);
  const reads: number[] = [];
  return {
    name: 'conversations.json',
    size: bytes.length,
    reads,
    stream: () => {
      const read = reads.push(0) - 1;
      let at = 0;
      return {
        getReader: () => ({
          read: async () => {
            if (at >= bytes.length) return { done: true };
            const value = bytes.subarray(at, (at += chunkSize));
            reads[read] = Math.min(at, bytes.length);
            return { done: false, value };
          },
          cancel: async () => undefined,
        }),
      };
    },
  };
}

async function items(reader: HistoryReader, f: HistoryFile): Promise<HistoryItem[]> {
  const out: HistoryItem[] = [];
  for await (const item of reader(f, { format: 'auto', now: NOW })) out.push(item);
  return out;
}

/** The conversations, pieces joined back into one. */
function joined(list: readonly HistoryItem[]): ImportedConversation[] {
  const out: ImportedConversation[] = [];
  for (const item of list) {
    if (item.kind !== 'conversation') continue;
    const last = out.at(-1);
    if (item.part && !item.part.first && last?.id === item.conversation.id)
      out[out.length - 1] = { ...last, turns: [...last.turns, ...item.conversation.turns] };
    else out.push(item.conversation);
  }
  return out;
}

/** Every entry taken as huge. */
const streamed = historyReader({ hugeEntryChars: 10 });

/** The same conversation with `current_node` written after the mapping (as the service writes it) and the nodes in reverse order. */
function reordered(conv: Record<string, unknown>): Record<string, unknown> {
  const { mapping, current_node, ...rest } = conv as { mapping: Record<string, unknown>; current_node?: unknown };
  if (!mapping || typeof mapping !== 'object') return conv;
  return {
    ...rest,
    mapping: Object.fromEntries(Object.entries(mapping).reverse()),
    ...(current_node === undefined ? {} : { current_node }),
  };
}

/** A long ChatGPT conversation: a regenerated answer every 50 turns (the newer one on the visible branch). */
function longChat(turns: number): Record<string, unknown> {
  const mapping: Record<string, unknown> = { root: { id: 'root', parent: null, children: ['m0'], message: null } };
  let parent = 'root';
  for (let k = 0; k < turns; k++) {
    const id = `m${k}`;
    const role = k % 2 ? 'assistant' : 'user';
    const message = (mid: string, text: string) => ({
      id: mid,
      author: { role },
      create_time: 1_700_000_000 + k * 30,
      recipient: 'all',
      content: { content_type: 'text', parts: [text] },
      metadata: {},
    });
    const children = k < turns - 1 ? [`m${k + 1}`] : [];
    if (role === 'assistant' && k % 50 === 1) {
      mapping[`old${k}`] = { id: `old${k}`, parent, children: [], message: message(`old${k}`, `discarded answer ${k}`) };
      (mapping[parent] as { children: string[] }).children.unshift(`old${k}`);
    }
    mapping[id] = { id, parent, children, message: message(id, `turn ${k}: ${'words about the garden '.repeat(8)}`) };
    parent = id;
  }
  return { id: 'long', title: 'A very long chat', create_time: 1_700_000_000, mapping, current_node: parent };
}

describe('a huge entry read in two passes', () => {
  it('reads the members of one conversation across any chunk border, the collection member by member', () => {
    const entry = JSON.stringify({ title: 'a "}" title', mapping: { a: { x: [1, '{'] }, 'b\\"': { y: null } }, current_node: 'a', n: 3 });
    for (const size of [1, 5, 1000]) {
      const fields: [string, unknown][] = [];
      const members: [string | null, unknown][] = [];
      const reader = new JsonEntryStream({
        field: (k, s) => fields.push([k, JSON.parse(s)]),
        collection: () => undefined,
        member: (k, s) => members.push([k, JSON.parse(s)]),
      });
      for (let i = 0; i < entry.length; i += size) reader.push(entry.slice(i, i + size));
      expect(reader.done).toBe(true);
      expect(fields).toEqual([
        ['title', 'a "}" title'],
        ['current_node', 'a'],
        ['n', 3],
      ]);
      expect(members).toEqual([
        ['a', { x: [1, '{'] }],
        ['b\\"', { y: null }],
      ]);
    }
  });

  it('gives the same turns, branch and titles as parsing each entry whole (ChatGPT and Claude, reordered nodes included)', async () => {
    const sets: unknown[][] = [
      chatGptConversations,
      chatGptRich,
      chatGptBranchCopies,
      chatGptRich.map(reordered),
      chatGptConversations.map(reordered),
      claudeConversations,
      claudeBranchedConversations,
    ];
    for (const set of sets) {
      const json = JSON.stringify(set);
      const whole = await items(readHistory, countingFile(json, 7));
      const pieces = await items(streamed, countingFile(json, 7));
      expect(joined(pieces)).toEqual(joined(whole));
      expect(pieces.filter((i) => i.kind === 'skipped')).toEqual(whole.filter((i) => i.kind === 'skipped'));
    }
  });

  it('yields the first turns of a huge conversation before the read that carries them reaches its last byte', async () => {
    const json = JSON.stringify([
      {
        id: 'small',
        title: 's',
        create_time: 1_700_000_000,
        current_node: 'x',
        mapping: {
          x: {
            id: 'x',
            parent: null,
            children: [],
            message: { id: 'x', author: { role: 'user' }, create_time: 1_700_000_000, content: { content_type: 'text', parts: ['hello'] } },
          },
        },
      },
      longChat(3_000),
    ]);
    const f = countingFile(json);
    const reader = historyReader({ hugeEntryChars: 100_000 });
    let firstLong: { bytes: number; turns: number } | null = null;
    const all: HistoryItem[] = [];
    for await (const item of reader(f, { format: 'auto', now: NOW })) {
      all.push(item);
      if (!firstLong && item.kind === 'conversation' && item.conversation.id === 'chatgpt:long')
        firstLong = { bytes: f.reads.at(-1)!, turns: item.conversation.turns.length };
    }
    expect(firstLong!.turns).toBeGreaterThan(0);
    expect(firstLong!.bytes).toBeLessThan(f.size / 2);
    const long = joined(all).find((c) => c.id === 'chatgpt:long')!;
    expect(long.turns).toHaveLength(3_000);
    expect(long.turns.some((t) => t.content.startsWith('discarded'))).toBe(false);
    expect(all.filter((i) => i.kind === 'conversation' && i.part).length).toBeGreaterThan(3);
  });

  it('skips a damaged huge entry as malformed and reads the entries around it', async () => {
    const bad = JSON.stringify(longChat(40)).replace('"turn 7:', '"turn 7:\u0001');
    const json = `[${JSON.stringify(chatGptRich[0])},${bad},${JSON.stringify({ ...chatGptRich[0], id: 'conv-rich-2' })}]`;
    const out = await items(historyReader({ hugeEntryChars: 2_000 }), countingFile(json));
    expect(out.filter((i) => i.kind === 'skipped').map((i) => i.kind === 'skipped' && i.reason)).toEqual(['malformed entries']);
    expect(joined(out).map((c) => c.id)).toEqual(['chatgpt:conv-rich', 'chatgpt:conv-rich-2']);
  });
});

describe('importing a huge conversation in pieces', () => {
  const engines = historyEngines();

  it('stores turns while the entry is still being read, counts one conversation, and a second import adds nothing', async () => {
    const json = JSON.stringify([longChat(2_000)]);
    const f = countingFile(json, 4_096);
    const engine = await engines.engine(historyReader({ hugeEntryChars: 100_000 }));
    const scan = await engine.data.scanHistory(f, { format: 'auto', importId: 'scan' });
    expect([scan.conversations, scan.turns]).toEqual([1, 2_000]);
    const storedEarly: number[] = [];
    const counts: number[] = [];
    const report = await engine.data.importHistory(f, { format: 'auto', importId: 'one' }, (p) => {
      counts.push(p.turns);
      if (p.turns > 0 && f.reads.at(-1)! < f.size) storedEarly.push(p.turns);
    });
    // The progress count of stored turns only grows, and ends at the total.
    expect(counts.every((c, i) => i === 0 || c >= counts[i - 1]!)).toBe(true);
    expect(counts.at(-1)).toBe(2_000);
    expect([report.conversations, report.turns]).toEqual([1, 2_000]);
    expect(storedEarly.length).toBeGreaterThan(0);
    const again = await engine.data.importHistory(f, { format: 'auto', importId: 'two' });
    expect([again.conversations, again.turns, again.alreadyPresent]).toEqual([0, 0, 2_000]);
  });

  it('imports the pieces a scan kept (the same file chosen again) as one conversation', async () => {
    const f = { ...countingFile(JSON.stringify([longChat(1_200)]), 4_096), lastModified: 1 };
    const engine = await engines.engine(historyReader({ hugeEntryChars: 50_000 }));
    const scan = await engine.data.scanHistory(f, { format: 'auto', importId: 'scan' });
    const readsAfterScan = f.reads.length;
    const report = await engine.data.importHistory(f, { format: 'auto', importId: 'one' });
    expect(f.reads.length).toBe(readsAfterScan);
    expect([scan.conversations, scan.turns, report.conversations, report.turns]).toEqual([1, 1_200, 1, 1_200]);
  });
});
