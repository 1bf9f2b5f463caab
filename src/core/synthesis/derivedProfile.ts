/**
 * What one device's profile updates did, as synced derived records (core/sync/syncEvents.ts
 * `derived.recorded`, kind 'profile', generator PROFILE_GENERATOR), so another device neither asks
 * its model again nor ends with another profile.
 *
 * A record is one update: the operations the model proposed as this device planned them (add,
 * update, delete; kind, key, value, confidence), the themes it read (by their theme records' keys,
 * derivedEpisode.ts THEME_GENERATOR) and, for each side of the project walls, which project. Nothing
 * local is in it: an item the operation named is named by its key and value as it stood, and each
 * evidence episode by its turns. It is keyed by what it was made from — the turns of the themes it
 * read and of its evidence — so a deleted turn takes it with it, and two devices that updated from
 * the same themes keep the earlier record (core/sync/SyncFold.ts).
 *
 * Applying one runs the same plan as the device's own update (profileUpdate.ts applyProfileOps), so
 * a pinned or hand-edited item gets a conflict instead of an overwrite, history rows are written and
 * the walls hold. Every device applies the winning records in clock order (the order is kept by the
 * caller, engine/syncWrites.ts); a turn deleted between two records drops, at its place in that
 * order, what the records before it drew from its episode — as deleting a turn does here
 * (storage/deletedTurns.ts) — and an operation that rested only on turns deleted before it is left
 * out (a deletion wins).
 */
import { z } from 'zod';
import { MESSAGE_EVIDENCE, type KnowledgeStore, type ProfileItem } from './knowledge';
import { normaliseText } from '../base/text';
import { applyProfileOps, normKey, profileItemsBySide, type ProfileSideUpdate, type ResolvedProfileOp } from './profileUpdate';

/** The generator named in `madeFrom`: a change of what a profile record holds gets a new version. */
export const PROFILE_GENERATOR = 'profile-update/1';

const turnList = z.array(z.string().min(1).max(200)).min(1).max(100_000);
const words = z.string().max(5_000);

const derivedOpSchema = z.strictObject({
  op: z.enum(['add', 'update', 'delete']),
  kind: z.enum(['explicit', 'implicit']),
  key: words.nullable(),
  value: words.nullable(),
  confidence: z.number().min(0).max(1),
  reason: z.string().max(1_000),
  /** The item the operation named, as it stood (null: it named none, or only a key). */
  target: z.strictObject({ key: words, value: words }).nullable(),
  /** Each evidence episode, as its turns. */
  evidence: z.array(turnList).max(10_000),
});

export const derivedProfileSchema = z.strictObject({
  /** The theme records' keys (the hash of a theme's turns with THEME_GENERATOR) of the themes the update read. */
  themes: z.array(z.string().min(1).max(200)).max(100_000),
  /** One entry per side of the project walls: null for shared memory, else the project-only project. */
  sides: z
    .array(z.strictObject({ project: z.string().min(1).max(200).nullable(), ops: z.array(derivedOpSchema).max(100_000) }))
    .max(10_000),
});

export type DerivedProfile = z.infer<typeof derivedProfileSchema>;
type DerivedSide = DerivedProfile['sides'][number];

/** A record from another device as this version reads it, or null when it cannot (skipped, never half-applied). */
export function readDerivedProfile(payload: unknown): DerivedProfile | null {
  const r = derivedProfileSchema.safeParse(payload);
  return r.success ? r.data : null;
}

/** How far this device applied the records: the last one (or deletion) taken, and a digest of all taken up to it. */
export interface ProfileSyncState {
  readonly marker: { readonly hlc: string; readonly id: string } | null;
  readonly digest: string;
}

/** What sync reads and writes of the profile here (storage/derivedProfiles.ts). */
export interface DerivedProfileStore {
  /** Each episode's turns, oldest first; an episode that is gone is absent. */
  turnsOfEpisodes(memcellIds: readonly string[]): Promise<Map<string, string[]>>;
  /**
   * The episodes here holding any of these turns, oldest first, and whether one of the turns is
   * here but in no episode yet (segmentation has not reached it).
   */
  episodesOfTurns(turnIds: readonly string[]): Promise<{ readonly ids: readonly string[]; readonly waiting: boolean }>;
  /** Whether a profile update is still to run (or failed): then the profile does not yet stand for the current themes. */
  updatePending(): Promise<boolean>;
  /** Removes every item the model made (not the person's), with its history: before the records are applied again. */
  clearModelItems(): Promise<void>;
  /** What deleting a turn does to items drawn from its episode (storage/deletedTurns.ts), for these episodes. */
  dropItemsFrom(memcellIds: readonly string[]): Promise<void>;
  appliedState(): Promise<ProfileSyncState | null>;
  setAppliedState(state: ProfileSyncState | null): Promise<void>;
}

export interface ProfileRecordDeps {
  readonly store: DerivedProfileStore;
  readonly knowledge: KnowledgeStore;
  readonly newId: () => string;
}

async function portableSides(
  store: DerivedProfileStore,
  sides: readonly {
    readonly side: string;
    readonly ops: readonly Omit<DerivedSide['ops'][number], 'evidence'>[];
    readonly cells: readonly (readonly string[])[];
  }[],
): Promise<DerivedSide[]> {
  const cells = [...new Set(sides.flatMap((s) => s.cells.flat()))].filter((id) => !id.startsWith(MESSAGE_EVIDENCE));
  const turns = await store.turnsOfEpisodes(cells);
  return sides.map((s) => ({
    project: s.side || null,
    ops: s.ops.map((op, i) => ({ ...op, evidence: (s.cells[i] ?? []).flatMap((id) => (turns.get(id)?.length ? [turns.get(id)!] : [])) })),
  }));
}

/** This device's update in the portable form (the themes it read are named by the caller, which knows theme records). */
export function toDerivedSides(store: DerivedProfileStore, sides: readonly ProfileSideUpdate[]): Promise<DerivedSide[]> {
  return portableSides(
    store,
    sides.map((s) => ({
      side: s.side,
      ops: s.ops.map(({ op, kind, key, value, confidence, reason, target }) => ({ op, kind, key, value, confidence, reason, target })),
      cells: s.ops.map((op) => op.evidence),
    })),
  );
}

/**
 * The profile the model made here, as one update that adds each item (what goes up when sync is
 * turned on, so another device starts from the same items) and, for an item in conflict, proposes
 * again what its last conflict proposed, so the other device's plan finds the same conflict. The
 * person's own items are not in it (hand-written memories sync as themselves, a correction stays on
 * its device).
 */
export async function snapshotSides(deps: ProfileRecordDeps): Promise<DerivedSide[]> {
  const out = [];
  for (const [side, items] of await profileItemsBySide(deps.knowledge)) {
    const made = items.filter((p) => !p.editedByUser).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
    const ops: Omit<DerivedSide['ops'][number], 'evidence'>[] = [];
    const cells: (readonly string[])[] = [];
    for (const p of made) {
      const { kind, key, value, confidence } = p;
      ops.push({ op: 'add', kind, key, value, confidence, reason: 'the profile on the device that turned sync on', target: null });
      cells.push(p.evidence);
      if (p.status !== 'conflict') continue;
      const proposal = (await deps.knowledge.profileHistory(p.id)).filter((h) => h.op === 'conflict').at(-1);
      if (!proposal) continue;
      ops.push({
        op: proposal.value === null ? 'delete' : 'update',
        kind,
        key,
        value: proposal.value,
        confidence: proposal.confidence ?? confidence,
        reason: 'a conflicting proposal on the device that turned sync on',
        target: { key, value },
      });
      cells.push(proposal.evidence);
    }
    if (ops.length) out.push({ side, ops, cells });
  }
  return portableSides(deps.store, out);
}

/** The turns a record names (its evidence), for what it was made from. */
export function evidenceTurns(sides: readonly DerivedSide[]): string[] {
  return sides.flatMap((s) => s.ops.flatMap((op) => op.evidence.flat()));
}

/** One step of the records in clock order: a record to apply, or a turn deleted after the records that drew from it. */
export type ProfileStep =
  | {
      readonly kind: 'record';
      readonly record: DerivedProfile;
      /** The record's time (its clock's wall time): the items' update time, the same on every device. */
      readonly at: number;
      /** Turns of the record deleted before it (by clock): what rests on them is left out. */
      readonly goneBefore: ReadonlySet<string>;
    }
  | { readonly kind: 'deleted'; readonly turnId: string };

/**
 * Applies the steps in order; returns how many were taken. With `wait`, a record whose evidence
 * turns are here but not yet in an episode (segmentation has not reached them) stops the run, so
 * its evidence is mapped to this device's episodes once they exist; without it, evidence not found
 * is left out.
 */
export async function applyProfileSteps(
  deps: ProfileRecordDeps,
  steps: readonly ProfileStep[],
  options: { readonly wait: boolean },
): Promise<number> {
  // Which episodes here each record's evidence turns were mapped to, for a later deletion of one of them.
  const drawnFrom = new Map<string, Set<string>>();
  let taken = 0;
  for (const step of steps) {
    if (step.kind === 'deleted') {
      const cells = drawnFrom.get(step.turnId);
      if (cells?.size) await deps.store.dropItemsFrom([...cells]);
      taken++;
      continue;
    }
    const mapped = await mapEvidence(deps.store, step.record, step.goneBefore, options.wait);
    if (!mapped) break;
    await applySides(deps, mapped.sides, step.at);
    for (const [turnId, cells] of mapped.drawnFrom)
      for (const id of cells) drawnFrom.set(turnId, (drawnFrom.get(turnId) ?? new Set()).add(id));
    taken++;
  }
  return taken;
}

/** Whether every record's evidence turns that are here are in an episode here (segmentation has caught up with them). */
export async function profileStepsReady(store: DerivedProfileStore, steps: readonly ProfileStep[]): Promise<boolean> {
  for (const step of steps) {
    if (step.kind !== 'record') continue;
    for (const side of step.record.sides)
      for (const op of side.ops)
        for (const turns of op.evidence) {
          if (turns.some((t) => step.goneBefore.has(t))) continue;
          if ((await store.episodesOfTurns(turns)).waiting) return false;
        }
  }
  return true;
}

interface MappedOp {
  readonly op: DerivedSide['ops'][number];
  readonly evidence: readonly string[];
}

async function mapEvidence(
  store: DerivedProfileStore,
  record: DerivedProfile,
  goneBefore: ReadonlySet<string>,
  wait: boolean,
): Promise<{ sides: { side: string; ops: MappedOp[] }[]; drawnFrom: Map<string, readonly string[]> } | null> {
  const drawnFrom = new Map<string, readonly string[]>();
  const sides = [];
  for (const side of record.sides) {
    const ops: MappedOp[] = [];
    for (const op of side.ops) {
      const refs = op.evidence.filter((turns) => !turns.some((t) => goneBefore.has(t)));
      if (op.evidence.length && !refs.length) continue; // it rested only on deleted turns
      const evidence = new Set<string>();
      for (const turns of refs) {
        const found = await store.episodesOfTurns(turns);
        if (found.waiting && wait) return null;
        found.ids.forEach((id) => evidence.add(id));
        for (const t of turns) drawnFrom.set(t, [...(drawnFrom.get(t) ?? []), ...found.ids]);
      }
      ops.push({ op, evidence: [...evidence] });
    }
    sides.push({ side: side.project ?? '', ops });
  }
  return { sides, drawnFrom };
}

/** Stands for an item a record named that is not here: planned as the origin plans an item gone meanwhile. */
const ABSENT = '\u0000absent';

/** The item here a record named: same key, the same value first. */
function targetHere(items: readonly ProfileItem[], target: { readonly key: string; readonly value: string }): string {
  const key = normKey(target.key);
  const same = items.filter((p) => normKey(p.key) === key);
  return (same.find((p) => normaliseText(p.value) === normaliseText(target.value)) ?? same[0])?.id ?? ABSENT;
}

async function applySides(
  deps: ProfileRecordDeps,
  sides: readonly { side: string; ops: readonly MappedOp[] }[],
  at: number,
): Promise<void> {
  const bySide = await profileItemsBySide(deps.knowledge);
  for (const { side, ops } of sides) {
    if (!ops.length) continue;
    const items = bySide.get(side) ?? [];
    const resolved: ResolvedProfileOp[] = ops.map(({ op, evidence }) => ({
      op: op.op,
      itemId: op.target ? targetHere(items, op.target) : null,
      kind: op.kind,
      key: op.key,
      value: op.value,
      confidence: op.confidence,
      evidence,
      reason: op.reason,
    }));
    await applyProfileOps(deps.knowledge, items, resolved, { now: at, newId: deps.newId });
  }
}
