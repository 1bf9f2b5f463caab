/**
 * SyncWrites over the engine's parts: the reads sync diffs against, and the writes a remote event
 * becomes — Conversations for conversations and turns (so full-text rows, vectors, episodes and a
 * deleted turn's derived items and stored-request text follow as for a local write), SavedMemories
 * and the explorer for hand-written memories. Each write emits the same engine events a local one does.
 */
import { RecollectError } from '../base/errors';
import type { DerivedEpisodeStore, DerivedTheme } from '../synthesis/derivedEpisode';
import type { FoldedTurn } from '../sync/SyncFold';
import type { DerivedProfileStore } from '../synthesis/derivedProfile';
import type { MemoryStore, MetaStore } from '../base/store';
import type { Message } from '../base/types';
import { MESSAGE_EVIDENCE, type EpisodeSynthesis, type KnowledgeStore, type ProfileItem } from '../synthesis/knowledge';
import { importedFrom } from '../base/carriedMemory';
import type { ExplorerService } from '../explorer/ExplorerService';
import type { EngineEvent } from '../protocol';
import type { Conversations } from './Conversations';
import type { Projects } from './Projects';
import type { SavedMemories } from './savedMemories';
import { SYNCED_SETTINGS, type LocalTurn, type SyncWrites } from './syncWrites';
import { isPolicy, type EngineSettings } from './EngineSettings';
import { META_KEYS } from '../base/settings';

export interface SyncWiringParts {
  readonly store: MemoryStore & MetaStore & { countItems(kind: 'message'): Promise<number> };
  readonly settings: EngineSettings;
  readonly conversations: Conversations;
  readonly saved: SavedMemories;
  readonly knowledge: KnowledgeStore | null;
  readonly explorer: () => ExplorerService | null;
  readonly projects: Projects | null;
  readonly emit: (event: EngineEvent) => void;
  readonly episodes: DerivedEpisodeStore | null;
  /** Another device's synthesis of an episode: written as the consolidator writes its own (Consolidator.writeEpisode). */
  readonly episodeWritten: (memcellId: string, write: EpisodeSynthesis) => Promise<unknown>;
  /** Another device's theme summary: written as the consolidator writes its own (then the profile is due). */
  readonly themeWritten: (sceneId: string, theme: DerivedTheme) => Promise<void>;
  /** The profile's side of derived records (storage/derivedProfiles.ts), with ids for the items they add. */
  readonly profiles: DerivedProfileStore | null;
  readonly newId: () => string;
  /** The profile update job is due (Consolidator.profileDue): it applies synced profile records. */
  readonly profileDue: () => void;
}

const asTurn = (m: Message): LocalTurn => ({
  id: m.id,
  conversationId: m.conversationId,
  role: m.role,
  content: m.content,
  occurredAt: m.occurredAt,
});

/** A memory the person wrote by hand: explicit, theirs, tied to no episode or message. */
/**
 * A memory the person saved: written by hand, asked for in one message ("remember that …"), or
 * imported from another assistant — explicit, theirs, tied to no episode. What synthesis made is
 * derived and synced another way.
 */
const saved = (p: ProfileItem) =>
  p.kind === 'explicit' &&
  p.editedByUser &&
  p.status === 'active' &&
  p.evidence.length <= 1 &&
  p.evidence.every((e) => e.startsWith(MESSAGE_EVIDENCE));

export function syncWrites(p: SyncWiringParts): SyncWrites {
  const memories = async () => (p.knowledge ? (await p.knowledge.profileItems()).filter(saved) : []);
  const explorer = () => {
    const ex = p.explorer();
    if (!ex) throw new RecollectError('INTERNAL', 'Synced memory edits need the memory explorer.');
    return ex;
  };
  const projects = () => {
    if (!p.projects) throw new RecollectError('INTERNAL', 'Synced projects need the projects part of the engine.');
    return p.projects;
  };
  const appendFolded = async (turns: readonly FoldedTurn[], options: { after?: string } = {}) =>
    void (await p.conversations.append(
      turns.map((t) => ({ id: t.id, conversationId: t.conversationId, role: t.role, content: t.text, occurredAt: t.occurredAt })),
      options,
    ));
  return {
    async conversation(id) {
      const c = await p.store.getConversation(id);
      return c && { id, title: c.title, createdAt: c.createdAt, useMemory: c.useMemory, remember: c.remember, projectId: c.projectId };
    },
    conversationIds: async () => (await p.store.listConversations()).map((c) => c.id),
    async turnsOf(conversationId) {
      const turns = await p.store.listMessages(conversationId);
      const versionsAt = new Set((await p.conversations.versions.list(conversationId)).map((v) => v.afterId));
      return turns.map((m, i) => {
        const after = i > 0 ? turns[i - 1]!.id : '';
        return { ...asTurn(m), after, ...(versionsAt.has(after) ? { version: true } : {}) };
      });
    },
    turnIdsOf: async (conversationId) =>
      p.store.turnIdsOf ? p.store.turnIdsOf(conversationId) : (await p.store.listMessages(conversationId)).map((m) => m.id),
    async turns(ids) {
      const out: LocalTurn[] = [];
      const placed = (await p.store.turnPlaces?.(ids)) ?? new Map<string, { after: string; version: boolean }>();
      for (const id of ids) {
        const m = await p.store.getMessage(id);
        const place = placed.get(id);
        if (m) out.push({ ...asTurn(m), ...(place ? { after: place.after, ...(place.version ? { version: true } : {}) } : {}) });
      }
      return out;
    },
    turnCount: () => p.store.countItems('message'),
    async memory(id) {
      const m = (await memories()).find((item) => item.id === id);
      if (!m) return null;
      const fromTurnId = m.evidence[0]?.slice(MESSAGE_EVIDENCE.length) ?? null;
      // Only an import's reason travels (it says where the memory came from); the others are implied.
      const added = fromTurnId ? null : (await p.knowledge!.profileHistory(id)).find((h) => h.op === 'add');
      const reason = added && importedFrom(added.reason) ? added.reason : null;
      return { id, text: m.value, fromTurnId, reason };
    },
    memoryIds: async () => (await memories()).map((m) => m.id),
    async project(id) {
      const found = p.projects ? await p.projects.get(id) : null;
      if (!found) return null;
      const { name, instructions, memory, useProfile, archived, createdAt } = found;
      return { id, name, instructions, memory, useProfile, archived, createdAt };
    },
    projectIds: async () => (p.projects ? (await p.projects.list()).map((x) => x.id) : []),
    createProject: async (f) => void (await projects().adopt(f)),
    updateProject: async (id, patch) => void (await projects().edit(id, patch)),
    deleteProject: async (id) => void (await projects().delete(id, 'keep')),
    moveConversation: (conversationId, projectId) => projects().move(conversationId, projectId),
    async createConversation(c) {
      // In its project only if the project is here already (otherwise it moves when the project arrives).
      const projectId = c.projectId && p.projects && (await p.projects.get(c.projectId)) ? c.projectId : null;
      await p.store.createConversation({
        id: c.id,
        title: c.title,
        createdAt: c.createdAt,
        useMemory: c.useMemory,
        remember: c.remember,
        projectId,
      });
      p.emit({ type: 'conversations-changed' });
    },
    async updateConversation(id, patch) {
      if (patch.title !== undefined) await p.conversations.rename(id, patch.title);
      const switches = {
        ...(patch.useMemory !== undefined ? { useMemory: patch.useMemory } : {}),
        ...(patch.remember !== undefined ? { remember: patch.remember } : {}),
      };
      if (Object.keys(switches).length) await p.conversations.setMemory(id, switches);
    },
    appendTurns: (turns) => appendFolded(turns),
    insertTurns: (afterId, turns) => appendFolded(turns, { after: afterId }),
    replaceTurn: async (t) => void (await p.conversations.replaceText(t.id, t.text)),
    deleteTurn: async (id) => void (await p.conversations.deleteMessage(id)),
    forgottenHere: async () => (await p.store.forgottenHashes?.()) ?? [],
    async forgetDerived(forgotten) {
      const live = (await p.store.adoptForgotten?.(forgotten)) ?? [];
      if (live.length) await explorer().forget(live);
    },
    hideTurn: async (id) => void (await p.conversations.deleteMessage(id, { hiddenElsewhere: true })),
    async hideBranch(conversationId, firstId) {
      if (p.conversations.versions.supported) return p.conversations.versions.hideBranchElsewhere(conversationId, firstId);
      const ids = await (p.store.turnIdsOf?.(conversationId) ?? Promise.resolve([]));
      for (const id of ids.slice(ids.indexOf(firstId))) await p.conversations.deleteMessage(id, { hiddenElsewhere: true });
    },
    hiddenTurnIds: async (conversationId) => (await p.store.hiddenTurnIds?.(conversationId)) ?? [],
    writeMemory: async (memory) => void (await p.saved.adopt(memory)),
    editMemory: (id, text) => explorer().editProfileItem(id, text),
    deleteMemory: (id) => explorer().deleteProfileItem(id),
    async settings() {
      const values = await Promise.all(SYNCED_SETTINGS.map((name) => p.store.getMeta(name)));
      return Object.fromEntries(SYNCED_SETTINGS.map((name, i) => [name, values[i] ?? null]));
    },
    async endpoint() {
      const llm = await p.settings.storedLlm();
      return llm ? JSON.stringify({ baseUrl: llm.baseUrl, model: llm.model, apiKey: llm.apiKey }) : null;
    },
    async setEndpoint(json) {
      const value: unknown = JSON.parse(json);
      const { baseUrl, model, apiKey } = (value ?? {}) as Record<string, unknown>;
      // What another device sent is checked like the settings form's input; a malformed one is left alone.
      if (typeof baseUrl !== 'string' || typeof model !== 'string' || (apiKey !== null && typeof apiKey !== 'string')) return;
      await p.settings.saveLlmSettings({ baseUrl, model, apiKey });
    },
    async setSetting(name, value) {
      // The policy goes through its setter, which also tells the background work; a value this
      // version does not know is left alone (every setting is validated again when read).
      if (name === META_KEYS.policy) {
        if (isPolicy(value)) await p.settings.setPolicy(value);
        return;
      }
      await p.store.setMeta(name, value);
      await p.settings.load();
      p.emit({ type: 'settings-changed' });
    },
    episodes: p.knowledge ? p.episodes : null,
    async writeEpisode(memcellId, write) {
      await p.episodeWritten(memcellId, write);
      p.emit({ type: 'memory-changed' });
    },
    async writeTheme(sceneId, theme) {
      await p.themeWritten(sceneId, theme);
      p.emit({ type: 'memory-changed' });
    },
    profiles: p.knowledge && p.profiles ? { store: p.profiles, knowledge: p.knowledge, newId: p.newId } : null,
    profileDue: () => p.profileDue(),
  };
}
