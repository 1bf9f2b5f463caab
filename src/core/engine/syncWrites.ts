/**
 * The two directions between the fold (every sync event held, SyncFold.ts) and the memory on this
 * device, for SyncService:
 *
 * - diffs: what the store holds that the fold does not say yet, as event bodies to stamp (a new
 *   conversation, a title, a switch, a turn, a deletion, a hand-written memory);
 * - apply: the store brought to what the fold says for the records some remote events touched,
 *   through `SyncWrites` — the engine's own write paths, so full-text rows, vectors, episodes and
 *   a deleted turn's derived items and stored-request text follow exactly as for a local write.
 *
 * Hand-written memories are the explicit profile items the person wrote (no evidence); what
 * synthesis made goes as derived records (episodes, themes, profile updates). Projects are synced
 * (created, edited, archived, deleted) and so is which project a conversation is in (`conversation.moved`).
 */
import {
  EPISODE_GENERATOR,
  fromDerivedEpisode,
  readDerivedEpisode,
  readDerivedTheme,
  THEME_GENERATOR,
  toDerivedEpisode,
  type DerivedEpisodeStore,
  type DerivedTheme,
} from '../synthesis/derivedEpisode';
import type { EpisodeSynthesis } from '../synthesis/knowledge';
import type { ProfileRecordDeps } from '../synthesis/derivedProfile';
import type { FoldedConversation, FoldedMemory, FoldedProject, FoldedTurn, SyncFold } from '../sync/SyncFold';
import { syncProfile } from './syncProfile';
import { PROJECT_FIELDS, type SyncEvent, type SyncEventBody } from '../sync/syncEvents';

export interface LocalConversation {
  readonly id: string;
  readonly title: string;
  readonly createdAt: number;
  readonly useMemory: boolean;
  readonly remember: boolean;
  readonly projectId: string | null;
}

export type ConversationPatch = Partial<Pick<LocalConversation, 'title' | 'useMemory' | 'remember'>>;

export interface LocalTurn {
  readonly id: string;
  readonly conversationId: string;
  readonly role: 'user' | 'assistant' | 'system';
  readonly content: string;
  readonly occurredAt: number;
  /** The turn shown just before it here ('' at the start); absent where the store cannot say. */
  readonly after?: string;
  /** It opened a new version at its place (an edited message, a regenerated answer). */
  readonly version?: boolean;
}

/** A memory the person saved (written, asked for in a message, or imported), as sync sees it. */
export interface LocalMemory {
  readonly id: string;
  readonly text: string;
  readonly fromTurnId: string | null;
  readonly reason: string | null;
}

export type LocalProject = Omit<FoldedProject, 'createdAt'> & { readonly createdAt: number };

export interface SyncWrites {
  conversation(id: string): Promise<LocalConversation | null>;
  conversationIds(): Promise<string[]>;
  turnsOf(conversationId: string): Promise<LocalTurn[]>;
  /** The ids of a conversation's turns, in its order. */
  turnIdsOf(conversationId: string): Promise<string[]>;
  /** The turns of these ids that are stored. */
  turns(ids: readonly string[]): Promise<LocalTurn[]>;
  turnCount(): Promise<number>;
  memory(id: string): Promise<LocalMemory | null>;
  memoryIds(): Promise<string[]>;
  createConversation(c: FoldedConversation): Promise<void>;
  updateConversation(id: string, patch: ConversationPatch): Promise<void>;
  appendTurns(turns: readonly FoldedTurn[]): Promise<void>;
  /** A turn whose text changed elsewhere (turn.edited) takes the winning text in place. */
  replaceTurn(turn: FoldedTurn): Promise<void>;
  deleteTurn(id: string): Promise<void>;
  /** A turn hidden as an earlier version on another device: it leaves this chat, and nothing is sent back. */
  hideTurn(id: string): Promise<void>;
  /**
   * The chat's turns from `firstId` to its end hidden elsewhere (another device's version won at
   * their place): kept here as an earlier version, the place opened for the winner's turns.
   */
  hideBranch(conversationId: string, firstId: string): Promise<void>;
  /** Remote turns placed among this conversation's turns: each goes right after `afterId` ('' = first). */
  insertTurns(afterId: string, turns: readonly FoldedTurn[]): Promise<void>;
  /** The ids of the conversation's turns kept in hidden versions here. */
  hiddenTurnIds(conversationId: string): Promise<string[]>;
  writeMemory(memory: FoldedMemory): Promise<void>;
  editMemory(id: string, text: string): Promise<void>;
  deleteMemory(id: string): Promise<void>;
  project(id: string): Promise<LocalProject | null>;
  projectIds(): Promise<string[]>;
  /** A project made elsewhere, under its id (its memory mode as chosen there). */
  createProject(p: FoldedProject): Promise<void>;
  updateProject(id: string, patch: Partial<Pick<FoldedProject, (typeof PROJECT_FIELDS)[number]>>): Promise<void>;
  /** A project deleted elsewhere: its chats stay here, in no project (their own deletions sync as turns). */
  deleteProject(id: string): Promise<void>;
  moveConversation(conversationId: string, projectId: string | null): Promise<void>;
  /** The synced settings' values here (SYNCED_SETTINGS; null: never set on this device). */
  settings(): Promise<Readonly<Record<string, string | null>>>;
  setSetting(name: string, value: string): Promise<void>;
  /** This device's endpoint as JSON ({ baseUrl, model, apiKey }), null when none is set. */
  endpoint(): Promise<string | null>;
  /** Uses an endpoint another device shared (JSON as `endpoint()` gives it). */
  setEndpoint(json: string): Promise<void>;
  /** What the person deleted here of the model's items, by kind and hash of the words (tombstones). */
  forgottenHere(): Promise<{ readonly item: 'fact' | 'foresight' | 'profile'; readonly textHash: string }[]>;
  /** Another device's deletions of model items: blocked here too, and the items they name deleted. */
  forgetDerived(forgotten: readonly { readonly item: 'fact' | 'foresight' | 'profile'; readonly textHash: string }[]): Promise<void>;
  /** Episodes and what synthesis made of them; null when this engine synthesises nothing. */
  readonly episodes: DerivedEpisodeStore | null;
  /** Another device's synthesis of an episode written here, as this device's synthesis would write it. */
  writeEpisode(memcellId: string, write: EpisodeSynthesis): Promise<void>;
  /** Another device's summary of a theme written here (a forgotten summary and a name the person gave stay). */
  writeTheme(sceneId: string, theme: DerivedTheme): Promise<void>;
  /** The profile and what sync reads and writes of it; null when this engine synthesises nothing. */
  readonly profiles: ProfileRecordDeps | null;
  /** A profile record (or a deletion of one's turns) arrived: the profile update job applies the records in clock order. */
  profileDue(): void;
}

/** The setting that carries a shared endpoint (only while "also sync the endpoint key" is ticked). */
export const ENDPOINT_SETTING = 'endpoint';

/**
 * Settings that follow the person across devices: how memory is organised and used, and how answers
 * read it. Never the endpoint (its address, model and key stay on the device) nor the time zone
 * (each device is where it is). Values are the `meta` strings; each device validates them on read.
 */
export const SYNCED_SETTINGS: readonly string[] = [
  'consolidation.policy',
  'segmentation.llm_check',
  'answer.budget_tokens',
  'answer.sufficiency_check',
  'conversation.use_memory_default',
  'conversation.remember_default',
  'memory.useSavedMemories',
  'memory.useChatHistory',
];

async function settings(w: SyncWrites, fold: SyncFold): Promise<SyncEventBody[]> {
  const local = await w.settings();
  const out: SyncEventBody[] = [];
  for (const name of SYNCED_SETTINGS) {
    const value = local[name] ?? null;
    if (value !== null && fold.setting(name) !== value) out.push({ kind: 'setting.set', name, value });
  }
  return out;
}

const SWITCHES = ['useMemory', 'remember'] as const;

function conversationBodies(local: LocalConversation, f: FoldedConversation | null): SyncEventBody[] {
  const out: SyncEventBody[] = [];
  const id = local.id;
  if (!f)
    out.push({ kind: 'conversation.created', conversationId: id, title: local.title, createdAt: Math.max(0, Math.round(local.createdAt)) });
  else if (f.title !== local.title) out.push({ kind: 'conversation.renamed', conversationId: id, title: local.title });
  for (const name of SWITCHES)
    if ((f ? f[name] : true) !== local[name])
      out.push({ kind: 'conversation.switched', conversationId: id, switch: name, on: local[name] });
  if ((f?.projectId ?? null) !== local.projectId) out.push({ kind: 'conversation.moved', conversationId: id, projectId: local.projectId });
  return out;
}

function projectBodies(local: LocalProject | null, f: FoldedProject | 'deleted' | null, id: string): SyncEventBody[] {
  if (f === 'deleted') return [];
  if (!local) return f ? [{ kind: 'project.deleted', projectId: id }] : [];
  if (!f) {
    const { name, instructions, memory, useProfile } = local;
    const created: SyncEventBody[] = [
      {
        kind: 'project.created',
        projectId: id,
        name,
        instructions,
        memory,
        useProfile,
        createdAt: Math.max(0, Math.round(local.createdAt)),
      },
    ];
    return local.archived ? [...created, { kind: 'project.set', projectId: id, field: 'archived', value: true }] : created;
  }
  return PROJECT_FIELDS.filter((field) => f[field] !== local[field]).map((field) => ({
    kind: 'project.set',
    projectId: id,
    field,
    value: local[field],
  }));
}

async function project(w: SyncWrites, fold: SyncFold, id: string): Promise<SyncEventBody[]> {
  return projectBodies(await w.project(id), fold.project(id), id);
}

async function conversation(w: SyncWrites, fold: SyncFold, id: string): Promise<SyncEventBody[]> {
  const local = await w.conversation(id);
  return local ? conversationBodies(local, fold.conversation(id)) : [];
}

function turnBodies(fold: SyncFold, turns: readonly LocalTurn[]): SyncEventBody[] {
  const out: SyncEventBody[] = [];
  for (const t of turns) {
    const f = fold.turn(t.id);
    // Shown here while the fold holds it hidden: an earlier version shown again.
    if (f !== null && f !== 'deleted' && f.hidden) out.push({ kind: 'turn.hidden', turnId: t.id, hidden: false });
    if (f !== null) continue; // known (or deleted: the tombstone wins)
    const { id: turnId, conversationId, role, content: text } = t;
    out.push({
      kind: 'turn.appended',
      conversationId,
      turnId,
      role,
      text,
      occurredAt: Math.max(0, Math.round(t.occurredAt)),
      ...(t.after !== undefined ? { after: t.after } : {}),
      ...(t.version ? { version: true as const } : {}),
    });
  }
  return out;
}

async function turns(w: SyncWrites, fold: SyncFold, ids: readonly string[]): Promise<SyncEventBody[]> {
  const local = await w.turns(ids);
  const out: SyncEventBody[] = [];
  for (const c of new Set(local.map((t) => t.conversationId))) out.push(...(await conversation(w, fold, c)));
  return [...out, ...turnBodies(fold, local)];
}

/** Turns moved into an earlier version here (an edit or a regenerated answer): hidden, not deleted. */
function hiddenTurns(fold: SyncFold, ids: readonly string[]): SyncEventBody[] {
  return ids.flatMap((turnId) => {
    const f = fold.turn(turnId);
    return f !== null && f !== 'deleted' && !f.hidden ? [{ kind: 'turn.hidden' as const, turnId, hidden: true }] : [];
  });
}

/**
 * Hidden versions of a conversation that are gone here (deleted with their message, by Forget, or
 * with the conversation): deleted everywhere. Versions still kept here stay hidden.
 */
async function versionsGone(w: SyncWrites, fold: SyncFold, conversationId: string): Promise<SyncEventBody[]> {
  const held = fold.hiddenTurnsIn(conversationId);
  if (held.length === 0) return [];
  const kept = new Set(await w.hiddenTurnIds(conversationId));
  return held.filter((id) => !kept.has(id)).map((turnId) => ({ kind: 'turn.deleted' as const, turnId }));
}

function deletedTurns(fold: SyncFold, ids: readonly string[]): SyncEventBody[] {
  return ids
    .filter((id) => typeof fold.turn(id) === 'object' && fold.turn(id) !== null)
    .map((turnId) => ({ kind: 'turn.deleted', turnId }));
}

async function memory(w: SyncWrites, fold: SyncFold, id: string): Promise<SyncEventBody[]> {
  const local = await w.memory(id);
  const f = fold.memory(id);
  if (local && f === null)
    return [
      {
        kind: 'memory.written',
        memoryId: id,
        text: local.text,
        ...(local.fromTurnId ? { fromTurnId: local.fromTurnId } : {}),
        ...(local.reason ? { reason: local.reason } : {}),
      },
    ];
  if (local && typeof f === 'object' && f && f.text !== local.text) return [{ kind: 'memory.edited', memoryId: id, text: local.text }];
  if (!local && typeof f === 'object' && f) return [{ kind: 'memory.deleted', memoryId: id }];
  return [];
}

/** The person's deletions of model items here that the fold does not hold yet. */
async function forgotten(w: SyncWrites, fold: SyncFold): Promise<SyncEventBody[]> {
  return (await w.forgottenHere())
    .filter((f) => !fold.isForgotten(f.item, f.textHash))
    .map((f) => ({ kind: 'derived.forgotten' as const, item: f.item, textHash: f.textHash }));
}

/**
 * Everything this device holds that the fold does not: the first upload after turning sync on or
 * joining. A joining device's settings are left out: it adopts the memory's (they would otherwise win, being later).
 */
async function everything(w: SyncWrites, fold: SyncFold, options: { readonly settings: boolean }): Promise<SyncEventBody[]> {
  const out: SyncEventBody[] = [];
  for (const id of await w.projectIds()) out.push(...(await project(w, fold, id)));
  for (const id of await w.conversationIds()) {
    const local = await w.conversation(id);
    if (!local) continue;
    out.push(...conversationBodies(local, fold.conversation(id)), ...turnBodies(fold, await w.turnsOf(id)));
  }
  for (const id of await w.memoryIds()) out.push(...(await memory(w, fold, id)));
  out.push(...(await forgotten(w, fold)));
  for (const id of (await w.episodes?.synthesisedEpisodeIds()) ?? []) out.push(...(await episode(w, fold, id)));
  for (const id of (await w.episodes?.summarisedThemeIds()) ?? []) out.push(...(await theme(w, fold, id)));
  out.push(...(await syncProfile.profileSnapshot(w, fold)));
  return options.settings ? [...out, ...(await settings(w, fold))] : out;
}

/**
 * What this device's model made of an episode, as a derived record, unless the fold holds one for
 * the same turns already: then that one wins (it came first) and is written here instead.
 */
async function episode(w: SyncWrites, fold: SyncFold, memcellId: string): Promise<SyncEventBody[]> {
  const store = w.episodes;
  if (!store) return [];
  const turnIds = await store.episodeTurnIds(memcellId);
  const write = turnIds?.length ? await store.storedEpisode(memcellId) : null;
  if (!turnIds?.length || !write) return [];
  const madeFrom = { turnIds, generator: EPISODE_GENERATOR };
  const held = fold.derivedFor(madeFrom);
  if (held) {
    const record = readDerivedEpisode(held.payload);
    if (record && record.narrative !== write.narrative) await w.writeEpisode(memcellId, await fromDerivedEpisode(store, record));
    return [];
  }
  return [{ kind: 'derived.recorded', derivedKind: 'episode', madeFrom, payload: await toDerivedEpisode(store, write) }];
}

type DerivedEvent = Extract<SyncEvent, { kind: 'derived.recorded' }>;

/** The store to write `e` through when it is the winning record of `kind` made by a generator this version reads; else null. */
function winning(w: SyncWrites, fold: SyncFold, e: DerivedEvent, kind: DerivedEvent['derivedKind'], generator: string) {
  if (!w.episodes || e.derivedKind !== kind || e.madeFrom.generator !== generator) return null;
  return fold.derivedFor(e.madeFrom)?.eventId === e.id ? w.episodes : null;
}

/** Another device's derived record of an episode, written here if an episode holds exactly its turns (else at synthesis time). */
async function applyEpisode(w: SyncWrites, fold: SyncFold, e: DerivedEvent): Promise<void> {
  const store = winning(w, fold, e, 'episode', EPISODE_GENERATOR);
  if (!store) return;
  const record = readDerivedEpisode(e.payload);
  const cell = record ? await store.episodeWithTurns(e.madeFrom.turnIds) : null;
  if (!record || !cell || cell.narrative === record.narrative) return;
  await w.writeEpisode(cell.id, await fromDerivedEpisode(store, record));
}

/** A theme's summary made here, as a derived record keyed by the turns of its synthesised episodes (or the one held written here). */
async function theme(w: SyncWrites, fold: SyncFold, sceneId: string): Promise<SyncEventBody[]> {
  const store = w.episodes;
  const turnIds = store ? await store.themeTurnIds(sceneId) : null;
  const made = turnIds?.length ? await store!.storedTheme(sceneId) : null;
  if (!store || !turnIds?.length || !made) return [];
  const madeFrom = { turnIds, generator: THEME_GENERATOR };
  const held = fold.derivedFor(madeFrom);
  if (held) {
    const record = readDerivedTheme(held.payload);
    if (record && record.summary !== made.summary) await w.writeTheme(sceneId, record);
    return [];
  }
  return [{ kind: 'derived.recorded', derivedKind: 'theme', madeFrom, payload: made }];
}

async function applyTheme(w: SyncWrites, fold: SyncFold, e: DerivedEvent): Promise<void> {
  const store = winning(w, fold, e, 'theme', THEME_GENERATOR);
  if (!store) return;
  const record = readDerivedTheme(e.payload);
  const scene = record ? await store.themeWithTurns(e.madeFrom.turnIds) : null;
  if (record && scene && scene.summary !== record.summary) await w.writeTheme(scene.id, record);
}

/** The summary another device's record holds for this theme's episodes, or null. */
async function derivedTheme(w: SyncWrites, fold: SyncFold, sceneId: string): Promise<DerivedTheme | null> {
  const turnIds = w.episodes ? await w.episodes.themeTurnIds(sceneId) : null;
  if (!turnIds?.length) return null;
  const held = fold.derivedFor({ turnIds, generator: THEME_GENERATOR });
  return held ? readDerivedTheme(held.payload) : null;
}

/** The write another device's record holds for this episode's turns, or null (none, or this version cannot read it). */
async function derivedEpisode(w: SyncWrites, fold: SyncFold, memcellId: string): Promise<EpisodeSynthesis | null> {
  const store = w.episodes;
  const turnIds = store ? await store.episodeTurnIds(memcellId) : null;
  if (!store || !turnIds?.length) return null;
  const held = fold.derivedFor({ turnIds, generator: EPISODE_GENERATOR });
  const record = held ? readDerivedEpisode(held.payload) : null;
  return record ? fromDerivedEpisode(store, record) : null;
}

/**
 * The endpoint, while this device shares it: its value when it differs from the fold's; when sharing
 * stops (`share` false), a null that ends the sharing for devices that join later.
 */
async function endpoint(w: SyncWrites, fold: SyncFold, share: boolean): Promise<SyncEventBody[]> {
  const held = fold.setting(ENDPOINT_SETTING);
  if (!share) return typeof held === 'string' ? [{ kind: 'setting.set', name: ENDPOINT_SETTING, value: null }] : [];
  const local = await w.endpoint();
  return local !== null && held !== local ? [{ kind: 'setting.set', name: ENDPOINT_SETTING, value: local }] : [];
}

/** What changed of every conversation the fold holds and of every saved memory (titles redacted, memories removed or imported). */
async function sweep(w: SyncWrites, fold: SyncFold): Promise<SyncEventBody[]> {
  const state = fold.state();
  const out: SyncEventBody[] = [];
  for (const c of state.conversations) out.push(...(await conversation(w, fold, c.id)), ...(await versionsGone(w, fold, c.id)));
  for (const id of new Set([...state.memories.map((m) => m.id), ...(await w.memoryIds())])) out.push(...(await memory(w, fold, id)));
  return [...out, ...(await forgotten(w, fold))];
}

/** Brings the records `events` touched to what the fold says (the fold already holds the events). */
async function apply(
  w: SyncWrites,
  fold: SyncFold,
  events: readonly SyncEvent[],
  forget: (kind: 'turn' | 'memory', id: string) => Promise<void>,
): Promise<void> {
  const conversations = new Set<string>();
  const turnIds = new Set<string>();
  const deleted = new Set<string>();
  const memories = new Set<string>();
  const names = new Set<string>();
  const projects = new Set<string>();
  const derived: DerivedEvent[] = [];
  const forgottenItems: { item: 'fact' | 'foresight' | 'profile'; textHash: string }[] = [];
  for (const e of events) {
    if (e.kind === 'project.created' || e.kind === 'project.set' || e.kind === 'project.deleted') projects.add(e.projectId);
    if (e.kind === 'setting.set' && (SYNCED_SETTINGS.includes(e.name) || e.name === ENDPOINT_SETTING)) names.add(e.name);
    if ('conversationId' in e) conversations.add(e.conversationId);
    if (e.kind === 'turn.appended' || e.kind === 'turn.edited' || e.kind === 'turn.hidden') turnIds.add(e.turnId);
    if (e.kind === 'turn.deleted') deleted.add(e.turnId);
    if (e.kind === 'memory.written' || e.kind === 'memory.edited' || e.kind === 'memory.deleted') memories.add(e.memoryId);
    if (e.kind === 'derived.recorded') derived.push(e);
    if (e.kind === 'derived.forgotten') forgottenItems.push({ item: e.item, textHash: e.textHash });
  }
  for (const id of projects) {
    await reconcileProject(w, fold, id);
    // Chats moved into a project that had not arrived yet follow it now.
    for (const c of fold.conversationsIn(id)) conversations.add(c);
  }
  for (const id of conversations) await reconcileConversation(w, fold, id);
  const stored = new Map((await w.turns([...turnIds])).map((t) => [t.id, t]));
  const toAppend: FoldedTurn[] = [];
  const toHide = new Map<string, Set<string>>();
  for (const id of turnIds) {
    const f = fold.turn(id);
    if (f === null || f === 'deleted') continue;
    const local = stored.get(id);
    if (f.hidden) {
      if (local) toHide.set(f.conversationId, (toHide.get(f.conversationId) ?? new Set()).add(id));
    } else if (!local) toAppend.push(f);
    else if (local.content !== f.text) await w.replaceTurn(f);
  }
  // A version here may have lost to one that just arrived (the same place edited on two devices):
  // the turns of this device's own version, which no arriving event names, leave the chat too.
  const touched = new Set<string>();
  for (const id of turnIds) {
    const f = fold.turn(id);
    if (f !== null && f !== 'deleted') touched.add(f.conversationId);
  }
  for (const c of touched) {
    const live = await w.turnIdsOf(c);
    for (const id of live) {
      const f = fold.turn(id);
      if (f !== null && f !== 'deleted' && f.hidden) toHide.set(c, (toHide.get(c) ?? new Set()).add(id));
    }
    // And a version shown again without being named (the one that beat it was hidden): it comes back.
    const held = new Set([...live, ...toAppend.map((t) => t.id)]);
    for (const id of fold.versionTurnsIn(c)) if (!held.has(id)) toAppend.push(fold.turn(id) as FoldedTurn);
  }
  for (const [c, ids] of toHide) await hideVersions(w, c, ids);
  for (const c of new Set(toAppend.map((t) => t.conversationId))) {
    // A turn can arrive before its conversation's event (another device's upload was cut short): hold it under a placeholder.
    if (!(await w.conversation(c)))
      await w.createConversation(
        fold.conversation(c) ?? { id: c, title: 'Synced conversation', createdAt: 0, projectId: null, useMemory: true, remember: true },
      );
    await placeTurns(
      w,
      fold,
      c,
      toAppend.filter((t) => t.conversationId === c),
    );
  }
  for (const id of deleted) {
    // Also when it is not shown here: a hidden version here may keep a copy of it.
    await w.deleteTurn(id);
    await forget('turn', id);
  }
  for (const id of memories) {
    const f = fold.memory(id);
    const local = await w.memory(id);
    if (f === 'deleted') {
      if (local) await w.deleteMemory(id);
      await forget('memory', id);
    } else if (f && !local) await w.writeMemory(f);
    else if (f && local && local.text !== f.text) await w.editMemory(id, f.text);
  }
  // Before the records: a record holding a deleted fact or plan is then written without it.
  if (forgottenItems.length) await w.forgetDerived(forgottenItems);
  // After the turns: an episode of them may be here by now (segmentation runs as turns arrive).
  for (const e of derived) await applyEpisode(w, fold, e);
  // After the episodes: a theme's turns are those of its synthesised episodes.
  for (const e of derived) await applyTheme(w, fold, e);
  // Profile records apply in clock order once their episodes are here: in the profile update job.
  if (syncProfile.profileTouched(w, fold, derived, deleted)) w.profileDue();
  if (names.delete(ENDPOINT_SETTING)) {
    const shared = fold.setting(ENDPOINT_SETTING);
    if (typeof shared === 'string' && shared !== (await w.endpoint())) await w.setEndpoint(shared);
  }
  if (names.size) {
    const local = await w.settings();
    for (const name of names) {
      const f = fold.setting(name);
      if (typeof f === 'string' && local[name] !== f) await w.setSetting(name, f);
    }
  }
}

/**
 * Turns hidden elsewhere as earlier versions leave this chat. When they are the chat's last turns
 * (the usual case: the other device's version of the same place won), they are kept here as an
 * earlier version, so the switcher still shows them; otherwise each one leaves on its own.
 */
async function hideVersions(w: SyncWrites, conversationId: string, ids: ReadonlySet<string>): Promise<void> {
  const live = await w.turnIdsOf(conversationId);
  let from = live.length;
  while (from > 0 && ids.has(live[from - 1]!)) from -= 1;
  const tail = new Set(live.slice(from));
  if (tail.size) await w.hideBranch(conversationId, live[from]!);
  for (const id of ids) if (!tail.has(id)) await w.hideTurn(id);
}

/**
 * Remote turns put in the fold's order (by their appended clocks): each right after the last turn
 * held here that comes before it. The common case — every turn held here is earlier — appends at
 * the end; turns two devices wrote into one chat while cut off are placed among this device's own,
 * and a turn of this device not recorded yet (its clock will be later) stays after them.
 */
async function placeTurns(w: SyncWrites, fold: SyncFold, conversationId: string, turns: readonly FoldedTurn[]): Promise<void> {
  const arriving = [...turns].sort((a, b) => (fold.turnBefore(a.id, b.id) ? -1 : fold.turnBefore(b.id, a.id) ? 1 : 0));
  const live = await w.turnIdsOf(conversationId);
  const last = live.at(-1);
  if (last === undefined || fold.turnBefore(last, arriving[0]!.id)) return w.appendTurns(arriving);
  const known = live.filter((id) => fold.knowsTurn(id));
  const groups = new Map<string, FoldedTurn[]>();
  for (const t of arriving) {
    let at = known.length - 1;
    while (at >= 0 && !fold.turnBefore(known[at]!, t.id)) at -= 1;
    const afterId = at >= 0 ? known[at]! : '';
    groups.set(afterId, [...(groups.get(afterId) ?? []), t]);
  }
  for (const [afterId, group] of groups) await w.insertTurns(afterId, group);
}

async function reconcileConversation(w: SyncWrites, fold: SyncFold, id: string): Promise<void> {
  const f = fold.conversation(id);
  if (!f) return;
  const local = await w.conversation(id);
  if (!local) return w.createConversation(f); // in its project when the project is here
  const patch: ConversationPatch = {
    ...(f.title !== local.title ? { title: f.title } : {}),
    ...(f.useMemory !== local.useMemory ? { useMemory: f.useMemory } : {}),
    ...(f.remember !== local.remember ? { remember: f.remember } : {}),
  };
  if (Object.keys(patch).length) await w.updateConversation(id, patch);
  if (f.projectId !== local.projectId && (f.projectId === null || (await w.project(f.projectId))))
    await w.moveConversation(id, f.projectId);
}

async function reconcileProject(w: SyncWrites, fold: SyncFold, id: string): Promise<void> {
  const f = fold.project(id);
  const local = await w.project(id);
  if (f === 'deleted') {
    if (local) await w.deleteProject(id);
    return;
  }
  if (!f) return;
  if (!local) {
    await w.createProject(f);
    return;
  }
  const patch = Object.fromEntries(PROJECT_FIELDS.filter((field) => f[field] !== local[field]).map((field) => [field, f[field]]));
  if (Object.keys(patch).length) await w.updateProject(id, patch);
}

export const syncWritesDiff = {
  endpoint,
  conversation,
  project,
  turns,
  deletedTurns,
  hiddenTurns,
  versionsGone,
  memory,
  settings,
  everything,
  sweep,
  apply,
  episode,
  derivedEpisode,
  theme,
  derivedTheme,
  ...syncProfile,
};
