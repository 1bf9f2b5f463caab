/**
 * Deleting a turn removes it from everything kept: the stored requests of answers ("what was
 * sent"), the full-text indexes, vectors, date foresight, and the bytes of an exported file
 * (free pages included) — checked by searching the export's raw bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockLlmServer, type MockLlmServer } from '../llm/mockLlmServer';
import { answeringEngine } from '../support/answeringEngine';
import { deletedText, redactString, redactValue, REDACTED } from '../../src/core/base/redaction';
import { focusClip } from '../../src/core/recall/snippet';

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer({ responder: () => 'I hear you; take your time before deciding [1].' });
});
afterAll(async () => mock.close());

const SECRET = 'Just between us: I am thinking of quitting my job at Quillfeather Logistics before the spring review.';
// A real-length turn (≈1,100 characters) so answers carry clipped excerpts of it, not the whole text.
const LONG_SECRET = `${SECRET} ${'The commute is wearing me down and the new manager keeps moving deadlines without telling anyone. '.repeat(10)}Nobody at Quillfeather knows yet.`;

const contains = (bytes: Uint8Array, text: string): boolean => Buffer.from(bytes).includes(Buffer.from(text, 'utf8'));

async function chatWithSecret() {
  const { store, engine } = await answeringEngine(mock.url);
  await store.createConversation({ id: 'c', title: 'work' });
  const t0 = Date.UTC(2026, 2, 2, 9);
  await engine.conversations.appendTurn({
    id: 'u1',
    conversationId: 'c',
    role: 'user',
    speaker: 'You',
    content: LONG_SECRET,
    occurredAt: t0,
  });
  await engine.conversations.appendTurn({
    id: 'u2',
    conversationId: 'c',
    role: 'user',
    speaker: 'You',
    content: 'Should I tell anyone at Quillfeather about quitting?',
    occurredAt: t0 + 60_000,
  });
  await engine.idle();
  await engine.answers.ask({ conversationId: 'c', userMessageId: 'u2', answerId: 'a1' }, () => undefined);
  await store.createConversation({ id: 'd', title: 'later' });
  await engine.conversations.appendTurn({
    id: 'v1',
    conversationId: 'd',
    role: 'user',
    speaker: 'You',
    content: 'What did I say about Quillfeather and quitting?',
    occurredAt: t0 + 86_400_000,
  });
  await engine.idle();
  await engine.answers.ask({ conversationId: 'd', userMessageId: 'v1', answerId: 'b1' }, () => undefined);
  return { store, engine };
}

describe('deleting a turn', () => {
  it('redacts it from stored requests and citations, indexes and the exported bytes', async () => {
    const { store, engine } = await chatWithSecret();
    const before = JSON.stringify([(await store.getMessage('a1'))!.metadata, (await store.getMessage('b1'))!.metadata]);
    expect(before).toContain('thinking of quitting my job');
    expect(contains(await engine.data.exportDatabase(), 'thinking of quitting my job')).toBe(true);

    expect(await engine.conversations.deleteMessage('u1')).toBe(true);

    for (const id of ['a1', 'b1']) {
      const meta = JSON.stringify((await store.getMessage(id))!.metadata);
      expect(meta).not.toContain('thinking of quitting');
      expect(meta).not.toContain('wearing me down');
      expect(meta).toContain(REDACTED);
      // The rest of what was sent stays: the question that was answered.
      expect(meta).toContain(
        id === 'a1' ? 'Should I tell anyone at Quillfeather about quitting?' : 'What did I say about Quillfeather and quitting?',
      );
    }
    expect((await engine.conversations.search('commute manager deadlines')).map((h) => h.message.id)).toEqual([]);
    const [vec] = await store.db.query<{ n: number }>("SELECT count(*) AS n FROM vectors WHERE item_kind = 'message' AND item_id = 'u1'");
    expect(Number(vec!.n)).toBe(0);

    const exported = await engine.data.exportDatabase();
    for (const needle of ['thinking of quitting', 'wearing me down', 'Nobody at Quillfeather knows yet', 'commute']) {
      expect(contains(exported, needle), needle).toBe(false);
    }
    // The export is a valid, complete memory with no free page.
    expect(contains(exported, 'Should I tell anyone at Quillfeather about quitting?')).toBe(true);
    const view = new DataView(exported.buffer, exported.byteOffset, exported.byteLength);
    expect(view.getUint32(36)).toBe(0); // header: total freelist pages
  });

  it("redacts an edited turn's old text from other answers as a deletion does; its version goes with the conversation", async () => {
    const { store, engine } = await chatWithSecret();
    expect(JSON.stringify((await store.getMessage('b1'))!.metadata)).toContain('thinking of quitting my job');
    await engine.conversations.send({
      id: 'u1b',
      conversationId: 'c',
      content: 'Work is fine; the spring review went well.',
      replaces: 'u1',
    });
    expect((await store.listMessages('c')).map((m) => m.id)).toEqual(['u1b']);
    const meta = JSON.stringify((await store.getMessage('b1'))!.metadata);
    expect(meta).not.toContain('thinking of quitting');
    expect(meta).toContain(REDACTED);
    expect(meta).toContain('What did I say about Quillfeather and quitting?');
    expect((await engine.conversations.search('commute manager deadlines')).map((h) => h.message.id)).toEqual([]);
    // The edited turns are kept as version 1 (TurnVersions.ts) until their conversation is deleted.
    expect(contains(await engine.data.exportDatabase(), 'thinking of quitting')).toBe(true);
    await engine.conversations.delete('c');
    const exported = await engine.data.exportDatabase();
    for (const needle of ['thinking of quitting', 'wearing me down', 'commute']) expect(contains(exported, needle), needle).toBe(false);
  });

  it('takes a date foresight written from the turn with it', async () => {
    const { store, engine } = await answeringEngine(mock.url, { withLlm: false });
    await store.createConversation({ id: 'c', title: 'plans' });
    await engine.conversations.appendTurn({
      id: 'p1',
      conversationId: 'c',
      role: 'user',
      speaker: 'You',
      content: 'I will hand in my resignation at Quillfeather next Friday.',
      occurredAt: Date.UTC(2026, 2, 2, 9),
    });
    await engine.idle();
    const [made] = await store.db.query<{ n: number }>("SELECT count(*) AS n FROM foresights WHERE source = 'date-parser'");
    expect(Number(made!.n)).toBe(1);
    await engine.conversations.deleteMessage('p1');
    const [left] = await store.db.query<{ n: number }>('SELECT count(*) AS n FROM foresights');
    expect(Number(left!.n)).toBe(0);
    expect(contains(await engine.data.exportDatabase(), 'resignation')).toBe(false);
  });
});

describe('redactString', () => {
  it('removes the whole text, any clipped window of it, and leaves unrelated text alone', () => {
    const d = deletedText(LONG_SECRET);
    expect(redactString(`history: ${LONG_SECRET}`, d)).toBe(`history: ${REDACTED}`);
    const excerpt = focusClip(LONG_SECRET, 300, new Set(['manag']));
    expect(excerpt.startsWith('…')).toBe(true);
    const line = `[2] Mon 2 Mar 2026 09:00 · You: ${excerpt}`;
    const out = redactString(line, d);
    expect(out.startsWith('[2] Mon 2 Mar 2026 09:00 · You: ')).toBe(true);
    expect(out).not.toContain('deadlines');
    expect(redactString('What do you think about the weather in Lisbon this week?', d)).toBe(
      'What do you think about the weather in Lisbon this week?',
    );
    expect(redactString('He said "ok" twice.', deletedText('ok'))).toBe(`He said "${REDACTED}" twice.`);
  });
});

describe('redactValue over many deleted texts', () => {
  it('changes exactly what redacting them one at a time changes, though they share their first words', () => {
    const facts = Array.from(
      { length: 40 },
      (_, i) =>
        `The user said something about item ${i}: ${['the blue kettle', 'a trip to Porto', 'her sister Lena', 'the night shift'][i % 4]} and note ${i * 7}.`,
    );
    const texts = [
      ...facts,
      'ok',
      'Ana said: short one',
      `A narrative\n\nwith a blank line and enough words to be shingled, number ${42}.`,
    ].map(deletedText);
    const value = {
      requests: [
        {
          messages: [
            {
              role: 'system',
              content: `[1] ${facts[3]}\n[2] The user said something about the weather only.\n[3] ${facts[17]!.slice(5, 60)}…\n[4] He said "ok".`,
            },
            {
              role: 'user',
              content: `Ana said: short one. A narrative\n\nwith a blank line and enough words to be shingled, number 42. ${focusClip(facts[29]!, 40, new Set())}`,
            },
            { role: 'user', content: 'Nothing deleted here, though it starts: The user said something about' },
          ],
        },
      ],
      citations: [{ id: 1, kind: 'fact', label: facts[3]!.slice(0, 59), ref: 'f3' }],
    };
    const oneAtATime = JSON.parse(JSON.stringify(value), (_k, v: unknown) =>
      typeof v === 'string' ? texts.reduce((s, d) => redactString(s, d), v) : v,
    ) as unknown;
    const out = redactValue(value, texts);
    expect(out.value).toEqual(oneAtATime);
    expect(out.changed).toBe(true);
    expect(JSON.stringify(out.value)).toContain('Nothing deleted here, though it starts: The user said something about');
    expect(redactValue({ a: 'The user said something about nothing at all.' }, texts).changed).toBe(false);
  });
});
