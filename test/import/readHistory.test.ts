import { describe, expect, it } from 'vitest';
import type { HistoryFile, HistoryItem, ImportedConversation } from '../../src/core/base/historyImport';
import { readHistory } from '../../src/import/readHistory';
import { JsonArraySplitter } from '../../src/import/jsonArraySplitter';
import { dateLine } from '../../src/import/transcript';
import { RecollectError } from '../../src/core/base/errors';
import {
  T0,
  chatGptJson,
  chatGptZip,
  claudeConversations,
  lisbonTurns,
  locomoSamples,
  longMemEvalQuestions,
  transcript,
} from './historyFixtures';

const NOW = Date.UTC(2025, 0, 1);

/** A file whose stream yields `chunkSize`-byte pieces, to exercise splitting across chunks. */
function file(data: string | Uint8Array, name = 'conversations.json', chunkSize = 7): HistoryFile {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  return {
    name,
    size: bytes.length,
    stream: () => {
      let at = 0;
      return {
        getReader: () => ({
          read: async () => (at >= bytes.length ? { done: true } : { done: false, value: bytes.subarray(at, (at += chunkSize)) }),
          cancel: async () => undefined,
        }),
      };
    },
  };
}

async function collect(f: HistoryFile, format: Parameters<typeof readHistory>[1]['format'] = 'auto') {
  const items: HistoryItem[] = [];
  for await (const item of readHistory(f, { format, now: NOW })) items.push(item);
  const conversations = items.flatMap((i) => (i.kind === 'conversation' ? [i.conversation] : []));
  const skipped = items.flatMap((i) => (i.kind === 'skipped' ? [i.reason] : []));
  const format_ = items.find((i) => i.kind === 'format');
  return { conversations, skipped, format: format_?.kind === 'format' ? format_.format : null };
}

const contents = (c: ImportedConversation) => c.turns.map((t) => t.content);

describe('JsonArraySplitter', () => {
  it('splits elements across chunk borders, strings with brackets and escapes included', () => {
    const json = JSON.stringify([{ a: 'x],{"y' }, [1, [2]], 'q\\"', 3, { b: { c: '}' } }]);
    for (const size of [1, 3, 1000]) {
      const s = new JsonArraySplitter();
      const out: ReturnType<JsonArraySplitter['push']> = [];
      for (let i = 0; i < json.length; i += size) out.push(...s.push(json.slice(i, i + size)));
      expect(out.map((e) => JSON.parse(e as string))).toEqual(JSON.parse(json));
      expect(s.end()).toEqual({ complete: true, cutOff: false });
    }
  });

  it('reports a cut-off element and refuses a document that is not an array', () => {
    const s = new JsonArraySplitter();
    expect(s.push('[{"a":1},{"b":')).toEqual(['{"a":1}']);
    expect(s.end()).toEqual({ complete: false, cutOff: true });
    expect(() => new JsonArraySplitter().push('"hello"')).toThrow(RecollectError);
    expect(new JsonArraySplitter().push(' {"one": [1]} ').map((e) => JSON.parse(e as string))).toEqual([{ one: [1] }]);
  });
});

describe('ChatGPT export', () => {
  it('follows the branch ending at current_node, keeps user and assistant text, placeholders for non-text parts', async () => {
    const { conversations, skipped, format } = await collect(file(chatGptJson()));
    expect(format).toBe('chatgpt');
    const lisbon = conversations.find((c) => c.id === 'chatgpt:conv-lisbon')!;
    expect(contents(lisbon)).toEqual(lisbonTurns);
    expect(lisbon.title).toBe('Trip to Lisbon 🇵🇹');
    expect(lisbon.createdAt).toBe(T0 * 1000);
    expect(lisbon.turns[1]).toMatchObject({ id: 'chatgpt:conv-lisbon:a1', role: 'assistant', occurredAt: (T0 + 20) * 1000 });
    expect(skipped).toEqual(['conversations without an id or message tree']);
    // The empty conversation is yielded with no turns (the engine counts it as empty).
    expect(conversations.find((c) => c.id === 'chatgpt:conv-empty')?.turns).toEqual([]);
  });

  it('without current_node takes the newest leaf; an untitled conversation is named after its first turn', async () => {
    const { conversations } = await collect(file(chatGptJson()));
    const coffee = conversations.find((c) => c.id === 'chatgpt:conv-coffee')!;
    expect(contents(coffee)).toEqual(['我喜欢咖啡 ☕ — recommend a café?', 'A Brasileira in Chiado is a classic.']);
    expect(coffee.title).toBe('我喜欢咖啡 ☕ — recommend a café?');
  });

  it('reads conversations.json out of the export zip, streamed in small chunks', async () => {
    const fromZip = await collect(file(chatGptZip(), 'export.zip', 13));
    const fromJson = await collect(file(chatGptJson()));
    expect(fromZip.conversations).toEqual(fromJson.conversations);
    expect(fromZip.format).toBe('chatgpt');
  });

  it('a truncated file yields every whole conversation and counts the cut one', async () => {
    const json = chatGptJson();
    const cut = json.slice(0, json.indexOf('conv-coffee') + 40);
    const { conversations, skipped } = await collect(file(cut));
    expect(conversations.map((c) => c.id)).toEqual(['chatgpt:conv-lisbon', 'chatgpt:conv-empty']);
    expect(skipped).toContain('entries cut off (the file is truncated)');
  });

  it('a truncated zip is reported, not fatal, for what inflated before the cut', async () => {
    const zip = chatGptZip();
    const { conversations, skipped } = await collect(file(zip.subarray(0, Math.floor(zip.length * 0.6)), 'export.zip'));
    expect(skipped).toContain('entries cut off (the file is truncated)');
    expect(conversations.length).toBeLessThan(4);
  });

  it('a malformed entry is skipped and counted; the others are kept', async () => {
    const json = `[${JSON.stringify(JSON.parse(chatGptJson())[0])}, {"id": "x", "mapping": {"a": tru}}]`;
    const { conversations, skipped } = await collect(file(json));
    expect(conversations).toHaveLength(1);
    expect(skipped).toEqual(['malformed entries']);
  });

  it('refuses a file of another kind with a clear typed error', async () => {
    await expect(collect(file('[{"foo": 1}]'))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(collect(file(JSON.stringify(claudeConversations)), 'chatgpt')).rejects.toThrow(/Claude export/);
    await expect(collect(file(''))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('Claude export', () => {
  it('keeps text blocks, drops thinking, marks tools and files; skips entries without a uuid', async () => {
    const { conversations, skipped, format } = await collect(file(JSON.stringify(claudeConversations), 'conversations.json', 5));
    expect(format).toBe('claude');
    const [sourdough, empty] = conversations;
    expect(sourdough!.title).toBe('Sourdough starter');
    expect(contents(sourdough!)).toEqual([
      'My starter smells like acetone 🍞\n[file: photo.jpg]',
      'Feed it more often: it is hungry.\n\n[tool: web_search]',
      'Danke schön — größer Topf?',
    ]);
    expect(sourdough!.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'user']);
    expect(sourdough!.turns[2]!.occurredAt).toBe(Date.parse('2024-02-01T09:02:00.000Z'));
    expect(empty!.turns).toEqual([]);
    expect(skipped).toEqual(['conversations without an id or messages']);
  });
});

describe('benchmark corpora', () => {
  it('LoCoMo: one conversation per session, dated, both speakers by name, captions as placeholders', async () => {
    const { conversations, format } = await collect(file(JSON.stringify(locomoSamples)));
    expect(format).toBe('locomo');
    expect(conversations.map((c) => c.title)).toEqual(['Caroline & Melanie — session 1', 'Caroline & Melanie — session 2']);
    expect(conversations[0]!.turns[1]).toMatchObject({
      id: 'locomo:conv-1:D1:2',
      speaker: 'Melanie',
      content: 'That sounds brave!\n[image: a photo of a sunset]',
    });
    expect(conversations[1]!.turns[0]!.occurredAt).toBe(Date.UTC(2023, 4, 25, 19, 0));
  });

  it('LongMemEval: sessions shared between questions are yielded once', async () => {
    const { conversations, format } = await collect(file(JSON.stringify(longMemEvalQuestions)));
    expect(format).toBe('longmemeval');
    expect(conversations.map((c) => c.id)).toEqual(['lme:s-a', 'lme:s-b']);
    expect(conversations[0]!.turns[0]).toMatchObject({ role: 'user', occurredAt: Date.UTC(2023, 4, 20, 2, 21) });
  });
});

describe('transcripts', () => {
  it('reads Name: text lines, continuation lines, date headings and the title', async () => {
    const { conversations, format } = await collect(file(transcript, 'garden.md', 9));
    expect(format).toBe('text');
    const [c] = conversations;
    expect(c!.title).toBe('Planning the garden');
    expect(c!.turns.map((t) => [t.speaker, t.role, t.content])).toEqual([
      ['Alice', 'user', 'Should we plant tomatoes this year? 🍅'],
      ['Assistant', 'assistant', 'Yes — start them indoors in late March.\nThey need warmth to germinate.'],
      ['Alice', 'user', 'The seedlings are up!'],
      ['Bob', 'user', "Great, I'll build the raised bed."],
    ]);
    expect(c!.turns[0]!.occurredAt).toBe(Date.UTC(2024, 2, 3, 12));
    expect(c!.turns[2]!.occurredAt).toBe(Date.UTC(2024, 2, 10, 9, 30));
    // Same bytes, same ids: a second import adds nothing.
    expect((await collect(file(transcript, 'garden.md', 50))).conversations[0]!.turns.map((t) => t.id)).toEqual(c!.turns.map((t) => t.id));
  });

  it('date lines are recognised only when the line is a date', () => {
    expect(dateLine('## 5 March 2024', NOW)).toBe(Date.UTC(2024, 2, 5, 12)); // a bare day means noon UTC (chrono), which no time zone moves to another day
    expect(dateLine('2024-03-05 14:00', NOW)).toBe(Date.UTC(2024, 2, 5, 14, 0));
    expect(dateLine('We met on 5 March 2024 at the station near the river', NOW)).toBeNaN();
    expect(dateLine('Hello there', NOW)).toBeNaN();
  });
});
