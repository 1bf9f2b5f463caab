/**
 * One very long conversation saved as a .sqlite memory file, for the browser test that opens it
 * (e2e/longConversationFile.spec.ts): `turns` turns of ≈`chars` characters each (real ChatGPT turns
 * average ≈1,150), built in Node through the store's batch append and written to `out`. Turn 5
 * mentions "the zeppelin museum" (nothing else does), so a search finds a turn far back.
 *
 *   npx tsx scripts/build-long-conversation.ts [out.sqlite] [--turns 100000] [--chars 1100]
 *
 * Deterministic: the same arguments write the same turns (times start on 2020-01-01, a minute apart).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openNodeStore } from '../src/storage/openNodeDatabase';
import type { NewTurn } from '../src/core/base/types';

export const LONG_CONVERSATION = { id: 'long-100k', title: 'A very long chat' } as const;

const SENTENCES = [
  'We went through the week in detail: the bread starter, the garden beds, the train times to Porto and the packing list.',
  'The plan for the kitchen shelves changed again after measuring the alcove, so the brackets have to move a few centimetres.',
  'Your notes on the budget were useful; the electricity bill is lower since the new boiler, and the savings goal looks reachable.',
  'For the half marathon the long runs stay on Sundays, with intervals on Tuesday and an easy recovery jog on Thursday evening.',
  'The book club picked a novel about a lighthouse keeper; the first three chapters are slow but the letters in chapter four are lovely.',
  'Learning the kanji for weather words went better with the flash cards, especially rain, snow and the one for cloudy skies.',
  'Biscuit needs the vet on Friday for the booster, and the groomer can take him the week after if the weather holds.',
  'At work the migration plan is split into three stages, and the second one depends on the database team finishing the export.',
];

/** The text of turn `i`: "Turn i", then sentences chosen by `i` up to ≈`chars` characters. */
export function longTurnText(i: number, chars: number): string {
  let text = `Turn ${i} ${i === 5 ? 'mentions the zeppelin museum. ' : ''}`;
  for (let k = 0; text.length < chars; k++) text += SENTENCES[(i * 3 + k * 5) % SENTENCES.length]! + ' ';
  return text.slice(0, Math.max(chars, text.indexOf(' ', chars) + 1 || chars)).trimEnd();
}

export async function buildLongConversation(
  file: string,
  options: { turns?: number; chars?: number } = {},
): Promise<{ turns: number; bytes: number }> {
  const turns = options.turns ?? 100_000;
  const chars = options.chars ?? 1_100;
  const start = Date.UTC(2020, 0, 1, 8);
  const store = await openNodeStore({ clock: { now: () => start + turns * 60_000 } });
  await store.createConversation({ id: LONG_CONVERSATION.id, title: LONG_CONVERSATION.title, createdAt: start });
  const BATCH = 2_000;
  for (let i = 0; i < turns; i += BATCH) {
    const batch: NewTurn[] = [];
    for (let j = i; j < Math.min(turns, i + BATCH); j++) {
      batch.push({
        id: `long:${j}`,
        conversationId: LONG_CONVERSATION.id,
        role: j % 2 ? 'assistant' : 'user',
        content: longTurnText(j, chars),
        occurredAt: start + j * 60_000,
      });
    }
    await store.appendTurns(batch);
  }
  const bytes = await store.exportDatabase();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, bytes);
  return { turns, bytes: bytes.length };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const option = (name: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? Number(args.splice(at, 2)[1]) : undefined;
  };
  const turns = option('--turns');
  const chars = option('--chars');
  const out = args[0] ?? '.cache/long-conversation.sqlite';
  const t0 = Date.now();
  const summary = await buildLongConversation(out, { ...(turns ? { turns } : {}), ...(chars ? { chars } : {}) });
  console.log(
    `${out}: ${summary.turns.toLocaleString('en-US')} turns, ${(summary.bytes / 1e6).toFixed(1)} MB in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
}
