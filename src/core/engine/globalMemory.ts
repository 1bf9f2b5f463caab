/**
 * The two switches over all answers, beside each conversation's own (as ChatGPT users expect):
 * "use saved memories" (what Recollect knows about you: profile, facts, plans ahead) and "use chat
 * history" (past turns and the episodes made from them). Off, answers are sent none of that kind;
 * nothing is deleted and turning a switch back on brings it all back. Kept in the database's meta,
 * so they travel with an exported memory.
 */
import { RecollectError } from '../base/errors';
import type { AnswerSource } from '../recall/answerContext';
import type { GlobalMemory } from '../base/types';

export type { GlobalMemory } from '../base/types';

interface Meta {
  getMeta(key: string): Promise<string | null>;
  setMeta(key: string, value: string): Promise<void>;
}

const KEYS = { useSavedMemories: 'memory.useSavedMemories', useChatHistory: 'memory.useChatHistory' } as const;

export async function readGlobalMemory(meta: Meta): Promise<GlobalMemory> {
  const [saved, history] = await Promise.all([meta.getMeta(KEYS.useSavedMemories), meta.getMeta(KEYS.useChatHistory)]);
  return { useSavedMemories: saved !== '0', useChatHistory: history !== '0' };
}

export async function writeGlobalMemory(meta: Meta, patch: Partial<GlobalMemory>): Promise<GlobalMemory> {
  for (const key of Object.keys(KEYS) as (keyof GlobalMemory)[]) {
    const v = patch[key];
    if (v === undefined) continue;
    if (typeof v !== 'boolean') throw new RecollectError('INVALID_INPUT', `${key} must be true or false.`);
    await meta.setMeta(KEYS[key], v ? '1' : '0');
  }
  return readGlobalMemory(meta);
}

/** The answer source with each kind of memory left out while its switch is off. */
export function switchedAnswerSource(source: AnswerSource, switches: () => Promise<GlobalMemory>): AnswerSource {
  const saved = async <T>(read: () => Promise<T>, none: T) => ((await switches()).useSavedMemories ? read() : none);
  const history = async <T>(read: () => Promise<T>, none: T) => ((await switches()).useChatHistory ? read() : none);
  return {
    turns: (q, o) => history(() => source.turns(q, o), []),
    episodes: (q, o) => history(() => source.episodes(q, o), []),
    episodesByIds: (ids, scope) => history(() => source.episodesByIds(ids, scope), []),
    episodesOfTurns: (ids) => history(() => source.episodesOfTurns(ids), new Map()),
    sceneMembers: (ids, n, scope) => history(() => source.sceneMembers(ids, n, scope), []),
    facts: (q, o) => saved(() => source.facts(q, o), []),
    profile: (limit, scope) => saved(() => source.profile(limit, scope), []),
    foresight: (now, scope) => saved(() => source.foresight(now, scope), []),
    // Where an item came from is not memory itself: always answered.
    origins: (chats, cells) => source.origins(chats, cells),
  };
}
