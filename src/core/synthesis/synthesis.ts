/**
 * LLM synthesis of the memory lifecycle (docs/architecture.md, Write path), over injected capabilities:
 *
 * - synthesiseMemCell: one call per episode → title, third-person narrative, facts, foresight.
 *   Predict-calibrate (Nemori; RecMem's refinement step): the model is shown the related facts
 *   already known and returns only what is new, updates and contradictions, so a recurring
 *   topic costs a short reply. Everything is written in one transaction; a retry replaces what
 *   an earlier run of the same cell wrote (idempotent), and an LLM failure throws before any
 *   write, leaving turns and cell untouched for the job queue to retry.
 * - summariseScene: the theme's rolling summary from its current summary + new members.
 * - updateProfile (profileUpdate.ts): add/update/delete operations from scene summaries, with
 *   history rows, conflicts recorded and a size cap with compaction.
 * - expireForesight / activeForesight: validity of forward-looking items; expired ones are
 *   marked, never deleted.
 *
 * Attribution (never store the assistant's words as the user's facts), enforced here whatever
 * the model says: a fact about an assistant-role speaker is stored with speaker "Assistant"; a
 * fact about a user-role speaker whose source turns are all assistant turns is dropped.
 */
import { DEFAULT_TIME_ZONE, startOfDay } from '../base/timeZone';
import type { Clock, Llm, LlmAbortSignal, LlmUsage } from '../base/ports';
import type {
  CellForSynthesis,
  CellTurn,
  FactRelation,
  ForesightItem,
  KnowledgeStore,
  KnownFact,
  NewFact,
  NewForesight,
} from './knowledge';
import {
  buildMemCellPrompt,
  buildScenePrompt,
  MAX_TOKENS,
  memCellTurnLine,
  memcellOutputSchema,
  sceneEpisodeLine,
  sceneOutputSchema,
  SYNTHESIS_STAGES,
  type FactOutput,
  type MemCellOutput,
  type PromptEpisode,
} from './synthesisPrompts';
import { callBudget, clipToTokens, fitLines, memCellBudget, messageTokens, synthesisBatches } from './smallModel';
import { loadTokenCounter } from '../base/tokens';
import { STOP_WORDS, normaliseText, terms } from '../base/text';

export const ASSISTANT_SPEAKER = 'Assistant';
export const DEFAULT_KNOWN_FACT_LIMIT = 20;
export const DEFAULT_PROFILE_CAP = 60;
const MAX_FACTS_PER_CELL = 30;
const MAX_FORESIGHT_PER_CELL = 10;

export interface SynthesisDeps {
  readonly llm: Llm;
  readonly store: KnowledgeStore;
  readonly clock: Clock;
  /** Ids for new profile items; default time + random. */
  readonly newId?: () => string;
  /** The user's IANA time zone: prompts show times in it and dates the model returns are its days (default UTC). */
  readonly timeZone?: string;
}

export interface SynthesisCallOptions {
  readonly jobId?: number | null;
  readonly signal?: LlmAbortSignal;
}

// ---------------------------------------------------------------------------------------------
// Stage 1: MemCell
// ---------------------------------------------------------------------------------------------

export interface MemCellSynthesisResult {
  readonly memcellId: string;
  readonly title: string;
  readonly factIds: readonly string[];
  readonly foresightIds: readonly string[];
  readonly supersededIds: readonly string[];
  /** Facts removed by the attribution rule or as restatements of known facts. */
  readonly droppedFacts: number;
  readonly knownFacts: number;
  readonly usage: LlmUsage;
}

/** Returns null when the cell no longer exists or has no turns left (nothing to do). */
export async function synthesiseMemCell(
  deps: SynthesisDeps,
  memcellId: string,
  options: SynthesisCallOptions & { knownFactLimit?: number } = {},
): Promise<MemCellSynthesisResult | null> {
  const cell = await deps.store.loadCell(memcellId);
  if (!cell) return null;
  const turns = cell.turns.filter((t) => t.role !== 'system');
  if (turns.length === 0) return null;
  const searchText = turns
    .map((t) => t.content)
    .join(' ')
    .slice(0, 2000);
  // A small model on this device: fewer known facts, a shorter reply, the turns in batches that fit its window.
  const budget = memCellBudget(deps.llm.contextTokens, MAX_TOKENS.memcell, options.knownFactLimit ?? DEFAULT_KNOWN_FACT_LIMIT);
  const known = await deps.store.relatedFacts(
    cell,
    searchText,
    budget?.knownFactLimit ?? options.knownFactLimit ?? DEFAULT_KNOWN_FACT_LIMIT,
  );
  const base = {
    startAt: cell.startAt,
    endAt: cell.endAt,
    ...(deps.timeZone ? { timeZone: deps.timeZone } : {}),
    known: known.map((k, i) => ({ label: `K${i + 1}`, speaker: k.speaker, content: k.content })),
  };
  let batches: Array<readonly [number, number]> = [[0, turns.length]];
  if (budget) {
    const count = await loadTokenCounter();
    const fixed = messageTokens(buildMemCellPrompt({ ...base, turns: [], part: { index: 99, of: 99 } }), count);
    batches = synthesisBatches(
      turns.map((t, i) => count(memCellTurnLine(t, i + 1, deps.timeZone)) + 1),
      budget.turnTokens(fixed),
    );
  }
  // Throws on transport failure or unusable output: nothing has been written yet.
  const outputs: MemCellOutput[] = [];
  const usage = { promptTokens: 0, completionTokens: 0, estimated: false };
  for (const [index, [start, end]] of batches.entries()) {
    const messages = buildMemCellPrompt({
      ...base,
      turns: turns.slice(start, end),
      firstTurn: start + 1,
      ...(batches.length > 1 ? { part: { index: index + 1, of: batches.length } } : {}),
    });
    const result = await deps.llm.completeJson({
      stage: SYNTHESIS_STAGES.memcell,
      messages,
      schema: memcellOutputSchema,
      maxTokens: budget?.outputTokens ?? MAX_TOKENS.memcell,
      ...(options.jobId !== undefined ? { jobId: options.jobId } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    outputs.push(result.value);
    addUsage(usage, result.usage);
  }
  const interpreted = interpretMemCell(mergeMemCellOutputs(outputs), { ...cell, turns }, known, deps.timeZone);
  const saved = await deps.store.saveSynthesis({ memcellId, ...interpreted, now: deps.clock.now() });
  return {
    memcellId,
    title: interpreted.title,
    factIds: saved.factIds,
    foresightIds: saved.foresightIds,
    supersededIds: saved.supersededIds,
    droppedFacts: interpreted.droppedFacts,
    knownFacts: known.length,
    usage,
  };
}

/** The batches' replies as one (turn numbers are the episode's own, so sources need no mapping). */
export function mergeMemCellOutputs(outputs: readonly MemCellOutput[]): MemCellOutput {
  if (outputs.length === 1) return outputs[0]!;
  return {
    title: outputs.find((o) => o.title)?.title ?? null,
    narrative: outputs.map((o) => o.narrative).join(' '),
    facts: outputs.flatMap((o) => o.facts),
    foresight: outputs.flatMap((o) => o.foresight),
  };
}

export interface InterpretedMemCell {
  readonly title: string;
  readonly narrative: string;
  readonly facts: NewFact[];
  readonly foresight: NewForesight[];
  readonly droppedFacts: number;
}

/** Maps the model's labels back to ids, applies the attribution rule, resolves dates. Pure. */
export function interpretMemCell(
  out: MemCellOutput,
  cell: CellForSynthesis,
  known: readonly KnownFact[],
  zone = DEFAULT_TIME_ZONE,
): InterpretedMemCell {
  const narrative = out.narrative.slice(0, 4000);
  const title = (out.title ?? narrative.split(/\s+/).slice(0, 8).join(' ')).slice(0, 200);
  const knownByLabel = new Map<string, KnownFact>();
  known.forEach((k, i) => {
    knownByLabel.set(`k${i + 1}`, k);
    knownByLabel.set(String(i + 1), k);
    knownByLabel.set(k.id.toLowerCase(), k);
  });
  const knownTexts = new Set(known.map((k) => normText(k.content)));
  const seen = new Set<string>();
  const facts: NewFact[] = [];
  let dropped = 0;
  for (const f of out.facts) {
    const norm = normText(f.text);
    const replaced = f.replaces ? knownByLabel.get(f.replaces.toLowerCase().replace(/[^a-z0-9_:-]/g, '')) : undefined;
    const relation: FactRelation = f.kind !== 'new' && replaced ? f.kind : 'new';
    // A restatement of a known fact is not new, whatever the model calls it.
    if (seen.has(norm) || (relation === 'new' && knownTexts.has(norm))) {
      dropped++;
      continue;
    }
    const attributed = attributeFact(f, cell.turns);
    if (!attributed) {
      dropped++;
      continue;
    }
    seen.add(norm);
    const sources = attributed.sources;
    facts.push({
      speaker: attributed.speaker,
      content: f.text.slice(0, 1000),
      occurredAt: sources[0]?.occurredAt ?? cell.startAt,
      validFrom: parseDate(f.validFrom, 'start', zone),
      validTo: parseDate(f.validTo, 'end', zone),
      confidence: 1,
      relation,
      replaces: relation === 'new' ? null : replaced!.id,
    });
    if (facts.length >= MAX_FACTS_PER_CELL) break;
  }
  const foresight: NewForesight[] = [];
  for (const item of out.foresight) {
    const startAt = parseDate(item.start, 'start', zone) ?? cell.startAt;
    const endAt = parseDate(item.end, 'end', zone);
    if (endAt === null || endAt < startAt) continue;
    const evidence = item.evidence.map((n) => cell.turns[n - 1]?.messageId).filter((id): id is string => id !== undefined);
    foresight.push({ content: item.text.slice(0, 500), startAt, endAt, evidence: [...new Set(evidence)] });
    if (foresight.length >= MAX_FORESIGHT_PER_CELL) break;
  }
  return { title, narrative, facts, foresight, droppedFacts: dropped };
}

const ASSISTANT_WORDS = new Set(['assistant', 'the assistant', 'ai', 'ai assistant', 'the ai', 'bot', 'chatbot']);
const USER_WORDS = new Set(['user', 'the user', 'me', 'i', 'myself']);

/**
 * Who a fact is about, and whether it may be stored:
 * - names an assistant-role speaker (or "assistant", "AI") → stored with speaker "Assistant";
 * - names a user-role speaker (or "user"/"I", or nothing) → that speaker, but dropped when every
 *   turn it comes from is an assistant turn (the assistant's words are not the user's facts);
 * - anyone else (a third party) → kept as named.
 * Source turns are the cited turn numbers, or else the turn sharing most words with the fact.
 */
export function attributeFact(
  fact: Pick<FactOutput, 'text' | 'speaker' | 'turns'>,
  turns: readonly CellTurn[],
): { speaker: string; sources: CellTurn[] } | null {
  let sources = fact.turns.map((n) => turns[n - 1]).filter((t): t is CellTurn => t !== undefined);
  if (sources.length === 0) {
    const best = bestOverlapTurn(fact.text, turns);
    if (best) sources = [best];
  }
  const raw = (fact.speaker ?? '').trim();
  const norm = raw.toLowerCase();
  const byName = new Map<string, CellTurn['role']>();
  for (const t of turns) if (!byName.has(t.speaker.toLowerCase())) byName.set(t.speaker.toLowerCase(), t.role);
  const userNames = [...new Set(turns.filter((t) => t.role === 'user').map((t) => t.speaker))];

  let role = byName.get(norm) ?? (norm !== '' ? byName.get(norm.split(/\s+/)[0]!) : undefined);
  let speaker = raw;
  if (role === undefined && ASSISTANT_WORDS.has(norm)) role = 'assistant';
  if (role === undefined && (norm === '' || USER_WORDS.has(norm))) {
    const first = sources[0];
    if (norm === '' && first) {
      role = first.role;
      speaker = first.speaker;
    } else {
      role = 'user';
      speaker = userNames.length === 1 ? userNames[0]! : raw || 'User';
    }
  } else if (role === 'user') {
    speaker =
      turns.find((t) => t.role === 'user' && (t.speaker.toLowerCase() === norm || t.speaker.toLowerCase() === norm.split(/\s+/)[0]))
        ?.speaker ?? raw;
  }
  if (role === 'assistant') return { speaker: ASSISTANT_SPEAKER, sources };
  if (role === 'user' && sources.length > 0 && sources.every((t) => t.role === 'assistant')) return null;
  return { speaker: speaker || 'User', sources };
}

function contentWords(text: string): Set<string> {
  return new Set(terms(text).filter((w) => w.length > 1 && !STOP_WORDS.has(w)));
}

function bestOverlapTurn(text: string, turns: readonly CellTurn[]): CellTurn | undefined {
  const words = contentWords(text);
  let best: CellTurn | undefined;
  let bestScore = 0;
  for (const t of turns) {
    let score = 0;
    for (const w of contentWords(t.content)) if (words.has(w)) score++;
    if (score > bestScore) {
      best = t;
      bestScore = score;
    }
  }
  return best;
}

const normText = normaliseText;

/**
 * "2023-05-08", "2023-05", "2023" or a full ISO timestamp → ms. A bare day, month or year is one
 * of `zone`'s calendar (the user's, as the prompt showed it) and resolves to its first or last
 * millisecond, so [start, end] windows include the whole end day. Null otherwise.
 */
export function parseDate(text: string | null | undefined, edge: 'start' | 'end', zone = DEFAULT_TIME_ZONE): number | null {
  if (!text) return null;
  const m = /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$/.exec(text.trim());
  if (m) {
    const year = Number(m[1]);
    const month = m[2] ? Number(m[2]) - 1 : null;
    const day = m[3] ? Number(m[3]) : null;
    if (month !== null && (month < 0 || month > 11)) return null;
    if (day !== null && (day < 1 || day > 31)) return null;
    // Local midnight of a calendar day in `zone` (noon UTC of the day is inside it everywhere).
    const midnight = (y: number, mo: number, d: number): number => startOfDay(zone, Date.UTC(y, mo, d, 12));
    if (edge === 'start') return midnight(year, month ?? 0, day ?? 1);
    if (day !== null) return midnight(year, month!, day + 1) - 1;
    if (month !== null) return midnight(year, month + 1, 1) - 1;
    return midnight(year + 1, 0, 1) - 1;
  }
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text.trim())) return null;
  const ms = Date.parse(text.trim());
  return Number.isFinite(ms) ? ms : null;
}

// ---------------------------------------------------------------------------------------------
// Stage 2: MemScene summary
// ---------------------------------------------------------------------------------------------

export interface SceneSummaryResult {
  readonly sceneId: string;
  readonly title: string;
  readonly summary: string;
  /** Null when no LLM call was needed (user-edited scene). */
  readonly usage: LlmUsage | null;
  /** Model calls made: more than one when a small context window took the episodes in batches. */
  readonly calls: number;
  /** Episodes whose narrative alone did not fit a small window and was shortened (none is left out). */
  readonly clippedEpisodes: number;
}

/** Members folded in per call when the scene already has a summary and no ids are given. */
const SCENE_RECENT_MEMBERS = 3;
const SCENE_MAX_MEMBERS = 12;
/** Room kept for the title a batch's reply carries into the next batch's prompt. */
const SCENE_TITLE_TOKENS = 60;

/**
 * Folds new members' narratives into the scene's summary. `newMemberIds` names the members that
 * joined since the last summary; without it, a scene with no summary gets its (latest 12)
 * synthesised members and one with a summary its latest 3. A user-edited scene is not rewritten
 * (only marked fresh). Returns null when there is nothing to summarise.
 *
 * With a small context window (smallModel.ts) the episodes go in consecutive batches that fit,
 * each folded into the summary the previous batch returned; only the last summary is saved, so
 * a failure in any batch writes nothing.
 */
export async function summariseScene(
  deps: SynthesisDeps,
  sceneId: string,
  options: SynthesisCallOptions & { newMemberIds?: readonly string[] } = {},
): Promise<SceneSummaryResult | null> {
  const scene = await deps.store.loadScene(sceneId);
  if (!scene) return null;
  // A forgotten summary stays forgotten (the scene's tombstone), whatever joins the scene later.
  if (scene.summaryForgotten) return null;
  const wanted = options.newMemberIds ? new Set(options.newMemberIds) : null;
  const withText = scene.members.filter((m) => m.narrative);
  const members = wanted
    ? withText.filter((m) => wanted.has(m.id)).slice(-SCENE_MAX_MEMBERS)
    : withText.slice(scene.summary ? -SCENE_RECENT_MEMBERS : -SCENE_MAX_MEMBERS);
  if (members.length === 0) return null;
  let episodes: PromptEpisode[] = members.map((m, i) => ({
    label: `E${i + 1}`,
    startAt: m.startAt,
    title: m.title,
    narrative: m.narrative!,
  }));
  let batches: Array<readonly [number, number]> = [[0, episodes.length]];
  let clippedEpisodes = 0;
  const budget = callBudget(deps.llm.contextTokens, MAX_TOKENS.scene);
  // The summary each call carries: the scene's own, then the previous batch's reply, both kept to `summaryRoom`.
  let carry = (text: string | null): string | null => text;
  if (budget) {
    const count = await loadTokenCounter();
    const current = scene.summary ? count(scene.summary) : 0;
    const summaryRoom = Math.min(Math.max(current, budget.outputTokens), Math.floor(budget.promptTokens / 3));
    carry = (text) => (text === null ? null : clipToTokens(text, summaryRoom, count));
    const fixed = messageTokens(buildScenePrompt({ title: null, summary: null, episodes: [] }), count) + summaryRoom + SCENE_TITLE_TOKENS;
    const room = Math.max(64, budget.promptTokens - fixed);
    const fitted = fitLines(
      episodes,
      (e) => sceneEpisodeLine(e),
      room,
      count,
      (e, max) => ({ ...e, narrative: clipToTokens(e.narrative, max, count) }),
      (e) => count(e.narrative),
    );
    episodes = fitted.items;
    clippedEpisodes = fitted.clipped;
    batches = synthesisBatches(fitted.costs, room);
  }
  let title = scene.title;
  let summary = carry(scene.summary);
  const usage = { promptTokens: 0, completionTokens: 0, estimated: false };
  for (const [start, end] of batches) {
    const result = await deps.llm.completeJson({
      stage: SYNTHESIS_STAGES.scene,
      messages: buildScenePrompt({ title, summary, episodes: episodes.slice(start, end) }),
      schema: sceneOutputSchema,
      maxTokens: budget?.outputTokens ?? MAX_TOKENS.scene,
      ...(options.jobId !== undefined ? { jobId: options.jobId } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    title = result.value.title;
    summary = end < episodes.length ? carry(result.value.summary) : result.value.summary;
    addUsage(usage, result.usage);
  }
  // A theme the user named keeps its name; its summary still follows its episodes.
  const savedTitle = scene.editedByUser && scene.title ? scene.title : (title ?? '').slice(0, 200);
  const savedSummary = (summary ?? '').slice(0, 4000);
  await deps.store.saveSceneSummary(sceneId, savedTitle, savedSummary, deps.clock.now());
  return { sceneId, title: savedTitle, summary: savedSummary, usage, calls: batches.length, clippedEpisodes };
}

/** Adds one call's token counts to a running total. */
export function addUsage(total: { promptTokens: number; completionTokens: number; estimated: boolean }, usage: LlmUsage): void {
  total.promptTokens += usage.promptTokens;
  total.completionTokens += usage.completionTokens;
  total.estimated ||= usage.estimated;
}

// ---------------------------------------------------------------------------------------------
// Foresight validity
// ---------------------------------------------------------------------------------------------

/** Marks active foresight whose end has passed as 'expired'; never deletes. Returns how many. */
export function expireForesight(store: Pick<KnowledgeStore, 'expireForesight'>, now: number): Promise<number> {
  return store.expireForesight(now);
}

/**
 * Foresight for the read path: active, not dismissed, not over at `now` (even if the expiry sweep
 * has not run yet). Upcoming items ("exam on Friday") are included unless includeUpcoming=false.
 */
export function activeForesight(
  store: Pick<KnowledgeStore, 'activeForesight'>,
  now: number,
  options: { includeUpcoming?: boolean; limit?: number } = {},
): Promise<ForesightItem[]> {
  return store.activeForesight(now, options);
}
