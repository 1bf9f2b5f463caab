/**
 * The profile's derived records between the fold and this device (SyncService; the records are
 * core/synthesis/derivedProfile.ts). Rules:
 *
 * - A profile update made here goes as one record keyed by what it was made from (the turns of the
 *   themes it read and of its evidence); when the fold already holds one for the same sources, that
 *   earlier one wins and this device's update is undone in its favour (as for episodes and themes).
 * - Every device applies the winning records in clock order, with each deletion of one of their
 *   turns at its place in that order; so two devices that updated the profile before hearing of each
 *   other end with the same items. Applying happens in the profile update job (Consolidator), once
 *   the evidence episodes are here, and the job asks no model when the records already read every
 *   theme it would read.
 * - This device keeps how far it applied them (the last step taken and a digest of every step up
 *   to it). A record that arrives later than one applied after it, or an own record that lost,
 *   makes the device apply them all again from its own items (the items the person wrote or edited
 *   stay; the model's are rebuilt).
 * - When sync is turned on, the profile the model made here goes up as one record adding its items,
 *   claiming the themes it stands for (none while a profile update is still due).
 */
import { canonicalHash } from '../sync/canonicalHash';
import { parseHlc } from '../sync/hybridClock';
import { madeFromKey, type SyncFold } from '../sync/SyncFold';
import type { SyncEvent, SyncEventBody } from '../sync/syncEvents';
import { THEME_GENERATOR, type DerivedEpisodeStore } from '../synthesis/derivedEpisode';
import {
  applyProfileSteps,
  evidenceTurns,
  PROFILE_GENERATOR,
  profileStepsReady,
  readDerivedProfile,
  snapshotSides,
  toDerivedSides,
  type DerivedProfile,
  type ProfileRecordDeps,
  type ProfileStep,
  type ProfileSyncState,
} from '../synthesis/derivedProfile';
import type { ProfileSideUpdate } from '../synthesis/profileUpdate';

/** What the profile needs of SyncWrites (syncWrites.ts). */
export interface ProfileSyncParts {
  readonly episodes: DerivedEpisodeStore | null;
  readonly profiles: ProfileRecordDeps | null;
}

interface Stamp {
  readonly hlc: string;
  readonly id: string;
}

/** The fold's total order: clock, then event id. */
const earlier = (a: Stamp, b: Stamp): boolean => (a.hlc !== b.hlc ? a.hlc < b.hlc : a.id < b.id);

type Sequenced = Stamp & { readonly step: ProfileStep; readonly themes: readonly string[] };

/** The winning profile records this version reads, in clock order, with the deletions of their turns at their place. */
function sequence(fold: SyncFold): Sequenced[] {
  const records: { stamp: Stamp; record: DerivedProfile; turnIds: readonly string[] }[] = [];
  const turns = new Set<string>();
  for (const d of fold.derivedRecords('profile')) {
    const record = d.madeFrom.generator === PROFILE_GENERATOR ? readDerivedProfile(d.payload) : null;
    if (!record) continue; // another version's record: left out alike by every device of this version
    d.madeFrom.turnIds.forEach((t) => turns.add(t));
    records.push({ stamp: { hlc: d.hlc, id: d.eventId }, record, turnIds: d.madeFrom.turnIds });
  }
  const deletions = new Map<string, Stamp>();
  for (const t of turns) {
    const del = fold.turnDeletion(t);
    if (del) deletions.set(t, { hlc: del.hlc, id: del.eventId });
  }
  const out: Sequenced[] = records.map(({ stamp, record, turnIds }) => ({
    ...stamp,
    themes: record.themes,
    step: {
      kind: 'record',
      record,
      at: parseHlc(stamp.hlc).wallMs,
      goneBefore: new Set(turnIds.filter((t) => deletions.has(t) && earlier(deletions.get(t)!, stamp))),
    },
  }));
  for (const [turnId, stamp] of deletions) out.push({ ...stamp, themes: [], step: { kind: 'deleted', turnId } });
  return out.sort((a, b) => (earlier(a, b) ? -1 : earlier(b, a) ? 1 : 0));
}

const digestOf = (steps: readonly Stamp[]): string => canonicalHash(steps.map((s) => s.id).sort());
const NONE: ProfileSyncState = { marker: null, digest: digestOf([]) };
const upTo = (seq: readonly Sequenced[], marker: Stamp | null): Sequenced[] => (marker ? seq.filter((s) => !earlier(marker, s)) : []);
const after = (seq: readonly Sequenced[], marker: Stamp | null): Sequenced[] => (marker ? seq.filter((s) => earlier(marker, s)) : [...seq]);
const stateAt = (seq: readonly Sequenced[], last: Stamp): ProfileSyncState => ({
  marker: { hlc: last.hlc, id: last.id },
  digest: digestOf(upTo(seq, last)),
});

/**
 * Every record again, in clock order, over the items the person wrote or edited (the model's are
 * rebuilt). Not before their evidence episodes are all here: until then the device is marked as
 * needing it (a digest that matches nothing), so the next profile update job does it.
 */
async function replay(p: ProfileRecordDeps, seq: readonly Sequenced[]): Promise<void> {
  if (
    !(await profileStepsReady(
      p.store,
      seq.map((s) => s.step),
    ))
  ) {
    const state = await p.store.appliedState();
    return p.store.setAppliedState({ marker: state?.marker ?? null, digest: '' });
  }
  await p.store.clearModelItems();
  await applyProfileSteps(
    p,
    seq.map((s) => s.step),
    { wait: false },
  );
  await p.store.setAppliedState(seq.length ? stateAt(seq, seq.at(-1)!) : NONE);
}

/**
 * Brings the profile here to the records the fold holds: the ones after those applied, in clock
 * order (waiting for a record whose episodes are not segmented here yet), or all of them again when
 * the applied ones are no longer the fold's first ones.
 */
async function profileApplied(w: ProfileSyncParts, fold: SyncFold): Promise<void> {
  const p = w.profiles;
  if (!p) return;
  const seq = sequence(fold);
  const state = (await p.store.appliedState()) ?? NONE;
  if (digestOf(upTo(seq, state.marker)) !== state.digest) return replay(p, seq);
  const rest = after(seq, state.marker);
  const taken = await applyProfileSteps(
    p,
    rest.map((s) => s.step),
    { wait: true },
  );
  if (taken > 0) await p.store.setAppliedState(stateAt(seq, rest[taken - 1]!));
}

/**
 * How long a theme summarised by another device waits for that device's profile update before this
 * device asks its own model: that device updates its profile from it shortly after (30 s debounce,
 * then one call), and its record is on its way.
 */
export const PROFILE_GRACE_MS = 10 * 60_000;

/** Whether this device's profile update may be skipped: `covered`, due now, or worth waiting for another device's record until a time. */
export type ProfileHeld = 'covered' | 'due' | { readonly waitUntil: number };

/**
 * `covered` when the records held already read every one of these themes as it is now (no model is
 * asked); a wait when the only themes left are summaries another device made within
 * PROFILE_GRACE_MS (its own update of them is likely on its way); else `due`.
 */
async function profileCovered(
  w: ProfileSyncParts,
  fold: SyncFold,
  sceneIds: readonly string[],
  here: { readonly deviceId: string; readonly now: number },
): Promise<ProfileHeld> {
  if (!w.episodes || !w.profiles) return 'due';
  const read = new Set(sequence(fold).flatMap((s) => s.themes));
  const themeRecords = new Map(fold.derivedRecords('theme').map((d) => [d.key, parseHlc(d.hlc)]));
  let waitUntil = 0;
  for (const id of sceneIds) {
    const turns = await w.episodes.themeTurnIds(id);
    if (!turns?.length) return 'due';
    const key = madeFromKey({ turnIds: turns, generator: THEME_GENERATOR });
    if (read.has(key)) continue;
    const made = themeRecords.get(key);
    if (!made || made.deviceId === here.deviceId || made.wallMs + PROFILE_GRACE_MS <= here.now) return 'due';
    waitUntil = Math.max(waitUntil, made.wallMs + PROFILE_GRACE_MS);
  }
  return waitUntil ? { waitUntil } : 'covered';
}

/** The theme records' keys of these themes, and their turns. */
async function themesRead(store: DerivedEpisodeStore, sceneIds: Iterable<string>): Promise<{ keys: string[]; turns: Set<string> }> {
  const keys = new Set<string>();
  const turns = new Set<string>();
  for (const id of sceneIds) {
    const t = await store.themeTurnIds(id);
    if (!t?.length) continue;
    keys.add(madeFromKey({ turnIds: t, generator: THEME_GENERATOR }));
    t.forEach((x) => turns.add(x));
  }
  return { keys: [...keys].sort(), turns };
}

/** The record's event body, unless one for the same sources is held (then that one wins: the profile is rebuilt to it). */
async function recordBody(
  p: ProfileRecordDeps,
  fold: SyncFold,
  themes: { keys: string[]; turns: Set<string> },
  sides: DerivedProfile['sides'],
): Promise<SyncEventBody[]> {
  const turnIds = [...new Set([...themes.turns, ...evidenceTurns(sides)])];
  if (!turnIds.length) return [];
  const madeFrom = { turnIds, generator: PROFILE_GENERATOR };
  const key = madeFromKey(madeFrom);
  if (fold.derivedRecords('profile').some((d) => d.key === key)) {
    await replay(p, sequence(fold));
    return [];
  }
  const payload: DerivedProfile = { themes: themes.keys, sides };
  // One this version could not read back would be left out everywhere, here too: not sent at all.
  if (!readDerivedProfile(payload)) return [];
  return [{ kind: 'derived.recorded', derivedKind: 'profile', madeFrom, payload }];
}

/** A profile update this device's model made, as a derived record. */
async function profileRecord(w: ProfileSyncParts, fold: SyncFold, sides: readonly ProfileSideUpdate[]): Promise<SyncEventBody[]> {
  const p = w.profiles;
  if (!p || !w.episodes) return [];
  const themes = await themesRead(w.episodes, new Set(sides.flatMap((s) => s.sceneIds)));
  return recordBody(p, fold, themes, await toDerivedSides(p.store, sides));
}

/**
 * After this device's update was recorded (`events`): it is the last step taken when nothing the
 * fold holds before it was left unapplied; else the records are applied again in clock order.
 */
async function profileRecorded(w: ProfileSyncParts, fold: SyncFold, events: readonly SyncEvent[]): Promise<void> {
  const p = w.profiles;
  const mine = events.find((e) => e.kind === 'derived.recorded' && e.derivedKind === 'profile');
  if (!p || !mine) return;
  const seq = sequence(fold);
  const state = (await p.store.appliedState()) ?? NONE;
  const rest = after(seq, state.marker);
  const at = rest.findIndex((s) => s.id === mine.id);
  const inStep = at >= 0 && digestOf(upTo(seq, state.marker)) === state.digest && rest.slice(0, at).every((s) => s.step.kind === 'deleted');
  if (inStep) await p.store.setAppliedState(stateAt(seq, rest[at]!));
  else await replay(p, seq);
}

/** The profile the model made here, as one record adding its items (when sync is turned on). */
async function profileSnapshot(w: ProfileSyncParts, fold: SyncFold): Promise<SyncEventBody[]> {
  const p = w.profiles;
  if (!p || !w.episodes) return [];
  // While an update is still due the profile does not stand for the current themes: it claims none.
  const themes = (await p.store.updatePending())
    ? { keys: [], turns: new Set<string>() }
    : await themesRead(w.episodes, await w.episodes.summarisedThemeIds());
  const sides = await snapshotSides(p);
  if (!sides.length && !themes.keys.length) return [];
  return recordBody(p, fold, themes, sides);
}

/** After the snapshot (`events`) was recorded on turning sync on or joining: it is all this device has applied. */
async function profileBaseline(w: ProfileSyncParts, events: readonly SyncEvent[]): Promise<void> {
  const p = w.profiles;
  if (!p) return;
  const mine = events.find((e) => e.kind === 'derived.recorded' && e.derivedKind === 'profile');
  await p.store.setAppliedState(mine ? { marker: { hlc: mine.hlc, id: mine.id }, digest: digestOf([mine]) } : NONE);
}

/** Whether applying remote events brought a profile record, or deleted a turn one was made from. */
function profileTouched(
  w: ProfileSyncParts,
  fold: SyncFold,
  derived: readonly { readonly derivedKind: string }[],
  deleted: ReadonlySet<string>,
): boolean {
  if (!w.profiles) return false;
  if (derived.some((e) => e.derivedKind === 'profile')) return true;
  return deleted.size > 0 && fold.derivedRecords('profile').some((d) => d.madeFrom.turnIds.some((t) => deleted.has(t)));
}

export const syncProfile = {
  profileApplied,
  profileCovered,
  profileRecord,
  profileRecorded,
  profileSnapshot,
  profileBaseline,
  profileTouched,
};
