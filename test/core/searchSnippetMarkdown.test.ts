/**
 * Search results show an assistant turn's words, not its Markdown: "similar in
 * meaning" and the word matches both read "Biscuit", never `**Biscuit**`. User turns are shown as
 * written (the chat does not render them as Markdown either).
 */
import { describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { nearestTurns } from '../../src/core/recall/nearestTurns';
import { markdownText } from '../../src/core/base/markdownText';
import { HIGHLIGHT_END, HIGHLIGHT_START } from '../../src/core/base/types';
import type { SemanticIndex } from '../../src/core/capture/SemanticIndex';

const ANSWER =
  '## Your dog\n\nHis name is **Biscuit** — see [the vet notes](https://example.com) and `walk()`.\n\n- a *beagle*\n- ~~two~~ three years old\n\n| food | time |\n|---|---|\n| kibble | 8am |';

describe('markdownText', () => {
  it('keeps the words and drops the markup of emphasis, headings, links, code, lists and tables', () => {
    const text = markdownText(ANSWER);
    expect(text).toBe('Your dog His name is Biscuit — see the vet notes and walk(). a beagle two three years old food time kibble 8am');
    expect(markdownText('plain words, 2 * 3 = 6')).toBe('plain words, 2 * 3 = 6');
  });
});

describe('search snippets of assistant turns', () => {
  const seeded = async () => {
    const store = await openNodeStore();
    await store.createConversation({ id: 'c1', title: 'Pets' });
    await store.appendTurn({ id: 'u1', conversationId: 'c1', role: 'user', content: 'What is my **dog** called?' });
    await store.appendTurn({ id: 'a1', conversationId: 'c1', role: 'assistant', content: ANSWER });
    return store;
  };

  it('"similar in meaning" shows the words of an assistant turn, and a user turn as written', async () => {
    const store = await seeded();
    const index = {
      search: async () => [
        { id: 'a1', score: 0.9 },
        { id: 'u1', score: 0.8 },
      ],
    } as unknown as SemanticIndex;
    const embedder = { id: 'fake', dim: 2, embed: async () => [new Float32Array([1, 0])] };
    const hits = await nearestTurns({ embedder, index, store }, 'dog name');
    expect(hits.map((h) => h.snippet)).toEqual([markdownText(ANSWER), 'What is my **dog** called?']);
    expect(hits[0]!.snippet).toContain('His name is Biscuit');
    expect(hits[0]!.snippet).not.toMatch(/\*\*|##|\]\(|`/);
  });

  it('word search snippets of an assistant turn carry no markup either', async () => {
    const store = await seeded();
    const hits = await store.searchMessages('Biscuit');
    expect(hits.map((h) => h.message.id)).toEqual(['a1']);
    expect(hits[0]!.snippet).toContain(`${HIGHLIGHT_START}Biscuit${HIGHLIGHT_END}`);
    expect(hits[0]!.snippet).not.toContain('**');
  });
});
