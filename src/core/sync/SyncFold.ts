/**
 * The deterministic fold: every synced event a device holds, its own and others', in any order and
 * with duplicates, becomes one state — the same state on every device holding the same events.
 * The rules are the ones docs/sync-spike.md states ("Conflict rules", "Deletion propagation"):
 *
 * - Events are deduplicated by id: a duplicated delivery changes nothing.
 * - "Later wins" compares (hlc, event id); the hlc already ends in the device id, so equal clock
 *   readings are broken by device id. Renames, moves, switches, edits and settings are each a
 *   separate last-writer-wins register.
 * - The first `conversation.created`, `turn.appended` or `memory.written` for an id (lowest hlc)
 *   fixes the record; a later one with the same id is a no-op, so the same history imported on two
 *   devices yields each turn once. An edit never creates a record.
 * - Projects: the first `project.created` fixes the project (its memory mode never changes); each
 *   of name, instructions, "use the profile" and archived is a register of its own; a
 *   `project.deleted` tombstone wins over them, and a conversation whose project is deleted is in
 *   no project (as deleting a project with "keep its chats" leaves it on the device that did it).
 * - `turn.hidden` is a register per turn: hidden (an earlier version, kept but not shown) or shown
 *   again; the later one wins. A hidden turn is not deleted: its words stay for the version switcher.
 * - Versions made on two devices at one place (both edited the same message, or regenerated the
 *   same answer, while cut off): a place is the turn the versions follow (`after`); the versions
 *   there are the turns that opened one (`version`) and the turns a `turn.hidden` ever named. Of
 *   those not hidden, the one shown last wins — its `turn.appended`, or the `turn.hidden: false`
 *   that showed it again, whichever is later — and the others are hidden with every turn that
 *   followed them (`after` chains): kept as earlier versions, not deleted.
 * - A conversation's turns are in the order of their `turn.appended` (hlc, then event id), so turns
 *   two devices wrote into one chat while cut off interleave by the clock, the same on every device.
 * - A tombstone (`turn.deleted`, `memory.deleted`) wins over every edit and every append of that id,
 *   whatever the clocks, and a deleted turn takes with it every derived record made from it and a
 *   memory asked for in it.
 * - `derived.recorded` is keyed by the hash of its `madeFrom`: the lowest hlc wins, later ones drop.
 * - `derived.forgotten` (the person deleted a fact, a plan or a profile item the model made) is a
 *   set of (kind, hash of the words): once there, the words are blocked on every device.
 *
 * Each rule keeps the minimum or maximum of a total order, or a set union, so adding events in any
 * order reaches the same state; that is what makes the fold incremental (`add`) and still exact.
 * Known limit: an id names one event; two *different* events under one id (a writer bug, as sealing
 * binds the id) keep whichever arrived first.
 */
import { canonicalHash } from './canonicalHash';
import type { PROJECT_FIELDS } from './syncEvents';
import { type SyncEvent } from './syncEvents';

type Value = string | number | boolean | null;
type Of<K extends SyncEvent['kind']> = Extract<SyncEvent, { kind: K }>;

export interface FoldedConversation {
  readonly id: string;
  readonly title: string;
  readonly createdAt: number;
  readonly projectId: string | null;
  readonly useMemory: boolean;
  readonly remember: boolean;
}

export interface FoldedTurn {
  readonly id: string;
  readonly conversationId: string;
  readonly role: 'user' | 'assistant' | 'system';
  readonly text: string;
  readonly occurredAt: number;
  readonly edited: boolean;
  /** Kept as an earlier version (an edit or a regenerated answer replaced it), not shown. */
  readonly hidden: boolean;
}

export interface FoldedProject {
  readonly id: string;
  readonly name: string;
  readonly instructions: string;
  readonly memory: 'shared' | 'project-only';
  readonly useProfile: boolean;
  readonly archived: boolean;
  readonly createdAt: number;
}

export interface FoldedMemory {
  readonly id: string;
  readonly text: string;
  readonly edited: boolean;
  readonly fromTurnId: string | null;
  readonly reason: string | null;
}

export interface FoldedDerived {
  /** SHA-256 over the canonical `madeFrom` (turn ids sorted and unique, generator). */
  readonly key: string;
  readonly derivedKind: Of<'derived.recorded'>['derivedKind'];
  readonly madeFrom: { readonly turnIds: readonly string[]; readonly generator: string };
  readonly payload: unknown;
  /** The winning event, so a device can tell whether its own record was kept. */
  readonly eventId: string;
}

/** Arrays are sorted (by id, key or name) so the state serialises and hashes identically everywhere. */
export interface SyncState {
  readonly conversations: readonly FoldedConversation[];
  readonly projects: readonly FoldedProject[];
  readonly turns: readonly FoldedTurn[];
  readonly memories: readonly FoldedMemory[];
  readonly settings: readonly { readonly name: string; readonly value: Value }[];
  readonly derived: readonly FoldedDerived[];
  readonly deletedTurnIds: readonly string[];
  readonly deletedMemoryIds: readonly string[];
  readonly deletedProjectIds: readonly string[];
  /** The model's items a person deleted, as `kind:hash`. */
  readonly forgotten: readonly string[];
}

interface Stamp {
  readonly hlc: string;
  readonly id: string;
}

/** True when `a` is later than `b` in the fold's total order. */
function later(a: Stamp, b: Stamp): boolean {
  return a.hlc !== b.hlc ? a.hlc > b.hlc : a.id > b.id;
}

/** Keeps the latest (or, with `first`, the earliest) event per key. */
class Registers<E extends Stamp> {
  readonly byKey = new Map<string, E>();
  constructor(private readonly first = false) {}
  offer(key: string, event: E): void {
    const held = this.byKey.get(key);
    if (!held || (this.first ? later(held, event) : later(event, held))) this.byKey.set(key, event);
  }
  get(key: string): E | undefined {
    return this.byKey.get(key);
  }
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const sortedStrings = (values: Iterable<string>) => [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

export function madeFromKey(madeFrom: { readonly turnIds: readonly string[]; readonly generator: string }): string {
  return canonicalHash({ turnIds: sortedStrings(new Set(madeFrom.turnIds)), generator: madeFrom.generator });
}

export class SyncFold {
  private readonly seen = new Set<string>();
  private readonly created = new Registers<Of<'conversation.created'>>(true);
  private readonly titles = new Registers<Of<'conversation.renamed'>>();
  private readonly moves = new Registers<Of<'conversation.moved'>>();
  private readonly switches = new Registers<Of<'conversation.switched'>>();
  private readonly appended = new Registers<Of<'turn.appended'>>(true);
  private readonly turnEdits = new Registers<Of<'turn.edited'>>();
  private readonly deletedTurns = new Set<string>();
  private readonly hiddenTurns = new Registers<Of<'turn.hidden'>>();
  private readonly written = new Registers<Of<'memory.written'>>(true);
  private readonly memoryEdits = new Registers<Of<'memory.edited'>>();
  private readonly deletedMemories = new Set<string>();
  private readonly settings = new Registers<Of<'setting.set'>>();
  private readonly projectsCreated = new Registers<Of<'project.created'>>(true);
  private readonly projectFields = new Registers<Of<'project.set'>>();
  private readonly deletedProjects = new Set<string>();
  private readonly derived = new Registers<Of<'derived.recorded'> & { readonly key: string }>(true);
  /** What the person deleted of the model's items (`kind:hash`): a set, like the other deletions. */
  private readonly forgotten = new Set<string>();
  private readonly turnsByConversation = new Map<string, Set<string>>();
  /** Per conversation: the turns hidden because another version at their place won (computed on demand). */
  private readonly supersededCache = new Map<string, ReadonlySet<string>>();
  /** The first deletion of each turn, for derived records applied in clock order (derivedRecords). */
  private readonly turnDeletions = new Registers<Of<'turn.deleted'>>(true);

  /** Adds events; returns how many were new (not seen before by id). */
  add(events: Iterable<SyncEvent>): number {
    let added = 0;
    for (const event of events) {
      if (this.seen.has(event.id)) continue;
      this.seen.add(event.id);
      added += 1;
      this.apply(event);
    }
    return added;
  }

  /** How many distinct events have been folded. */
  get size(): number {
    return this.seen.size;
  }

  private apply(e: SyncEvent): void {
    switch (e.kind) {
      case 'conversation.created':
        return this.created.offer(e.conversationId, e);
      case 'conversation.renamed':
        return this.titles.offer(e.conversationId, e);
      case 'conversation.moved':
        return this.moves.offer(e.conversationId, e);
      case 'conversation.switched':
        return this.switches.offer(`${e.conversationId}\u0000${e.switch}`, e);
      case 'turn.appended': {
        this.appended.offer(e.turnId, e);
        const conversationId = this.appended.get(e.turnId)!.conversationId;
        const turns = this.turnsByConversation.get(conversationId) ?? new Set<string>();
        this.turnsByConversation.set(conversationId, turns.add(e.turnId));
        this.supersededCache.delete(conversationId);
        return;
      }
      case 'turn.edited':
        return this.turnEdits.offer(e.turnId, e);
      case 'turn.deleted':
        this.deletedTurns.add(e.turnId);
        this.turnDeletions.offer(e.turnId, e);
        return this.#changed(e.turnId);
      case 'turn.hidden':
        this.hiddenTurns.offer(e.turnId, e);
        return this.#changed(e.turnId);
      case 'memory.written':
        return this.written.offer(e.memoryId, e);
      case 'memory.edited':
        return this.memoryEdits.offer(e.memoryId, e);
      case 'memory.deleted':
        this.deletedMemories.add(e.memoryId);
        return;
      case 'setting.set':
        return this.settings.offer(e.name, e);
      case 'project.created':
        return this.projectsCreated.offer(e.projectId, e);
      case 'project.set':
        return this.projectFields.offer(`${e.projectId}\u0000${e.field}`, e);
      case 'project.deleted':
        this.deletedProjects.add(e.projectId);
        return;
      case 'derived.forgotten':
        this.forgotten.add(`${e.item}:${e.textHash}`);
        return;
      case 'device.checkpoint':
        return; // progress only: it changes no state
      case 'derived.recorded': {
        const key = madeFromKey(e.madeFrom);
        return this.derived.offer(key, { ...e, key });
      }
    }
  }

  #changed(turnId: string): void {
    const conversationId = this.appended.get(turnId)?.conversationId;
    if (conversationId !== undefined) this.supersededCache.delete(conversationId);
  }

  /** A turn's version lost to a later one at its place, or followed one that did (see the rules above). */
  #superseded(conversationId: string): ReadonlySet<string> {
    const cached = this.supersededCache.get(conversationId);
    if (cached) return cached;
    const children = new Map<string, string[]>();
    for (const id of this.turnsByConversation.get(conversationId) ?? []) {
      const after = this.appended.get(id)?.after;
      if (after === undefined || this.deletedTurns.has(id)) continue;
      children.set(after, [...(children.get(after) ?? []), id]);
    }
    const lost: string[] = [];
    for (const kids of children.values()) {
      const versions = kids.filter((id) => this.appended.get(id)!.version || this.hiddenTurns.get(id) !== undefined);
      if (!versions.some((id) => this.appended.get(id)!.version)) continue;
      const shown = versions.filter((id) => !this.hiddenTurns.get(id)?.hidden);
      if (shown.length < 2) continue;
      const shownAt = (id: string): Stamp => {
        const appended = this.appended.get(id)!;
        const again = this.hiddenTurns.get(id);
        return again && later(again, appended) ? again : appended;
      };
      const winner = shown.reduce((best, id) => (later(shownAt(id), shownAt(best)) ? id : best));
      lost.push(...shown.filter((id) => id !== winner));
    }
    const out = new Set<string>();
    while (lost.length) {
      const id = lost.pop()!;
      if (out.has(id)) continue;
      out.add(id);
      lost.push(...(children.get(id) ?? []));
    }
    this.supersededCache.set(conversationId, out);
    return out;
  }

  #hidden(t: Of<'turn.appended'>): boolean {
    return (this.hiddenTurns.get(t.turnId)?.hidden ?? false) || this.#superseded(t.conversationId).has(t.turnId);
  }

  /**
   * The shown turns of a conversation that are part of a version (they, or a turn they follow,
   * opened one or were ever hidden): the turns a `turn.hidden` elsewhere can bring into view
   * without naming them (another version at their place was hidden, so theirs wins again).
   */
  versionTurnsIn(conversationId: string): string[] {
    const memo = new Map<string, boolean>();
    const inVersion = (id: string, depth = 0): boolean => {
      const known = memo.get(id);
      if (known !== undefined) return known;
      const e = this.appended.get(id);
      const own = !!e && (e.version === true || this.hiddenTurns.get(id) !== undefined);
      const result = own || (!!e?.after && depth < 10_000 && inVersion(e.after, depth + 1));
      memo.set(id, result);
      return result;
    };
    const out: string[] = [];
    for (const id of this.turnsByConversation.get(conversationId) ?? []) {
      const t = this.appended.get(id)!;
      if (!this.deletedTurns.has(id) && !this.#hidden(t) && inVersion(id)) out.push(id);
    }
    return out;
  }

  /** True when the fold holds turn `id` (appended, not deleted). */
  knowsTurn(id: string): boolean {
    return this.appended.get(id) !== undefined && !this.deletedTurns.has(id);
  }

  /** True when turn `a` comes before turn `b` in their conversation (both appended; by the appended events' clocks). */
  turnBefore(a: string, b: string): boolean {
    const ea = this.appended.get(a);
    const eb = this.appended.get(b);
    return !!ea && !!eb && later(eb, ea);
  }

  /** One conversation as folded (null: no `conversation.created` for it yet). */
  conversation(id: string): FoldedConversation | null {
    const c = this.created.get(id);
    return c ? this.#conversation(c) : null;
  }

  #conversation(c: Of<'conversation.created'>): FoldedConversation {
    const id = c.conversationId;
    const on = (name: 'useMemory' | 'remember') => this.switches.get(`${id}\u0000${name}`)?.on ?? true;
    const projectId = this.moves.get(id)?.projectId ?? null;
    return {
      id,
      title: this.titles.get(id)?.title ?? c.title,
      createdAt: c.createdAt,
      projectId: projectId !== null && this.deletedProjects.has(projectId) ? null : projectId,
      useMemory: on('useMemory'),
      remember: on('remember'),
    };
  }

  /** The clock of the rename that wins for a conversation (null: never renamed). */
  titleHlc(id: string): string | null {
    return this.titles.get(id)?.hlc ?? null;
  }

  /** The conversations the fold puts in this project. */
  conversationsIn(projectId: string): string[] {
    return [...this.created.byKey.values()]
      .map((c) => this.#conversation(c))
      .filter((c) => c.projectId === projectId)
      .map((c) => c.id);
  }

  /** One project as folded: null when never created, 'deleted' after its tombstone. */
  project(id: string): FoldedProject | 'deleted' | null {
    if (this.deletedProjects.has(id)) return 'deleted';
    const p = this.projectsCreated.get(id);
    return p ? this.#project(p) : null;
  }

  #project(p: Of<'project.created'>): FoldedProject {
    const field = (name: (typeof PROJECT_FIELDS)[number]) => this.projectFields.get(`${p.projectId}\u0000${name}`)?.value;
    const name = field('name');
    const instructions = field('instructions');
    const useProfile = field('useProfile');
    const archived = field('archived');
    return {
      id: p.projectId,
      name: typeof name === 'string' ? name : p.name,
      instructions: typeof instructions === 'string' ? instructions : p.instructions,
      memory: p.memory,
      useProfile: typeof useProfile === 'boolean' ? useProfile : p.useProfile,
      archived: typeof archived === 'boolean' ? archived : false,
      createdAt: p.createdAt,
    };
  }

  /** One turn as folded: null when never appended, 'deleted' after its tombstone. */
  turn(id: string): FoldedTurn | 'deleted' | null {
    if (this.deletedTurns.has(id)) return 'deleted';
    const t = this.appended.get(id);
    if (!t) return null;
    const edit = this.turnEdits.get(id);
    const hidden = this.#hidden(t);
    return {
      id,
      conversationId: t.conversationId,
      role: t.role,
      text: edit?.text ?? t.text,
      occurredAt: t.occurredAt,
      edited: !!edit,
      hidden,
    };
  }

  /** The turns of a conversation held as hidden versions by a `turn.hidden` (not deleted). */
  hiddenTurnsIn(conversationId: string): string[] {
    const out: string[] = [];
    for (const id of this.turnsByConversation.get(conversationId) ?? [])
      if (this.hiddenTurns.get(id)?.hidden && !this.deletedTurns.has(id)) out.push(id);
    return out;
  }

  /** One hand-written memory as folded: null when never written, 'deleted' after its tombstone. */
  memory(id: string): FoldedMemory | 'deleted' | null {
    const m = this.written.get(id);
    if (this.deletedMemories.has(id) || (m && this.#goneWithTurn(m))) return 'deleted';
    return m ? this.#memory(m) : null;
  }

  /** A memory asked for in a message goes with that message. */
  #goneWithTurn(m: Of<'memory.written'>): boolean {
    return m.fromTurnId !== undefined && this.deletedTurns.has(m.fromTurnId);
  }

  #memory(m: Of<'memory.written'>): FoldedMemory {
    const edit = this.memoryEdits.get(m.memoryId);
    return { id: m.memoryId, text: edit?.text ?? m.text, edited: !!edit, fromTurnId: m.fromTurnId ?? null, reason: m.reason ?? null };
  }

  /** The derived record that wins for these sources (the earliest clock), null when none or a source turn is deleted. */
  derivedFor(madeFrom: { readonly turnIds: readonly string[]; readonly generator: string }): FoldedDerived | null {
    const d = this.derived.get(madeFromKey(madeFrom));
    if (!d || d.madeFrom.turnIds.some((id) => this.deletedTurns.has(id))) return null;
    return {
      key: d.key,
      derivedKind: d.derivedKind,
      madeFrom: { turnIds: sortedStrings(new Set(d.madeFrom.turnIds)), generator: d.madeFrom.generator },
      payload: d.payload,
      eventId: d.id,
    };
  }

  /**
   * Every winning record of a derived kind, by clock — including those made from a turn deleted
   * since (`derivedFor` hides them): a device that applies records in clock order (the profile,
   * core/synthesis/derivedProfile.ts) replays what it applied before the deletion too.
   */
  derivedRecords(kind: FoldedDerived['derivedKind']): (FoldedDerived & { readonly hlc: string })[] {
    return [...this.derived.byKey.values()]
      .filter((d) => d.derivedKind === kind)
      .sort((a, b) => (later(a, b) ? 1 : later(b, a) ? -1 : 0))
      .map((d) => ({
        key: d.key,
        derivedKind: d.derivedKind,
        madeFrom: { turnIds: sortedStrings(new Set(d.madeFrom.turnIds)), generator: d.madeFrom.generator },
        payload: d.payload,
        eventId: d.id,
        hlc: d.hlc,
      }));
  }

  /** The event that first deleted a turn (its id and clock), null when none did. */
  turnDeletion(turnId: string): { readonly eventId: string; readonly hlc: string } | null {
    const e = this.turnDeletions.get(turnId);
    return e ? { eventId: e.id, hlc: e.hlc } : null;
  }

  /** True when a device deleted a model item of this kind and words hash. */
  isForgotten(item: 'fact' | 'foresight' | 'profile', textHash: string): boolean {
    return this.forgotten.has(`${item}:${textHash}`);
  }

  /** A setting's latest value (undefined: never set through sync). */
  setting(name: string): Value | undefined {
    return this.settings.get(name)?.value;
  }

  /** How many turns are live (appended, not deleted). */
  get liveTurns(): number {
    let n = 0;
    for (const id of this.appended.byKey.keys()) if (!this.deletedTurns.has(id)) n += 1;
    return n;
  }

  state(): SyncState {
    const conversations = [...this.created.byKey.values()].map((c) => this.#conversation(c));
    const projects = [...this.projectsCreated.byKey.values()]
      .filter((p) => !this.deletedProjects.has(p.projectId))
      .map((p) => this.#project(p));
    const turns = [...this.appended.byKey.values()]
      .filter((t) => !this.deletedTurns.has(t.turnId))
      .map((t): FoldedTurn => {
        const edit = this.turnEdits.get(t.turnId);
        const { conversationId, role, occurredAt } = t;
        const hidden = this.#hidden(t);
        return { id: t.turnId, conversationId, role, text: edit?.text ?? t.text, occurredAt, edited: edit !== undefined, hidden };
      });
    const memories = [...this.written.byKey.values()]
      .filter((m) => !this.deletedMemories.has(m.memoryId) && !this.#goneWithTurn(m))
      .map((m) => this.#memory(m));
    const derived = [...this.derived.byKey.values()]
      .filter((d) => !d.madeFrom.turnIds.some((id) => this.deletedTurns.has(id)))
      .map((d): FoldedDerived => ({
        key: d.key,
        derivedKind: d.derivedKind,
        madeFrom: { turnIds: sortedStrings(new Set(d.madeFrom.turnIds)), generator: d.madeFrom.generator },
        payload: d.payload,
        eventId: d.id,
      }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const settings = sortedStrings(this.settings.byKey.keys()).map((name) => ({ name, value: this.settings.get(name)!.value }));
    return {
      conversations: conversations.sort(byId),
      projects: projects.sort(byId),
      turns: turns.sort(byId),
      memories: memories.sort(byId),
      settings,
      derived,
      deletedTurnIds: sortedStrings(this.deletedTurns),
      deletedMemoryIds: sortedStrings(this.deletedMemories),
      deletedProjectIds: sortedStrings(this.deletedProjects),
      forgotten: sortedStrings(this.forgotten),
    };
  }
}

/** Folds a whole event set (any order, duplicates allowed). */
export function foldEvents(events: Iterable<SyncEvent>): SyncState {
  const fold = new SyncFold();
  fold.add(events);
  return fold.state();
}

/** SHA-256 (hex) over the canonical serialisation of a folded state: equal on two devices iff their states are. */
export function syncStateHash(state: SyncState): string {
  return canonicalHash(state);
}
