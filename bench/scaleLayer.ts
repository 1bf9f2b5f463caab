/**
 * The synthesised layer of the scale benchmark (bench/scale.ts): what consolidation would have
 * written over the stored turns — episodes (MemCells) with titles and narratives, their facts and
 * plans (foresight), themes (MemScenes), profile items — made without an LLM, deterministically,
 * from the turns' own text, so the answer's full-text reads of facts and episodes meet postings
 * like a real memory's.
 *
 * Ratios (LAYER_RATIOS): every turn is placed in an episode of at most 20 turns (split at a new
 * conversation or a gap of an hour: the bench's sessions each carry one date); one episode per 20
 * turns is synthesised (under the default `recurrence` policy not every episode is), so a
 * LongMemEval session of ten turns is synthesised about every other time; one fact per 5 turns,
 * taken from the synthesised episodes' turns; one profile item and one plan per 300 turns (≈ 330
 * each at 100,000 turns). The counters run over the whole database (read back from it), so a layer
 * added at each checkpoint keeps every size's memory consistent, and a kept database continues it.
 *
 * Content, seeded per episode (bench/seededRandom.ts, keyed by its first turn's id): a fact is
 * "<speaker> said: <a sentence of one of its turns>"; a narrative is the first sentences of its
 * turns, speaker by speaker (≤ 1,500 characters, the length of a model's narrative); a title is
 * the first words of its first turn; a plan is a sentence of a turn dated 1–30 days after the
 * episode, valid 1–16 weeks; a profile item is keyed by a sentence's first content words.
 *
 * It is written through the storage methods the write path uses: placeTurn and closeCell (the
 * episode lifecycle; each turn's encoding score without its novelty), saveSynthesis (the consolidator's narrative, facts and foresight, with a few
 * facts updating earlier ones), updateProfileItems (the profile update), putVectors for raw
 * episodes (their turns' mean, as the lifecycle does at close), facts and narratives (as the
 * consolidator embeds them), and assignScene with the lifecycle's own clustering. Not written: the
 * date parser's foresight (the scale ingest does not run the lifecycle), scene summaries (answers
 * do not read them).
 */
import type { Embedder } from '../src/core/base/ports';
import type { Sql } from '../src/core/base/sql';
import type { LifecycleTurn, MemSceneRecord } from '../src/core/episodes/episodes';
import { consolidationPriority, ENCODING_WEIGHTS, salience, type EncodingScore } from '../src/core/episodes/encodingScore';
import { assignScene, DEFAULT_SCENE_CONFIG, type SceneState } from '../src/core/episodes/sceneClusterer';
import { centred } from '../src/core/episodes/modelSwitch';
import { STOP_WORDS } from '../src/core/base/text';
import type { NewFact, NewForesight, ProfileChange } from '../src/core/synthesis/knowledge';
import { SqlEpisodeStore } from '../src/storage/episodeRepo';
import { SqlKnowledgeStore } from '../src/storage/knowledgeRepo';
import { putVectors } from '../src/storage/vectorRepo';
import type { SqliteMemoryStore } from '../src/storage/SqliteMemoryStore';
import { seededRandom } from './seededRandom';

export const LAYER_RATIOS = {
  /** Most turns in one episode. */
  cellTurns: 20,
  /** A new episode after this gap between turns of a conversation. */
  cellGapMs: 3_600_000,
  turnsPerEpisode: 20,
  turnsPerFact: 5,
  turnsPerProfileItem: 300,
  turnsPerPlan: 300,
  /** Share of facts that update an earlier fact of the same conversation. */
  updateShare: 0.05,
  narrativeChars: 1_500,
} as const;

const DAY = 86_400_000;
const SENTENCE_CHARS = 200;

export type LayerTurn = Pick<LifecycleTurn, 'id' | 'conversationId' | 'seq' | 'role' | 'speaker' | 'content' | 'occurredAt'>;

/** What the database holds so far (the counters the ratios run on). */
export interface LayerCounts {
  /** Turns placed in episodes. */
  readonly turns: number;
  /** Synthesised episodes. */
  readonly episodes: number;
  readonly facts: number;
  readonly profile: number;
  readonly plans: number;
}

export interface PlannedFact {
  readonly speaker: string;
  readonly content: string;
  readonly occurredAt: number;
  /** An earlier planned fact of the same conversation (cell index, fact index) this one updates. */
  readonly updates: { readonly cell: number; readonly fact: number } | null;
}

export interface PlannedCell {
  readonly id: string;
  readonly turns: readonly LayerTurn[];
  /** Null: the episode stays raw. */
  readonly synthesis: {
    readonly title: string;
    readonly narrative: string;
    readonly facts: readonly PlannedFact[];
    readonly plans: readonly NewForesight[];
  } | null;
  readonly profile: readonly {
    readonly key: string;
    readonly value: string;
    readonly kind: 'explicit' | 'implicit';
    readonly confidence: number;
  }[];
}

/** A stable 32-bit hash of a string (FNV-1a): each episode's draws depend on its own id only. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function clipWords(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The turn's sentences (markup and line breaks flattened), each clipped, at most `n`. */
export function sentences(text: string, n = 5): string[] {
  const flat = text
    .replace(/[*#_`>|]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const out: string[] = [];
  for (const m of flat.matchAll(/[^.!?]+[.!?]*/g)) {
    const s = m[0].trim();
    if (s.split(' ').length >= 3) out.push(clipWords(s, SENTENCE_CHARS));
    if (out.length >= n) break;
  }
  if (out.length === 0 && flat) out.push(clipWords(flat, SENTENCE_CHARS));
  return out;
}

function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/\p{L}[\p{L}'-]*/gu) ?? []).filter((w) => w.length >= 4 && !STOP_WORDS.has(w));
}

/** Splits turns (conversation, then seq order) into episodes: a new conversation, a gap, or the size cap starts one. */
function splitCells(turns: readonly LayerTurn[]): LayerTurn[][] {
  const cells: LayerTurn[][] = [];
  let cell: LayerTurn[] = [];
  for (const t of turns) {
    const last = cell[cell.length - 1];
    if (
      last &&
      (last.conversationId !== t.conversationId ||
        t.occurredAt - last.occurredAt > LAYER_RATIOS.cellGapMs ||
        cell.length >= LAYER_RATIOS.cellTurns)
    ) {
      cells.push(cell);
      cell = [];
    }
    cell.push(t);
  }
  if (cell.length) cells.push(cell);
  return cells;
}

/**
 * The layer for `turns` (not yet in any episode, by conversation then seq), continuing from what
 * the database holds (`before`). Pure and deterministic: the same turns and counts give the same layer.
 */
export function planLayer(turns: readonly LayerTurn[], before: LayerCounts, seed = 1): { cells: PlannedCell[]; after: LayerCounts } {
  const r = LAYER_RATIOS;
  let { turns: seen, episodes, facts, profile, plans } = before;
  const cells: PlannedCell[] = [];
  // Facts planned in this call, per conversation, for updates: [cell index, fact index].
  const earlier = new Map<string, [number, number][]>();
  for (const group of splitCells(turns)) {
    const first = group[0]!;
    const id = `cell:${first.id}`;
    const random = seededRandom(hash(id) ^ seed);
    seen += group.length;
    if (Math.floor(seen / r.turnsPerEpisode) <= episodes) {
      cells.push({ id, turns: group, synthesis: null, profile: [] });
      continue;
    }
    episodes++;
    // Turns with something to say, in a seeded order.
    const candidates = group
      .filter((t) => sentences(t.content, 1).length > 0)
      .map((t) => ({ t, k: random() }))
      .sort((a, b) => a.k - b.k)
      .map((x) => x.t);
    const pick = (i: number) => candidates[i % Math.max(1, candidates.length)];
    const sentenceOf = (t: LayerTurn) => {
      const all = sentences(t.content, 3);
      return all[Math.floor(random() * all.length)] ?? '';
    };

    const factsDue = Math.min(candidates.length, Math.max(0, Math.floor(seen / r.turnsPerFact) - facts));
    const own = earlier.get(first.conversationId) ?? [];
    const cellFacts: PlannedFact[] = [];
    for (let i = 0; i < factsDue; i++) {
      const t = pick(i)!;
      const updates = own.length > 0 && random() < r.updateShare ? own[Math.floor(random() * own.length)]! : null;
      cellFacts.push({
        speaker: t.speaker,
        content: `${t.speaker} said: ${sentenceOf(t)}`,
        occurredAt: t.occurredAt,
        updates: updates ? { cell: updates[0], fact: updates[1] } : null,
      });
    }
    facts += cellFacts.length;
    cellFacts.forEach((_, i) => own.push([cells.length, i]));
    earlier.set(first.conversationId, own);

    const endAt = group[group.length - 1]!.occurredAt;
    const cellPlans: NewForesight[] = [];
    for (let i = 0; i < Math.max(0, Math.floor(seen / r.turnsPerPlan) - plans) && candidates.length; i++) {
      const t = pick(factsDue + i)!;
      const startAt = endAt + Math.ceil(random() * 30) * DAY;
      cellPlans.push({
        content: `${t.speaker} plans: ${sentenceOf(t)}`,
        startAt,
        endAt: startAt + Math.ceil(random() * 16) * 7 * DAY,
        evidence: [t.id],
      });
    }
    plans += cellPlans.length;

    const cellProfile: PlannedCell['profile'][number][] = [];
    for (let i = 0; i < Math.max(0, Math.floor(seen / r.turnsPerProfileItem) - profile) && candidates.length; i++) {
      const t = pick(factsDue + cellPlans.length + i)!;
      const value = sentenceOf(t);
      const key = contentWords(value).slice(0, 3).join(' ') || `topic ${profile + i}`;
      cellProfile.push({
        key,
        value,
        kind: random() < 0.7 ? 'explicit' : 'implicit',
        confidence: Math.round((0.6 + random() * 0.35) * 100) / 100,
      });
    }
    profile += cellProfile.length;

    const speakers = [...new Set(group.map((t) => t.speaker))];
    const title = clipWords(sentences(first.content, 1)[0] ?? speakers.join(' and '), 60);
    let narrative = `${speakers.join(' and ')} talked.`;
    for (const t of group) {
      const s = sentences(t.content, 1)[0];
      if (!s) continue;
      const next = `${narrative} ${t.speaker}: ${s}`;
      if (next.length > r.narrativeChars) break;
      narrative = next;
    }
    cells.push({ id, turns: group, synthesis: { title, narrative, facts: cellFacts, plans: cellPlans }, profile: cellProfile });
  }
  return { cells, after: { turns: seen, episodes, facts, profile, plans } };
}

/** The counters as the database holds them. */
export async function layerCounts(sql: Sql): Promise<LayerCounts> {
  const [row] = await sql.query<{ t: number; e: number; f: number; p: number; s: number }>(
    `SELECT (SELECT coalesce(sum(last_seq - first_seq + 1), 0) FROM memcells) AS t,
            (SELECT count(*) FROM memcells WHERE status = 'synthesised') AS e,
            (SELECT count(*) FROM facts) AS f,
            (SELECT count(*) FROM profile_items) AS p,
            (SELECT count(*) FROM foresights WHERE source = 'llm') AS s`,
  );
  return {
    turns: Number(row?.t ?? 0),
    episodes: Number(row?.e ?? 0),
    facts: Number(row?.f ?? 0),
    profile: Number(row?.p ?? 0),
    plans: Number(row?.s ?? 0),
  };
}

export interface LayerResult extends LayerCounts {
  /** Themes in the database (none without an embedder: the lifecycle clusters by vectors). */
  readonly scenes: number;
  /** Episodes (raw and synthesised) in the database. */
  readonly cells: number;
  /** Time to write this call's part (planning, SQL, embedding, clustering). */
  readonly ms: number;
}

/**
 * A turn's encoding score with the novelty of a turn in an empty memory (1): the novelty's gzip
 * comparisons with neighbouring turns cost more than the rest of the layer, and no read uses them.
 */
function encodingOf(text: string): EncodingScore {
  const s = salience(text);
  const w = ENCODING_WEIGHTS;
  return {
    novelty: 1,
    salience: s.score,
    score: (w.novelty + w.salience * s.score) / (w.novelty + w.salience),
    act: s.act,
    signals: s.signals,
  };
}

/** Turns read per batch; a batch ends at a conversation boundary. */
const BATCH = 4_000;

async function writeCells(store: SqliteMemoryStore, planned: readonly PlannedCell[], now: number): Promise<void> {
  await store.db.transaction(async (tx) => {
    const episodes = new SqlEpisodeStore(tx);
    const knowledge = new SqlKnowledgeStore(tx);
    const factIds: string[][] = [];
    for (const cell of planned) {
      for (const [i, t] of cell.turns.entries()) {
        const encoding = encodingOf(t.content);
        await episodes.placeTurn(
          {
            turn: { tokenCount: 0, ...t },
            encoding,
            priority: consolidationPriority(encoding),
            close: null,
            newCellId: i === 0 ? cell.id : null,
            extendCellId: i === 0 ? null : cell.id,
            foresight: [],
          },
          now,
        );
      }
      await episodes.closeCell(cell.id, cell.turns.length >= LAYER_RATIOS.cellTurns ? 'size-cap' : 'time-gap', now);
      const s = cell.synthesis;
      if (!s) {
        factIds.push([]);
        continue;
      }
      const facts: NewFact[] = s.facts.map((f) => {
        const replaces = f.updates ? (factIds[f.updates.cell]?.[f.updates.fact] ?? null) : null;
        return {
          speaker: f.speaker,
          content: f.content,
          occurredAt: f.occurredAt,
          validFrom: f.occurredAt,
          validTo: null,
          confidence: 0.8,
          relation: replaces ? 'update' : 'new',
          replaces,
        };
      });
      const saved = await knowledge.saveSynthesis({
        memcellId: cell.id,
        title: s.title,
        narrative: s.narrative,
        facts,
        foresight: s.plans,
        now,
      });
      factIds.push([...saved.factIds]);
      if (cell.profile.length) {
        await knowledge.updateProfileItems(
          () =>
            cell.profile.map((p, i): ProfileChange => ({
              item: {
                id: `${cell.id}:p${i}`,
                kind: p.kind,
                key: p.key,
                value: p.value,
                confidence: p.confidence,
                evidence: [cell.id],
                status: 'active',
                editedByUser: false,
                createdAt: now,
                updatedAt: now,
              },
              history: { op: 'add', value: p.value, confidence: p.confidence, evidence: [cell.id], reason: 'said in conversation' },
              insert: true,
            })),
          now,
        );
      }
    }
  });
}

/** Raw episodes' turn means and themes (the lifecycle at close), then facts and narratives (the consolidator). */
async function writeVectors(
  store: SqliteMemoryStore,
  embedder: Embedder,
  planned: readonly PlannedCell[],
  scenes: SceneState[],
  common: Float32Array,
  now: number,
): Promise<void> {
  const means: { id: string; mean: Float32Array; endAt: number }[] = [];
  for (const p of planned) {
    const mean = await turnMean(
      store,
      p.turns.map((t) => t.id),
      embedder,
    );
    if (mean) means.push({ id: p.id, mean, endAt: p.turns[p.turns.length - 1]!.occurredAt });
  }
  await store.db.transaction(async (tx) => {
    const episodes = new SqlEpisodeStore(tx);
    await putVectors(
      tx,
      'memcell',
      embedder.id,
      means.map((m) => ({ itemId: m.id, vector: m.mean })),
      now,
    );
    for (const { id, mean, endAt } of means) {
      const vector = centred(mean, common);
      const decision = assignScene(scenes, vector, endAt, DEFAULT_SCENE_CONFIG);
      let scene: MemSceneRecord;
      if (decision.kind === 'join') {
        scenes[scenes.findIndex((s) => s.id === decision.sceneId)] = decision.next;
        scene = { ...decision.next, centroidModel: embedder.id };
      } else {
        scene = { id: `scene:${id}`, centroid: vector, centroidModel: embedder.id, memberCount: 1, lastActivityAt: endAt };
        scenes.push({ id: scene.id, centroid: vector, memberCount: 1, lastActivityAt: endAt });
      }
      await episodes.assignScene(id, scene, decision.kind !== 'join', now);
    }
  });
  for (;;) {
    const pending = await store.pendingEmbeddings('fact', embedder.id, 500);
    if (pending.length === 0) break;
    const vectors = await embedder.embed(
      pending.map((x) => x.text),
      'document',
    );
    await store.putVectors(
      'fact',
      embedder.id,
      pending.map((x, i) => ({ itemId: x.itemId, vector: vectors[i]! })),
    );
  }
  const narrated = planned.filter((p) => p.synthesis);
  for (let i = 0; i < narrated.length; i += 256) {
    const chunk = narrated.slice(i, i + 256);
    const vectors = await embedder.embed(
      chunk.map((p) => `${p.synthesis!.title}. ${p.synthesis!.narrative}`),
      'document',
    );
    await store.putVectors(
      'memcell',
      embedder.id,
      chunk.map((p, j) => ({ itemId: p.id, vector: vectors[j]! })),
    );
  }
}

/** The unit mean of the turns' vectors, or null when none has one (the lifecycle's raw-episode vector, modelSwitch.turnMean). */
async function turnMean(store: SqliteMemoryStore, ids: readonly string[], embedder: Embedder): Promise<Float32Array | null> {
  const mean = new Float32Array(embedder.dim);
  for (const v of await store.getVectors('message', ids, embedder.id))
    if (v.vector.length === embedder.dim) for (let i = 0; i < embedder.dim; i++) mean[i]! += v.vector[i]!;
  const norm = Math.hypot(...mean);
  if (norm === 0) return null;
  for (let i = 0; i < embedder.dim; i++) mean[i]! /= norm;
  return mean;
}

/** The mean of every stored turn vector of the model (what scenes centre on: SemanticIndex.meanVector). */
async function meanTurnVector(store: SqliteMemoryStore, embedder: Embedder): Promise<Float32Array> {
  const mean = new Float32Array(embedder.dim);
  const rows = await store.loadVectors('message', embedder.id);
  for (const r of rows) if (r.vector.length === embedder.dim) for (let i = 0; i < embedder.dim; i++) mean[i]! += r.vector[i]!;
  if (rows.length) for (let i = 0; i < embedder.dim; i++) mean[i]! /= rows.length;
  return mean;
}

/**
 * Adds the layer for every turn not yet in an episode. `embedder` (the engine's active model)
 * embeds what the app would embed and clusters episodes into themes; without one the layer is
 * full-text only, as an app without a model.
 */
export async function addScaleLayer(
  store: SqliteMemoryStore,
  embedder: Embedder | null,
  options: { seed?: number; now?: number } = {},
): Promise<LayerResult> {
  const t0 = performance.now();
  const now = options.now ?? Date.now();
  let counts = await layerCounts(store.db);
  const scenes: SceneState[] = embedder
    ? (await store.episodes.scenes(embedder.id))
        .filter((s) => s.centroid !== null)
        .map((s) => ({ id: s.id, centroid: s.centroid!, memberCount: s.memberCount, lastActivityAt: s.lastActivityAt }))
    : [];
  let common: Float32Array | null = null;
  for (;;) {
    let turns: LayerTurn[] = await store.episodes.unplacedTurns(BATCH);
    if (turns.length === 0) break;
    // A full batch may end inside a conversation: leave that conversation to the next batch.
    const lastConversation = turns[turns.length - 1]!.conversationId;
    if (turns.length === BATCH && turns[0]!.conversationId !== lastConversation)
      turns = turns.filter((t) => t.conversationId !== lastConversation);
    const { cells, after } = planLayer(turns, counts, options.seed);
    await writeCells(store, cells, now);
    if (embedder) await writeVectors(store, embedder, cells, scenes, (common ??= await meanTurnVector(store, embedder)), now);
    counts = after;
  }
  const [row] = await store.db.query<{ c: number; s: number }>(
    'SELECT (SELECT count(*) FROM memcells) AS c, (SELECT count(*) FROM memscenes) AS s',
  );
  return { ...(await layerCounts(store.db)), cells: Number(row?.c ?? 0), scenes: Number(row?.s ?? 0), ms: performance.now() - t0 };
}
