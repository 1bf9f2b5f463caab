/**
 * Synthesis stage 3, the user profile (docs/architecture.md, Write path): add/update/delete operations proposed by
 * the model from scene summaries, resolved to ids, then planned against the current items with
 * history rows, conflicts recorded instead of overwrites (pinned items, contradicting values) and a
 * size cap with compaction. The store applies the plan in one transaction.
 */
import type { LlmUsage } from '../base/ports';
import { normaliseText } from '../base/text';
import { newId } from '../base/ids';
import {
  MESSAGE_EVIDENCE,
  type KnowledgeStore,
  type ProfileChange,
  type ProfileItem,
  type ProfileKind,
  type SceneDigest,
} from './knowledge';
import { loadTokenCounter, type TokenCounter } from '../base/tokens';
import {
  buildProfilePrompt,
  MAX_TOKENS,
  profileItemLine,
  profileOutputSchema,
  profileSceneLine,
  SYNTHESIS_STAGES,
  type ProfileOperation,
  type PromptProfileItem,
  type PromptScene,
} from './synthesisPrompts';
import { addUsage, DEFAULT_PROFILE_CAP, type SynthesisCallOptions, type SynthesisDeps } from './synthesis';
import { callBudget, clipToTokens, fitLines, messageTokens, synthesisBatches } from './smallModel';

export interface ProfileUpdateResult {
  readonly changes: readonly ProfileChange[];
  /** Operations that named an unknown item or lacked a key/value. */
  readonly skipped: number;
  readonly usage: LlmUsage | null;
  /** Model calls made: more than one when a small context window took the scenes in batches. */
  readonly calls: number;
  /** Scenes whose summary alone did not fit a small window and was shortened (none is left out). */
  readonly clippedScenes: number;
  /** Profile items not shown to a small model (the profile did not fit half its window); still kept and matched by key. */
  readonly hiddenItems: number;
  /** What each side of the walls read and the operations planned there (what sync records, derivedProfile.ts). */
  readonly sides: readonly ProfileSideUpdate[];
}

/** An operation with labels resolved to ids. */
export interface ResolvedProfileOp {
  readonly op: 'add' | 'update' | 'delete';
  readonly itemId: string | null;
  readonly kind: ProfileKind;
  readonly key: string | null;
  readonly value: string | null;
  readonly confidence: number;
  /** MemCell ids. */
  readonly evidence: readonly string[];
  readonly reason: string;
}

/** An operation as planned, with the item it named as that item stood (how another device finds it: ids are each device's own). */
export interface PlannedProfileOp extends ResolvedProfileOp {
  readonly target: { readonly key: string; readonly value: string } | null;
}

/** One side of the project walls in an update: the themes read and the operations planned against that side's items. */
export interface ProfileSideUpdate {
  /** '' for shared memory, else the project-only project whose themes these were. */
  readonly side: string;
  readonly sceneIds: readonly string[];
  readonly ops: readonly PlannedProfileOp[];
}

/** The side of a set of evidence: '' shared (or none), a project id, or null when it spans several. */
function sideFinder(walls: ReadonlyMap<string, string>): (evidence: readonly string[]) => string | null {
  return (evidence) => {
    const sides = new Set(evidence.map((e) => walls.get(e) ?? ''));
    return sides.size === 0 ? '' : sides.size === 1 ? [...sides][0]! : null; // null: mixed, on no side
  };
}

/**
 * What a profile update reads: the recent themes with a summary, grouped by side of the project
 * walls (a theme on no single side is left out), and the current items.
 */
async function profileInputs(
  store: KnowledgeStore,
  options: { readonly sceneIds?: readonly string[]; readonly sceneLimit?: number },
): Promise<{
  bySide: Map<string, SceneDigest[]>;
  allItems: readonly ProfileItem[];
  sideOf: (evidence: readonly string[]) => string | null;
}> {
  const scenes = await store.sceneDigests({
    ...(options.sceneIds ? { sceneIds: options.sceneIds } : {}),
    limit: options.sceneLimit ?? 8,
  });
  const allItems = scenes.length ? await store.profileItems() : [];
  // Project walls: each side's themes go with that side's profile items only, in requests of their
  // own, so a project-only project's themes never share a request with shared memory (nor with
  // another project's), and what the model proposes from them carries only their evidence.
  const walls = scenes.length
    ? await store.wallsOfEvidence([...scenes.flatMap((sc) => sc.memberIds), ...allItems.flatMap((p) => p.evidence)])
    : new Map<string, string>();
  const sideOf = sideFinder(walls);
  const bySide = new Map<string, SceneDigest[]>();
  for (const sc of scenes) {
    // A theme with no member left has no side to be sure of: its summary may be a walled one.
    const side = sc.memberIds.length ? sideOf(sc.memberIds) : null;
    if (side !== null) bySide.set(side, [...(bySide.get(side) ?? []), sc]);
  }
  return { bySide, allItems, sideOf };
}

/** The themes a profile update would read now (sync asks whether another device's update already read them). */
export async function profileSceneIds(store: KnowledgeStore, options: { readonly sceneLimit?: number } = {}): Promise<string[]> {
  const { bySide } = await profileInputs(store, options);
  return [...bySide.values()].flat().map((sc) => sc.id);
}

/** The current items on each side of the walls (an item whose evidence spans sides is on none). */
export async function profileItemsBySide(store: KnowledgeStore): Promise<Map<string, ProfileItem[]>> {
  const items = await store.profileItems();
  const sideOf = sideFinder(await store.wallsOfEvidence(items.flatMap((p) => p.evidence)));
  const out = new Map<string, ProfileItem[]>();
  for (const p of items) {
    const side = sideOf(p.evidence);
    if (side !== null) out.set(side, [...(out.get(side) ?? []), p]);
  }
  return out;
}

export async function updateProfile(
  deps: SynthesisDeps,
  options: SynthesisCallOptions & { sceneIds?: readonly string[]; sceneLimit?: number; cap?: number } = {},
): Promise<ProfileUpdateResult> {
  const { bySide, allItems, sideOf } = await profileInputs(deps.store, options);
  const total: MutableResult = { changes: [], skipped: 0, usage: null, calls: 0, clippedScenes: 0, hiddenItems: 0, sides: [] };
  if (bySide.size === 0) return total;
  const subjects = await deps.store.profileSubjects(4);
  for (const [side, sideScenes] of bySide) {
    const items = allItems.filter((p) => sideOf(p.evidence) === side);
    const r = await updateSide(deps, options, sideScenes, items, subjects);
    total.changes.push(...r.changes);
    total.skipped += r.skipped;
    total.calls += r.calls;
    total.clippedScenes += r.clippedScenes;
    total.hiddenItems += r.hiddenItems;
    if (r.usage) total.usage = total.usage ? sumUsage(total.usage, r.usage) : r.usage;
    total.sides.push({ side, sceneIds: sideScenes.map((sc) => sc.id), ops: r.ops });
  }
  return total;
}

type MutableResult = { -readonly [K in keyof ProfileUpdateResult]: ProfileUpdateResult[K] } & {
  changes: ProfileChange[];
  sides: ProfileSideUpdate[];
};

function sumUsage(a: LlmUsage, b: LlmUsage): LlmUsage {
  const sum = { promptTokens: 0, completionTokens: 0, estimated: false };
  addUsage(sum, a);
  addUsage(sum, b);
  return sum;
}

/**
 * The plan/apply path of a profile update, shared by this device's model (updateSide) and another
 * device's synced update (derivedProfile.ts): `ops` planned against `items` — one side's items as
 * read before the ops were made; at write time each is its current row — in one transaction.
 */
export async function applyProfileOps(
  store: KnowledgeStore,
  items: readonly ProfileItem[],
  ops: readonly ResolvedProfileOp[],
  ctx: { readonly now: number; readonly newId: () => string; readonly cap?: number },
): Promise<ProfileChange[]> {
  const ids = new Set(items.map((p) => p.id));
  const evidenceIds = new Set<string>();
  for (const op of ops) op.evidence.forEach((id) => evidenceIds.add(id));
  for (const item of items) item.evidence.forEach((id) => evidenceIds.add(id));
  const times = await store.memcellEndTimes([...evidenceIds]);
  return store.updateProfileItems(
    (current) =>
      planProfileChanges(
        current.filter((p) => ids.has(p.id)),
        ops,
        { times, now: ctx.now, cap: ctx.cap ?? DEFAULT_PROFILE_CAP, newId: ctx.newId },
      ),
    ctx.now,
  );
}

/** One side of the walls: its themes against its profile items. */
async function updateSide(
  deps: SynthesisDeps,
  options: SynthesisCallOptions & { cap?: number },
  scenes: readonly SceneDigest[],
  items: readonly ProfileItem[],
  subjects: readonly string[],
): Promise<Omit<ProfileUpdateResult, 'sides'> & { ops: PlannedProfileOp[] }> {
  const sorted = [...items].sort((a, b) => a.key.localeCompare(b.key));
  const itemByLabel = new Map<string, string>();
  sorted.forEach((p, i) => {
    itemByLabel.set(`p${i + 1}`, p.id);
    itemByLabel.set(p.id.toLowerCase(), p.id);
  });
  const evidenceByLabel = new Map<string, readonly string[]>();
  const episodeLabel = new Map<string, string>();
  for (const s of scenes) {
    for (const id of s.memberIds) {
      if (!episodeLabel.has(id)) episodeLabel.set(id, `E${episodeLabel.size + 1}`);
      evidenceByLabel.set(episodeLabel.get(id)!.toLowerCase(), [id]);
      evidenceByLabel.set(id.toLowerCase(), [id]);
    }
  }
  scenes.forEach((s, i) => evidenceByLabel.set(`s${i + 1}`, s.memberIds));
  let promptItems: PromptProfileItem[] = sorted.map((p, i) => ({
    label: `P${i + 1}`,
    kind: p.kind,
    key: p.key,
    value: p.value,
    confidence: p.confidence,
    status: p.status,
  }));
  let promptScenes: PromptScene[] = scenes.map((s, i) => ({
    label: `S${i + 1}`,
    title: s.title,
    summary: s.summary,
    episodes: s.memberIds.map((id) => episodeLabel.get(id)!),
  }));
  let batches: Array<readonly [number, number]> = [[0, promptScenes.length]];
  let clippedScenes = 0;
  let hiddenItems = 0;
  const budget = callBudget(deps.llm.contextTokens, MAX_TOKENS.profile);
  if (budget) {
    const count = await loadTokenCounter();
    const fixed = messageTokens(buildProfilePrompt({ subjects, items: [], scenes: [] }), count);
    // The current profile goes whole into every batch, within half the room; past that the
    // items the model is least likely to need to see go unshown (counted), never the scenes.
    const shown = itemsThatFit(promptItems, sorted, Math.floor((budget.promptTokens - fixed) / 2), count);
    hiddenItems = promptItems.length - shown.length;
    promptItems = shown;
    const room = Math.max(64, budget.promptTokens - fixed - promptItems.reduce((n, p) => n + count(profileItemLine(p)) + 1, 0));
    const fitted = fitLines(
      promptScenes,
      profileSceneLine,
      room,
      count,
      (sc, max) => ({ ...sc, summary: clipToTokens(sc.summary, max, count) }),
      (sc) => count(sc.summary),
    );
    promptScenes = fitted.items;
    clippedScenes = fitted.clipped;
    batches = synthesisBatches(fitted.costs, room);
  }
  // Every batch sees the same profile and labels; nothing is written until all have answered.
  const operations: ProfileOperation[] = [];
  const usage = { promptTokens: 0, completionTokens: 0, estimated: false };
  for (const [start, end] of batches) {
    const result = await deps.llm.completeJson({
      stage: SYNTHESIS_STAGES.profile,
      messages: buildProfilePrompt({ subjects, items: promptItems, scenes: promptScenes.slice(start, end) }),
      schema: profileOutputSchema,
      maxTokens: budget?.outputTokens ?? MAX_TOKENS.profile,
      ...(options.jobId !== undefined ? { jobId: options.jobId } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    operations.push(...result.value.operations);
    addUsage(usage, result.usage);
  }
  let skipped = 0;
  const ops: PlannedProfileOp[] = [];
  const byId = new Map(items.map((p) => [p.id, p]));
  for (const op of operations) {
    const resolved = resolveOp(op, itemByLabel, evidenceByLabel);
    if (!resolved) {
      skipped++;
      continue;
    }
    const named = resolved.itemId ? byId.get(resolved.itemId) : undefined;
    ops.push({ ...resolved, target: named ? { key: named.key, value: named.value } : null });
  }
  const changes = await applyProfileOps(deps.store, items, ops, {
    now: deps.clock.now(),
    newId: deps.newId ?? newId,
    ...(options.cap !== undefined ? { cap: options.cap } : {}),
  });
  return { changes, skipped, usage, calls: batches.length, clippedScenes, hiddenItems, ops };
}

/**
 * The prompt's profile items that fit `room` tokens, in label order: all when they fit; else those
 * a model most needs to see first — disputed and user-edited, then explicit, then by confidence.
 */
function itemsThatFit(
  items: readonly PromptProfileItem[],
  source: readonly ProfileItem[],
  room: number,
  count: TokenCounter,
): PromptProfileItem[] {
  const costs = items.map((p) => count(profileItemLine(p)) + 1);
  if (costs.reduce((a, b) => a + b, 0) <= room) return [...items];
  const rank = (i: number): number => {
    const p = source[i]!;
    return (p.status === 'conflict' || p.editedByUser ? 2 : 0) + (p.kind === 'explicit' ? 1 : 0) + p.confidence / 2;
  };
  const order = items.map((_, i) => i).sort((a, b) => rank(b) - rank(a));
  const keep = new Set<number>();
  let used = 0;
  for (const i of order) {
    if (used + costs[i]! > room) continue;
    keep.add(i);
    used += costs[i]!;
  }
  return items.filter((_, i) => keep.has(i));
}

function resolveOp(op: ProfileOperation, items: Map<string, string>, evidence: Map<string, readonly string[]>): ResolvedProfileOp | null {
  const label = op.id?.toLowerCase().replace(/[^a-z0-9_:-]/g, '') ?? '';
  const itemId = label ? (items.get(label) ?? null) : null;
  if (op.op !== 'add' && !itemId && !op.key) return null;
  if (op.op === 'add' && (!op.key || !op.value)) return null;
  const ids = new Set<string>();
  for (const l of op.evidence) for (const id of evidence.get(l.toLowerCase().replace(/[^a-z0-9_:-]/g, '')) ?? []) ids.add(id);
  return {
    op: op.op,
    itemId,
    kind: op.kind,
    key: op.key ? op.key.slice(0, 80) : null,
    value: op.value ? op.value.slice(0, 300) : null,
    confidence: op.confidence,
    evidence: [...ids],
    reason: (op.reason ?? '').slice(0, 300),
  };
}

/** A profile key as items are matched by it (case and spacing ignored). */
export const normKey = (k: string): string => k.toLowerCase().replace(/\s+/g, ' ').trim();
const normValue = normaliseText;

/**
 * The profile changes for `ops` on `current` (pure; runs inside the store's transaction).
 *
 * Matching: an op names its item by id; an 'add' (or an id-less 'update') whose key matches a
 * current item's key is an update of that item.
 *
 * Conflict rule — the stored value is kept, the item's status becomes 'conflict' and a history
 * row (op 'conflict') carries the proposed value (null for a proposed deletion) — when an update
 * that changes the value, or a delete:
 *   (a) targets an item the user edited (the user's word is not overwritten by a model), or
 *   (b) targets an explicit item and its evidence is not newer than the item's: the newest
 *       evidence MemCell of the proposal ends no later than the newest of the item. Newer
 *       evidence is an ordinary recency-aware update (a weight that changed), recorded in
 *       history; same-age or older evidence that disagrees is two sources disagreeing.
 * Implicit traits are soft and simply update. Re-stating the same value merges evidence.
 *
 * Cap: when more than `cap` items are live, 'active' non-user-edited items are deleted —
 * implicit before explicit, lowest confidence first, then least recently updated — each with a
 * history row (op 'delete', reason 'compaction'). Conflicts and user-edited items are kept.
 */
export function planProfileChanges(
  current: readonly ProfileItem[],
  ops: readonly ResolvedProfileOp[],
  ctx: { readonly times: ReadonlyMap<string, number>; readonly now: number; readonly cap: number; readonly newId: () => string },
): ProfileChange[] {
  const items = new Map<string, ProfileItem>(current.map((i) => [i.id, i]));
  const byKey = new Map<string, string>();
  for (const i of current) if (i.status !== 'deleted') byKey.set(normKey(i.key), i.id);
  const changes: ProfileChange[] = [];
  const newest = (ids: readonly string[]): number => ids.reduce((m, id) => Math.max(m, ctx.times.get(id) ?? -Infinity), -Infinity);
  const push = (item: ProfileItem, history: ProfileChange['history'], insert: boolean): void => {
    items.set(item.id, item);
    changes.push({ item, history, insert });
  };
  const conflict = (target: ProfileItem, op: ResolvedProfileOp, value: string | null, why: string): void => {
    push(
      { ...target, status: 'conflict', updatedAt: ctx.now },
      { op: 'conflict', value, confidence: op.confidence, evidence: op.evidence, reason: `${why}${op.reason ? `: ${op.reason}` : ''}` },
      false,
    );
  };

  for (const op of ops) {
    let target = op.itemId ? items.get(op.itemId) : undefined;
    if (!target && op.key && !(op.op === 'delete' && op.itemId)) {
      const id = byKey.get(normKey(op.key));
      target = id ? items.get(id) : undefined;
    }
    if (target?.status === 'deleted') target = undefined;
    if (!target) {
      if (op.op === 'delete' || !op.key || !op.value) continue;
      const item: ProfileItem = {
        id: ctx.newId(),
        kind: op.kind,
        key: op.key,
        value: op.value,
        confidence: op.confidence,
        evidence: op.evidence,
        status: 'active',
        editedByUser: false,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      };
      byKey.set(normKey(item.key), item.id);
      push(item, { op: 'add', value: item.value, confidence: item.confidence, evidence: item.evidence, reason: op.reason }, true);
      continue;
    }
    const evidenceIsNewer = newest(op.evidence) > newest(target.evidence);
    if (op.op === 'delete') {
      if (target.editedByUser) conflict(target, op, null, 'proposed deletion of a user-edited item');
      else if (target.kind === 'explicit' && !evidenceIsNewer) conflict(target, op, null, 'proposed deletion without newer evidence');
      else {
        byKey.delete(normKey(target.key));
        push(
          { ...target, status: 'deleted', updatedAt: ctx.now },
          { op: 'delete', value: target.value, confidence: target.confidence, evidence: op.evidence, reason: op.reason },
          false,
        );
      }
      continue;
    }
    const value = op.value ?? target.value;
    // The messages that asked for the item (savedMemories.ts) stay linked whatever the episodes say.
    const asked = target.evidence.filter((e) => e.startsWith(MESSAGE_EVIDENCE));
    const evidence = [...asked, ...[...new Set([...op.evidence, ...target.evidence])].filter((e) => !asked.includes(e)).slice(0, 20)];
    if (normValue(value) === normValue(target.value)) {
      if (op.confidence === target.confidence && evidence.length === target.evidence.length) continue;
      push(
        { ...target, confidence: op.confidence, evidence, updatedAt: ctx.now },
        { op: 'update', value: target.value, confidence: op.confidence, evidence: op.evidence, reason: op.reason || 'confirmed' },
        false,
      );
      continue;
    }
    if (target.editedByUser) conflict(target, op, value, 'differs from the value the user set');
    else if (target.kind === 'explicit' && !evidenceIsNewer) conflict(target, op, value, 'disagrees with evidence that is not older');
    else {
      push(
        { ...target, value, confidence: op.confidence, evidence, status: 'active', updatedAt: ctx.now },
        { op: 'update', value, confidence: op.confidence, evidence: op.evidence, reason: op.reason },
        false,
      );
    }
  }

  const live = [...items.values()].filter((i) => i.status !== 'deleted');
  let excess = live.length - ctx.cap;
  if (excess > 0) {
    const candidates = live
      .filter((i) => i.status === 'active' && !i.editedByUser)
      .sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'implicit' ? -1 : 1) || a.confidence - b.confidence || a.updatedAt - b.updatedAt);
    for (const item of candidates) {
      if (excess <= 0) break;
      excess--;
      push(
        { ...item, status: 'deleted', updatedAt: ctx.now },
        { op: 'delete', value: item.value, confidence: item.confidence, evidence: [], reason: `compaction: profile over ${ctx.cap} items` },
        false,
      );
    }
  }
  // The store applies changes in order, so an item added and compacted in one plan shows both rows.
  return changes;
}
