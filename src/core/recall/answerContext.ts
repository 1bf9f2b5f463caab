/**
 * The knowledge an answer is composed from (docs/architecture.md, Read path), beyond the ranked turns
 * the Retriever returns: facts and episodes that match the question, scene-guided expansion,
 * the active profile and time-valid foresight — and the composer that turns them into one
 * numbered context block within a token budget.
 *
 * Scene-guided expansion follows EverMemOS' reconstructive recollection: a MemCell's relevance is
 * the fusion of the ways it was reached (its own title/narrative, its facts — max over facts, as
 * in the paper's MaxSim — and the recalled turns it holds); a MemScene scores as its best member,
 * and the other members of the top scenes are pulled in, because multi-hop questions often need
 * a sibling episode that shares no words with the question.
 *
 * Invariants: read-only (nothing here writes — temporary chats rely on it); expired or dismissed
 * foresight never reaches the context; items are numbered [1], [2] … in the order they appear,
 * and each number maps to exactly one citation.
 */
import type { ForesightItem, ProfileItem } from '../synthesis/knowledge';
import type { Fact, MemCell, Message } from '../base/types';
import { reciprocalRankFusion, RETRIEVAL_CONFIG } from './fusion';
import { focusClip, focusTerms } from './snippet';
import { recallQuery } from './recallQuery';
import { charsOverFour, type TokenCounter } from '../base/tokens';
import type { MemoryScope } from './memoryScope';

// ---------------------------------------------------------------------------------------------
// What the answer pipeline reads
// ---------------------------------------------------------------------------------------------

/** A synthesised episode as an answer reads it (only synthesised ones have a narrative). */
export interface ContextEpisode extends Pick<MemCell, 'id' | 'conversationId' | 'sceneId' | 'title' | 'startAt' | 'endAt'> {
  readonly narrative: string;
}

export interface ContextFact extends Pick<Fact, 'id' | 'memcellId' | 'speaker' | 'content' | 'occurredAt' | 'validFrom' | 'validTo'> {
  /** False when a later fact superseded this one (kept: "where did she live in 2022?"). */
  readonly current: boolean;
}

export interface KnowledgeQueryOptions {
  readonly limit: number;
  /** Restrict to one conversation; omitted = all of memory. */
  readonly conversationId?: string;
  /** The project scope of the answer (memoryScope.ts); omitted = all of memory. */
  readonly scope?: MemoryScope;
}

/**
 * What answering reads, every list best first; nothing here writes. Built by `answerSourceOf`
 * (src/core/recall/answerSource.ts) from storage's candidates, the vector indexes and turn recall.
 */
export interface AnswerSource {
  /** Ranked turns (the engine's recall: BM25 + vectors + fusion + boosts). */
  turns(query: string, options: KnowledgeQueryOptions & { readonly now: number }): Promise<readonly Message[]>;
  /** Facts matching the query (FTS, plus vectors when the source has them). */
  facts(query: string, options: KnowledgeQueryOptions): Promise<readonly ContextFact[]>;
  /** Synthesised episodes (title/narrative) matching the query. */
  episodes(query: string, options: KnowledgeQueryOptions): Promise<readonly ContextEpisode[]>;
  /** The synthesised episodes with these ids (any order; missing ones and ones outside `scope` are skipped). */
  episodesByIds(ids: readonly string[], scope?: MemoryScope): Promise<readonly ContextEpisode[]>;
  /** For each message id, the synthesised episode holding that turn (absent when none). */
  episodesOfTurns(messageIds: readonly string[]): Promise<ReadonlyMap<string, string>>;
  /** Synthesised members of these scenes (inside `scope`), most recent first, at most `limitPerScene` each. */
  sceneMembers(sceneIds: readonly string[], limitPerScene: number, scope?: MemoryScope): Promise<readonly ContextEpisode[]>;
  /** Active profile items (not conflicts, not deleted) `scope` allows, most confident first; at most `limit` when given. */
  profile(limit?: number, scope?: MemoryScope): Promise<readonly ProfileItem[]>;
  /** Active foresight inside `scope` not yet over at `now` (current and upcoming). */
  foresight(now: number, scope?: MemoryScope): Promise<readonly ForesightItem[]>;
  /** The project of each of these chats and episodes (absent from the maps: unknown or gone). */
  origins(conversationIds: readonly string[], memcellIds: readonly string[]): Promise<ContextOrigins>;
}

export interface ContextParts {
  readonly profile: readonly ProfileItem[];
  readonly foresight: readonly ForesightItem[];
  /** Best first. */
  readonly episodes: readonly ContextEpisode[];
  /** Best first. */
  readonly facts: readonly ContextFact[];
  /** Best first. */
  readonly turns: readonly Message[];
}

export interface GatherLimits {
  readonly turns: number;
  readonly facts: number;
  readonly episodes: number;
  /** Scenes whose other members are pulled in. */
  readonly scenes: number;
  readonly membersPerScene: number;
  readonly profile: number;
  readonly foresight: number;
}

/** EverMemOS keeps 10 episodes from 10 scenes; a small local model's context is tighter. */
export const DEFAULT_GATHER_LIMITS: GatherLimits = {
  turns: RETRIEVAL_CONFIG.context.turns,
  facts: 12,
  episodes: 8,
  scenes: 3,
  membersPerScene: 4,
  profile: 20,
  foresight: 10,
};

export interface GatherOptions {
  readonly now: number;
  readonly conversationId?: string;
  /** The answer's project scope: every read below is kept inside it. */
  readonly scope?: MemoryScope;
  readonly limits?: Partial<GatherLimits>;
  /**
   * Turns the model already reads elsewhere in the request — the question itself and the recent
   * chat history — are not recalled again as excerpts (they were sent twice, and the first
   * answer cited the message just sent).
   */
  readonly excludeTurnIds?: ReadonlySet<string>;
}

/**
 * Retrieval for one query: turns, facts and episodes in parallel, episode fusion, then
 * scene-guided expansion. Profile and foresight do not depend on the query. A long query (a
 * pasted document) is searched by its head and tail (recallQuery.ts).
 */
export async function gatherContext(source: AnswerSource, message: string, options: GatherOptions): Promise<ContextParts> {
  const query = recallQuery(message);
  const limits = { ...DEFAULT_GATHER_LIMITS, ...options.limits };
  const memory = options.scope;
  const scope = {
    ...(options.conversationId !== undefined ? { conversationId: options.conversationId } : {}),
    ...(memory ? { scope: memory } : {}),
  };
  const excluded = options.excludeTurnIds ?? new Set<string>();
  const [recalled, facts, searched, profile, foresight] = await Promise.all([
    // As many more as may be left out, so the excerpts keep their number.
    source.turns(query, { limit: limits.turns + excluded.size, now: options.now, ...scope }),
    source.facts(query, { limit: limits.facts, ...scope }),
    source.episodes(query, { limit: limits.episodes * 2, ...scope }),
    memory ? source.profile(limits.profile, memory) : source.profile(limits.profile),
    memory ? source.foresight(options.now, memory) : source.foresight(options.now),
  ]);
  const turns = excluded.size > 0 ? recalled.filter((t) => !excluded.has(t.id)) : recalled;
  const episodes = await rankEpisodes(source, turns, facts, searched, limits, memory);
  return {
    profile: profile.slice(0, limits.profile),
    foresight: foresight.filter((f) => isTimeValid(f, options.now)).slice(0, limits.foresight),
    episodes,
    facts: facts.slice(0, limits.facts),
    turns: turns.slice(0, limits.turns),
  };
}

async function rankEpisodes(
  source: AnswerSource,
  turns: readonly Message[],
  facts: readonly ContextFact[],
  searched: readonly ContextEpisode[],
  limits: GatherLimits,
  scope: MemoryScope | undefined,
): Promise<ContextEpisode[]> {
  const cellOfTurn = turns.length ? await source.episodesOfTurns(turns.map((t) => t.id)) : new Map<string, string>();
  const viaTurns = turns.map((t) => cellOfTurn.get(t.id)).filter((id): id is string => id !== undefined);
  // A cell with several matching facts counts once, at its best fact (max, not sum).
  const fused = reciprocalRankFusion([
    { name: 'episodes', weight: 1, ids: searched.map((e) => e.id) },
    { name: 'facts', weight: 1, ids: facts.map((f) => f.memcellId) },
    { name: 'turns', weight: 1, ids: viaTurns },
  ]);
  if (fused.length === 0) return [];
  const scores = new Map(fused.map((f) => [f.id, f.score]));

  const known = new Map(searched.map((e) => [e.id, e]));
  const missing = [...scores.keys()].filter((id) => !known.has(id));
  if (missing.length)
    for (const e of await (scope ? source.episodesByIds(missing, scope) : source.episodesByIds(missing))) known.set(e.id, e);
  const direct = fused.filter((f) => known.has(f.id)).map((f) => [f.id, f.score] as const);

  // A scene scores as its best member (EverMemOS §3.5); walk the ranking until N scenes are seen.
  const topScenes: string[] = [];
  for (const [id] of direct) {
    const scene = known.get(id)!.sceneId;
    if (scene !== null && !topScenes.includes(scene)) topScenes.push(scene);
    if (topScenes.length >= limits.scenes) break;
  }
  const out = direct.slice(0, limits.episodes).map(([id]) => known.get(id)!);
  if (topScenes.length && out.length < limits.episodes) {
    const members = await (scope
      ? source.sceneMembers(topScenes, limits.membersPerScene, scope)
      : source.sceneMembers(topScenes, limits.membersPerScene));
    // Siblings rank after every direct hit, in the order of their scene's score.
    const sceneRank = new Map(topScenes.map((s, i) => [s, i]));
    const siblings = members
      .filter((m) => !scores.has(m.id) && m.sceneId !== null && sceneRank.has(m.sceneId))
      .sort((a, b) => sceneRank.get(a.sceneId!)! - sceneRank.get(b.sceneId!)! || b.endAt - a.endAt);
    for (const m of siblings) {
      if (out.length >= limits.episodes) break;
      if (!out.some((e) => e.id === m.id)) out.push(m);
    }
  }
  return out;
}

/** Interleaves ranked lists (first list first at each depth), keeping the first of duplicates. */
function interleave<T>(lists: readonly (readonly T[])[], key: (t: T) => string): T[] {
  const out: T[] = [];
  const seen = new Set<string>();
  const depth = Math.max(0, ...lists.map((l) => l.length));
  for (let i = 0; i < depth; i++) {
    for (const list of lists) {
      const item = list[i];
      if (item === undefined) continue;
      const k = key(item);
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(item);
    }
  }
  return out;
}

/**
 * Round-2 merge (EverMemOS: round-1 results first, de-duplicated, then the follow-up queries'):
 * the primary's items keep their places; the others' are interleaved after them.
 */
export function mergeParts(primary: ContextParts, others: readonly ContextParts[]): ContextParts {
  const after = <T>(pick: (p: ContextParts) => readonly T[], key: (t: T) => string): T[] => {
    const head = pick(primary);
    const seen = new Set(head.map(key));
    return [...head, ...interleave(others.map(pick), key).filter((t) => !seen.has(key(t)))];
  };
  return {
    profile: primary.profile,
    foresight: primary.foresight,
    episodes: after(
      (p) => p.episodes,
      (e) => e.id,
    ),
    facts: after(
      (p) => p.facts,
      (f) => f.id,
    ),
    turns: after(
      (p) => p.turns,
      (t) => t.id,
    ),
  };
}

// ---------------------------------------------------------------------------------------------
// Composition
// ---------------------------------------------------------------------------------------------

export type CitationKind = 'turn' | 'fact' | 'episode' | 'profile' | 'foresight';

export interface Citation {
  /** The number the context labels the item with: [id]. */
  readonly id: number;
  readonly kind: CitationKind;
  /** Short text for a person, e.g. "Ana, 8 May 2023" or an episode title. */
  readonly label: string;
  /** The item's id in its table: message id, fact id, MemCell id, profile item id, foresight id. */
  readonly ref: string;
  /** The conversation of a turn or episode (so the UI can open it). */
  readonly conversationId?: string;
  /**
   * Where the item was recalled from, seen from the answer's project, decided when the request is
   * built (RecalledFrom); absent when the caller did not ask (the benchmarks).
   */
  readonly from?: RecalledFrom;
}

/**
 * The scope of a recalled item: the answer's own project's chats, memory shared by every chat
 * outside project-only projects, or the profile (what is known about the person, and plans saved
 * without a chat).
 */
export type RecalledFrom = 'project' | 'shared' | 'profile';

/** Which project each chat and episode of a context belongs to (null: no project). */
export interface ContextOrigins {
  readonly conversations: ReadonlyMap<string, string | null>;
  readonly cells: ReadonlyMap<string, string | null>;
}

/** Where each item of `parts` comes from, for an answer asked in `projectId` (null: in no project). */
export function recalledFromOf(
  origins: ContextOrigins,
  projectId: string | null,
): (item: { readonly kind: CitationKind; readonly conversationId?: string; readonly memcellId?: string | null }) => RecalledFrom {
  return (item) => {
    if (item.kind === 'profile') return 'profile';
    const project =
      item.conversationId !== undefined
        ? origins.conversations.get(item.conversationId)
        : item.memcellId
          ? origins.cells.get(item.memcellId)
          : undefined;
    // A plan saved without a chat belongs to the person, like the profile.
    if (project === undefined) return item.kind === 'foresight' && !item.memcellId ? 'profile' : 'shared';
    return projectId !== null && project === projectId ? 'project' : 'shared';
  };
}

/** The chats and episodes whose project `recalledFromOf` needs for these parts. */
export function originsNeeded(parts: ContextParts): { readonly conversationIds: string[]; readonly memcellIds: string[] } {
  const conversationIds = new Set([...parts.turns.map((t) => t.conversationId), ...parts.episodes.map((e) => e.conversationId)]);
  const memcellIds = new Set(
    [...parts.facts.map((f) => f.memcellId), ...parts.foresight.map((f) => f.memcellId)].filter((id): id is string => !!id),
  );
  return { conversationIds: [...conversationIds], memcellIds: [...memcellIds] };
}

export interface ComposedContext {
  readonly text: string;
  readonly citations: readonly Citation[];
  /** Estimated tokens of `text`. */
  readonly tokens: number;
  /** Items left out because the budget was spent. */
  readonly dropped: number;
}

export type { TokenCounter };
export { charsOverFour };

export interface ComposeOptions {
  readonly budgetTokens: number;
  /** The question time: foresight over before it is excluded, upcoming items are marked. */
  readonly now: number;
  readonly countTokens?: TokenCounter;
  /** IANA zone dates are written in; default UTC (benchmark dates are UTC). */
  readonly timeZone?: string;
  /** Longest narrative, fact or profile line, in characters, before it is cut with "…". */
  readonly maxItemChars?: number;
  /** Longest verbatim turn excerpt, in characters (default RETRIEVAL_CONFIG.context.turnChars). */
  readonly maxTurnChars?: number;
  /** The question: long turns are cut around its words (RETRIEVAL_CONFIG.context.focus) instead of from the head. */
  readonly query?: string;
  /** Cut around the question's words (default RETRIEVAL_CONFIG.context.focus); needs `query`. */
  readonly focus?: boolean;
  /** Names where each cited item comes from (recalledFromOf); omitted: citations carry no `from`. */
  readonly recalledFrom?: ReturnType<typeof recalledFromOf>;
}

/** Foresight that still holds or is upcoming at `now`; expired and dismissed items never are. */
/**
 * A profile item as the context prints it: "key: value", or the value alone when the key is only
 * the value's first words — a memory added by hand is keyed so (savedMemories.memoryKey), and was
 * sent as "I am vegetarian and I prefer: I am vegetarian and I prefer quick meals".
 */
export function profileLine(key: string, value: string): string {
  const head = key.replace(/…$/, '').trim().toLowerCase();
  return head !== '' && value.toLowerCase().startsWith(head) ? value : `${key}: ${value}`;
}

export function isTimeValid(f: ForesightItem, now: number): boolean {
  return f.status === 'active' && (f.endAt === null || f.endAt >= now);
}

function dateFormat(timeZone: string, withTime: boolean): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    ...(withTime ? { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } : {}),
  });
}

const clip = (text: string, max: number): string => {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1).trimEnd()}…` : t;
};

interface Candidate {
  readonly kind: CitationKind;
  readonly ref: string;
  readonly label: string;
  readonly conversationId?: string;
  /** The episode a fact or plan was found in (for `from`; not part of the citation). */
  readonly memcellId?: string | null;
  /** The line without its [n] marker. */
  readonly body: string;
  /** Order within the section once selected (time order reads best). */
  readonly order: number;
}

interface Section {
  readonly heading: string;
  readonly items: readonly Candidate[];
}

/**
 * One context block in priority order — profile, time-valid foresight, episodes, facts, verbatim
 * excerpts — within `budgetTokens`. Items are considered best first; one that does not fit is
 * dropped and smaller later ones may still fit. Selected items are printed in time order within
 * their section and numbered in print order.
 */
export function composeContext(parts: ContextParts, options: ComposeOptions): ComposedContext {
  const count = options.countTokens ?? charsOverFour;
  const zone = options.timeZone ?? 'UTC';
  const maxChars = options.maxItemChars ?? 1200;
  const turnChars = options.maxTurnChars ?? RETRIEVAL_CONFIG.context.turnChars;
  const focus =
    (options.focus ?? RETRIEVAL_CONFIG.context.focus) && options.query !== undefined ? focusTerms(options.query) : new Set<string>();
  const day = dateFormat(zone, false);
  const stamp = dateFormat(zone, true);
  const d = (ms: number) => day.format(ms);
  const now = options.now;

  const foresight = parts.foresight.filter((f) => isTimeValid(f, now));
  const sections: Section[] = [
    {
      heading: 'Profile (what is known about the user)',
      items: parts.profile
        .filter((p) => p.status === 'active')
        .map((p, i) => ({
          kind: 'profile',
          ref: p.id,
          label: p.key,
          body: clip(profileLine(p.key, p.value), maxChars),
          order: i,
        })),
    },
    {
      heading: 'Plans and expectations still valid',
      items: foresight.map((f, i) => {
        const upcoming = f.startAt !== null && f.startAt > now;
        const when = [
          f.startAt !== null ? `${upcoming ? 'from' : 'since'} ${d(f.startAt)}` : '',
          f.endAt !== null ? `until ${d(f.endAt)}` : '',
        ]
          .filter(Boolean)
          .join(' ');
        return {
          kind: 'foresight',
          ref: f.id,
          memcellId: f.memcellId,
          label: clip(f.content, 60),
          body: `${upcoming ? '(upcoming) ' : ''}${clip(f.content, maxChars)}${when ? ` (${when})` : ''}`,
          order: f.startAt ?? i,
        };
      }),
    },
    {
      heading: 'Episodes',
      items: parts.episodes.map((e) => {
        const span = d(e.startAt) === d(e.endAt) ? d(e.startAt) : `${d(e.startAt)} – ${d(e.endAt)}`;
        return {
          kind: 'episode',
          ref: e.id,
          label: e.title ?? span,
          conversationId: e.conversationId,
          body: `${span}${e.title ? ` — ${e.title}` : ''}: ${clip(e.narrative, maxChars)}`,
          order: e.startAt,
        };
      }),
    },
    {
      heading: 'Facts',
      items: parts.facts.map((f, i) => {
        const when = f.occurredAt ?? f.validFrom;
        const validity =
          !f.current && f.validTo !== null ? ` (true until ${d(f.validTo)})` : !f.current ? ' (later contradicted or replaced)' : '';
        return {
          kind: 'fact',
          ref: f.id,
          memcellId: f.memcellId,
          label: clip(f.content, 60),
          body: `${when !== null ? `${d(when)} · ` : ''}${f.speaker}: ${clip(f.content, maxChars)}${validity}`,
          order: when ?? Number.MAX_SAFE_INTEGER - 1000 + i,
        };
      }),
    },
    {
      heading: 'Conversation excerpts (verbatim)',
      items: parts.turns.map((t) => {
        const caption =
          typeof t.metadata.caption === 'string' && t.metadata.caption ? ` [shared an image: ${clip(t.metadata.caption, 200)}]` : '';
        return {
          kind: 'turn',
          ref: t.id,
          label: `${t.speaker}, ${d(t.occurredAt)}`,
          conversationId: t.conversationId,
          body: `${stamp.format(t.occurredAt)} · ${t.speaker}: ${focusClip(t.content, turnChars, focus)}${caption}`,
          order: t.occurredAt * 1e3 + (t.seq % 1e3),
        };
      }),
    },
  ];

  // Budget: item lines are counted with a wide marker ("[999] "), headings only when used.
  let used = 0;
  let dropped = 0;
  const chosen: { heading: string; items: Candidate[] }[] = [];
  for (const section of sections) {
    const picked: Candidate[] = [];
    const headingCost = count(`## ${section.heading}\n`) + 1;
    for (const item of section.items) {
      const cost = count(`[999] ${item.body}\n`) + (picked.length === 0 ? headingCost : 0);
      if (used + cost > options.budgetTokens) {
        dropped++;
        continue;
      }
      used += cost;
      picked.push(item);
    }
    if (picked.length) chosen.push({ heading: section.heading, items: picked.sort((a, b) => a.order - b.order) });
  }

  const citations: Citation[] = [];
  const blocks: string[] = [];
  for (const section of chosen) {
    const lines = section.items.map((item) => {
      const id = citations.length + 1;
      citations.push({
        id,
        kind: item.kind,
        label: item.label,
        ref: item.ref,
        ...(item.conversationId !== undefined ? { conversationId: item.conversationId } : {}),
        ...(options.recalledFrom ? { from: options.recalledFrom(item) } : {}),
      });
      return `[${id}] ${item.body}`;
    });
    blocks.push(`## ${section.heading}\n${lines.join('\n')}`);
  }
  const text = blocks.join('\n\n');
  return { text, citations, tokens: text ? count(text) : 0, dropped };
}
