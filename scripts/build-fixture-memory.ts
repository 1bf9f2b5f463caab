/**
 * A memory at the size of daily use, built through the real write path in Node and saved as a
 * .sqlite file that browser tests import through "Import…": ≈470 conversations and ≈4,700 turns of
 * real length (user turns ≈300–900 characters, assistant turns 1–2.5k, a few in Chinese, Japanese
 * and Korean) spread over three years up to today, segmented into ≈1,000 episodes by the engine,
 * with facts and foresight on each episode, hand-written saved memories, and an LLM call ledger of
 * several stages and models (the Overview's spend table). Deterministic apart from "today".
 *
 *   npx tsx scripts/build-fixture-memory.ts [out.sqlite] [--conversations 470]
 *
 * Synthesis results are written straight through the knowledge store (one narrative, two facts
 * and sometimes a plan per episode) instead of through an LLM: the fixture is about sizes and
 * shapes, not about what a model would write.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { openNodeStore } from '../src/storage/openNodeDatabase';
import { createEngine } from '../src/host/createEngine';
import type { NewTurn } from '../src/core/base/types';

const DAY = 86_400_000;

const TOPICS = [
  ['garden', 'tomatoes', 'compost', 'raised beds', 'watering schedule', "the neighbour's fence"],
  ['Lisbon trip', 'flights', 'the hotel in Alfama', 'tram 28', 'pastéis de nata', 'the train to Sintra'],
  ['budget', 'rent', 'savings account', 'the electricity bill', 'insurance', 'a spreadsheet'],
  ['running', 'the half marathon', 'interval training', 'new shoes', 'a sore knee', 'the physio'],
  ['work project', 'the quarterly deadline', 'my manager Priya', 'the migration plan', 'code review', 'the launch'],
  ['cooking', 'a lentil curry', 'sourdough starter', 'meal prep', 'the cast-iron pan', 'a dinner party'],
  ['my sister Ana', 'her wedding', 'the seating plan', 'a speech', 'the photographer', 'gift ideas'],
  ['learning Japanese', 'kanji practice', 'the JLPT N4', 'a tutor', 'listening drills', 'anime without subtitles'],
  ['the dog Biscuit', 'the vet', 'puppy training', 'a new leash', 'the dog park', 'grooming'],
  ['moving flat', 'the lease', 'packing boxes', 'a removal van', 'the deposit', 'internet setup'],
  ['reading', 'a sci-fi novel', 'the book club', 'audiobooks', 'a library card', 'a reading list'],
  ['health', 'sleep', 'a blood test', 'vitamin D', 'the dentist', 'stretching'],
];

const CJK = [
  '我下周要去上海出差，请帮我列一个行李清单，还要提醒我带上护照和充电器。会议在星期三上午九点开始，我想提前一天到达。',
  '来週の金曜日に友達と京都へ行く予定です。おすすめのお寺と、静かに抹茶を楽しめる店を教えてください。',
  '다음 달에 부산으로 이사를 가요. 이삿짐 센터를 예약해야 하고, 새 아파트의 인터넷 설치도 신청해야 해요.',
];

/** A small deterministic generator (a linear congruential one is enough for text shapes). */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

function pick<T>(rnd: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rnd() * xs.length)]!;
}

function userTurn(rnd: () => number, topic: readonly string[], i: number): string {
  const a = pick(rnd, topic);
  const b = pick(rnd, topic);
  const parts = [
    `About ${a}: I have been thinking about it since last week and I am still not sure what to do.`,
    `The thing is that ${b} keeps coming up, and every time I try to plan around it something else changes.`,
    `Yesterday I spent most of the evening on ${a}, made a few notes, and then realised I had forgotten ${b} entirely.`,
    `Could you help me lay out the options, with what each would cost in time and money, and what I would need to decide first?`,
    `For context, I usually have about an hour after work, and weekends are mostly free unless my sister visits.`,
    i % 3 === 0 ? `I will come back to ${b} next Friday, so remind me what we said today.` : `Please keep it short, a list is fine.`,
  ];
  const n = 3 + Math.floor(rnd() * 4);
  return parts.slice(0, n).join(' ');
}

function assistantTurn(rnd: () => number, topic: readonly string[]): string {
  const out = ['Here is a way to think about it.'];
  const steps = 4 + Math.floor(rnd() * 6);
  for (let k = 1; k <= steps; k++) {
    const a = pick(rnd, topic);
    const b = pick(rnd, topic);
    out.push(
      `${k}. **${a[0]!.toUpperCase()}${a.slice(1)}** — start with what you already know about ${a}, then check how it affects ${b}. ` +
        `If it takes longer than a week, split it into smaller pieces and write down the first one you can finish tonight.`,
    );
  }
  out.push('If you tell me which of these matters most, I can go into more detail on that one.');
  return out.join('\n\n');
}

export interface FixtureSummary {
  readonly conversations: number;
  readonly turns: number;
  readonly episodes: number;
  readonly facts: number;
  readonly savedMemories: number;
  readonly llmCalls: number;
  readonly bytes: number;
}

/** Builds the memory and writes it to `file`. `now` is the newest conversation's day. */
export async function buildFixtureMemory(file: string, options: { conversations?: number; now?: number } = {}): Promise<FixtureSummary> {
  const conversations = options.conversations ?? 470;
  const now = options.now ?? Date.now();
  let clockNow = now - 3 * 365 * DAY;
  const clock = { now: () => clockNow };
  const store = await openNodeStore({ clock });
  // No embedder: the browser embeds the imported turns itself (the vectors are its own model's).
  const engine = createEngine(store, { only: ['episodes', 'synthesis', 'explorer'], llm: null, clock });
  await engine.start();
  await engine.synthesis.setPolicy('off');
  const rnd = random(7);
  const span = now - clockNow;
  let turns = 0;
  for (let c = 0; c < conversations; c++) {
    // Oldest first, the last one today (an hour ago), so the timeline's "now" has episodes beside it.
    const start = Math.round(now - span + (span * (c + 1)) / conversations) - 3_600_000;
    clockNow = start;
    const topic = TOPICS[c % TOPICS.length]!;
    const id = `conv-${String(c).padStart(4, '0')}`;
    await engine.conversations.create({
      id,
      title: `${topic[0]![0]!.toUpperCase()}${topic[0]!.slice(1)}: ${pick(rnd, topic)} and ${pick(rnd, topic)} (${c + 1})`,
    });
    const batch: NewTurn[] = [];
    for (let t = 0; t < 10; t++) {
      const user = t % 2 === 0;
      const content = user ? (c % 37 === 5 && t === 0 ? pick(rnd, CJK) : userTurn(rnd, topic, t)) : assistantTurn(rnd, topic);
      batch.push({
        id: `${id}-t${t}`,
        conversationId: id,
        role: user ? 'user' : 'assistant',
        speaker: user ? 'Sam' : 'Assistant',
        content,
        occurredAt: start + t * 4 * 60_000,
      });
    }
    clockNow = start + 40 * 60_000;
    await engine.conversations.appendTurns(batch);
    turns += batch.length;
    if (c % 20 === 19) await engine.idle();
  }
  await engine.idle();
  clockNow = now;
  await engine.closeOpenCells();
  await engine.idle();

  // A narrative, two facts and sometimes a plan for every episode, as synthesis would leave them.
  const cells = await store.db.query(
    'SELECT c.id, c.start_at, c.end_at, cv.title FROM memcells c JOIN conversations cv ON cv.id = c.conversation_id ORDER BY c.start_at',
  );
  let facts = 0;
  for (const [k, row] of cells.entries()) {
    const cellId = String(row.id);
    const startAt = Number(row.start_at);
    const title = String(row.title).replace(/ \(\d+\)$/, '');
    const written = await store.knowledge.saveSynthesis({
      memcellId: cellId,
      title: `${title} — part ${(k % 3) + 1}`,
      narrative:
        `Sam talked about ${title.toLowerCase()}, weighed the options step by step and asked to be reminded of the decision later. ` +
        'The assistant laid out a plan with costs in time and money and suggested starting with the smallest piece.',
      facts: [0, 1].map((f) => ({
        speaker: 'Sam',
        content:
          f === 0
            ? `Sam is working on ${title.toLowerCase()}.`
            : `Sam usually has about an hour after work (noted ${new Date(startAt).toISOString().slice(0, 10)}).`,
        occurredAt: startAt,
        validFrom: null,
        validTo: null,
        confidence: 0.8,
        relation: 'new' as const,
        replaces: null,
      })),
      foresight:
        k % 9 === 0
          ? [
              {
                content: `Sam will come back to ${title.toLowerCase()}.`,
                startAt: startAt + 7 * DAY,
                endAt: startAt + 14 * DAY,
                evidence: [],
              },
            ]
          : [],
      now: Number(row.end_at),
    });
    facts += written.factIds.length;
  }

  // Themes, as the scene stage leaves them: one per topic, its episodes assigned to it, summarised.
  // (Episodes are grouped into themes by meaning when they close in the app; this build has no
  // embedder, so it places them by topic instead.)
  for (const [t, topic] of TOPICS.entries()) {
    const sceneId = `scene-${String(t).padStart(2, '0')}`;
    const title = `${topic[0]![0]!.toUpperCase()}${topic[0]!.slice(1)}`;
    const members = cells.filter((row) => String(row.title).startsWith(`${title}:`));
    if (members.length === 0) continue;
    const last = Math.max(...members.map((row) => Number(row.end_at)));
    await store.db.exec(
      'INSERT INTO memscenes (id, title, summary, summary_stale, member_count, last_activity_at, heat, edited_by_user, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?, 0, 0, ?, ?)',
      [
        sceneId,
        title,
        `Sam came back to ${topic[0]} again and again over three years: ${topic.slice(1, 4).join(', ')}.`,
        members.length,
        last,
        now,
        now,
      ],
    );
    await store.db.exec(`UPDATE memcells SET scene_id = ? WHERE id IN (${members.map(() => '?').join(', ')})`, [
      sceneId,
      ...members.map((row) => String(row.id)),
    ]);
  }

  const savedMemories = 60;
  for (let i = 0; i < savedMemories; i++) {
    await engine.profile.addMemory(
      `${pick(rnd, ['I prefer', 'I am allergic to', 'My favourite is', 'I never want', 'Remember that I like'])} ${pick(rnd, pick(rnd, TOPICS))} (${i + 1}).`,
    );
  }

  // The cost ledger: every stage, a few models, over the three years.
  const stages = ['answer', 'synthesis', 'scene-summary', 'profile', 'sufficiency', 'title'];
  const models = ['gpt-4o-mini', 'llama-3.1-8b-instruct-q4_K_M', 'mistral-small-3.2-24b-instruct-2506'];
  let llmCalls = 0;
  for (let i = 0; i < 3_000; i++) {
    await store.llmCalls.record({
      stage: pick(rnd, stages),
      model: pick(rnd, models),
      promptTokens: 400 + Math.floor(rnd() * 6_000),
      completionTokens: 50 + Math.floor(rnd() * 900),
      tokensEstimated: rnd() < 0.1,
      latencyMs: 300 + Math.floor(rnd() * 9_000),
      outcome: rnd() < 0.03 ? 'error' : 'ok',
      error: null,
      attempt: 1,
      jobId: null,
      createdAt: now - span + Math.floor(rnd() * span),
    });
    llmCalls++;
  }

  const episodes = cells.length;
  const bytes = await store.exportDatabase();
  engine.stop();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, bytes);
  return { conversations, turns, episodes, facts, savedMemories, llmCalls, bytes: bytes.byteLength };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // Strict flags (node:util parseArgs, as the other scripts): an unknown flag or a second file is an error.
  const { values, positionals } = parseArgs({ strict: true, allowPositionals: true, options: { conversations: { type: 'string' } } });
  if (positionals.length > 1) throw new Error('usage: npx tsx scripts/build-fixture-memory.ts [out.sqlite] [--conversations 470]');
  const conversations = values.conversations === undefined ? undefined : Number(values.conversations);
  if (conversations !== undefined && (!Number.isInteger(conversations) || conversations <= 0))
    throw new Error(`--conversations needs a positive integer, not ${values.conversations}`);
  const out = positionals[0] ?? 'test-results/fixture-memory.sqlite';
  const t0 = performance.now();
  const summary = await buildFixtureMemory(out, conversations !== undefined ? { conversations } : {});
  console.log(JSON.stringify({ file: out, ...summary, seconds: Math.round((performance.now() - t0) / 100) / 10 }));
}
