/**
 * What one device's LLM made of an episode, as a synced derived record (core/sync/syncEvents.ts
 * `derived.recorded`, kind 'episode'): the title, narrative, facts and plans that synthesis wrote
 * for a memcell, keyed by the episode's turns. Another device whose episode holds exactly those
 * turns writes the record instead of asking its own model (Consolidator.ts), so it neither pays
 * again nor disagrees; when two devices made one for the same turns, the record with the earlier
 * clock wins on both (core/sync/SyncFold.ts).
 *
 * Everything in it is portable: turns are named by their ids (the same on every device), and a fact
 * that replaces an older one names it by a turn of that fact's episode and its words, since fact
 * ids are made from episode ids, which each device chooses itself.
 */
import { z } from 'zod';
import type { EpisodeSynthesis } from './knowledge';

/** The generator named in `madeFrom`: a change of what synthesis writes gets a new version. */
export const EPISODE_GENERATOR = 'episode-synthesis/1';

const text = z.string().max(100_000);
const when = z.number().int().nullable();

export const derivedEpisodeSchema = z.strictObject({
  title: text,
  narrative: text,
  facts: z
    .array(
      z.strictObject({
        speaker: z.string().max(500),
        content: text,
        occurredAt: when,
        validFrom: when,
        validTo: when,
        confidence: z.number().min(0).max(1),
        relation: z.enum(['new', 'update', 'contradiction']),
        replaces: z.strictObject({ turnId: z.string().min(1).max(200), content: text }).nullable(),
      }),
    )
    .max(500),
  foresight: z
    .array(
      z.strictObject({
        content: text,
        startAt: z.number().int(),
        endAt: z.number().int(),
        evidence: z.array(z.string().min(1).max(200)).max(200),
      }),
    )
    .max(200),
});

export type DerivedEpisode = z.infer<typeof derivedEpisodeSchema>;

/** A record from another device as this version reads it, or null when it cannot (skipped, never half-applied). */
export function readDerivedEpisode(payload: unknown): DerivedEpisode | null {
  const r = derivedEpisodeSchema.safeParse(payload);
  return r.success ? r.data : null;
}

/** The generator of theme summaries' records: keyed by the turns of the theme's synthesised episodes. */
export const THEME_GENERATOR = 'theme-summary/1';

export const derivedThemeSchema = z.strictObject({ title: z.string().max(1_000), summary: text });
export type DerivedTheme = z.infer<typeof derivedThemeSchema>;

export function readDerivedTheme(payload: unknown): DerivedTheme | null {
  const r = derivedThemeSchema.safeParse(payload);
  return r.success ? r.data : null;
}

/** A fact named the same way on every device: a turn of its episode and its words. */
export interface FactRef {
  readonly turnId: string;
  readonly content: string;
}

/** What sync reads and writes of episodes here (storage/derivedEpisodes.ts). */
export interface DerivedEpisodeStore {
  /** The ids of the turns an episode covers, oldest first; null when it no longer exists. */
  episodeTurnIds(memcellId: string): Promise<string[] | null>;
  /** The episode covering exactly these turns here (no more, no fewer), with its narrative; null if none. */
  episodeWithTurns(turnIds: readonly string[]): Promise<{ readonly id: string; readonly narrative: string | null } | null>;
  /** What synthesis wrote for an episode as it stands now (the person's corrections included); null unless synthesised. */
  storedEpisode(memcellId: string): Promise<EpisodeSynthesis | null>;
  /** The synthesised episodes, oldest first (what goes up when sync is turned on). */
  synthesisedEpisodeIds(): Promise<string[]>;
  factRef(factId: string): Promise<FactRef | null>;
  factByRef(ref: FactRef): Promise<string | null>;
  /** The turns of a theme's synthesised episodes (what its summary was made from); null when it no longer exists. */
  themeTurnIds(sceneId: string): Promise<string[] | null>;
  /** The theme whose synthesised episodes hold exactly these turns, with its summary; null if none. */
  themeWithTurns(turnIds: readonly string[]): Promise<{ readonly id: string; readonly summary: string | null } | null>;
  /** A theme's title and summary as made here (null: none yet, or the person forgot it). */
  storedTheme(sceneId: string): Promise<DerivedTheme | null>;
  /** The themes with a summary (what goes up when sync is turned on). */
  summarisedThemeIds(): Promise<string[]>;
}

/** This device's synthesis in the portable form. */
export async function toDerivedEpisode(store: DerivedEpisodeStore, write: EpisodeSynthesis): Promise<DerivedEpisode> {
  const facts = [];
  for (const f of write.facts) {
    const replaces = f.replaces ? await store.factRef(f.replaces) : null;
    const { speaker, content, occurredAt, validFrom, validTo, confidence, relation } = f;
    facts.push({ speaker, content, occurredAt, validFrom, validTo, confidence, relation, replaces });
  }
  const foresight = write.foresight.map(({ content, startAt, endAt, evidence }) => ({ content, startAt, endAt, evidence: [...evidence] }));
  return { title: write.title, narrative: write.narrative, facts, foresight };
}

/** Another device's record as a write here (a replaced fact this device does not hold replaces nothing). */
export async function fromDerivedEpisode(store: DerivedEpisodeStore, record: DerivedEpisode): Promise<EpisodeSynthesis> {
  const facts = [];
  for (const f of record.facts) facts.push({ ...f, replaces: f.replaces ? await store.factByRef(f.replaces) : null });
  return { title: record.title, narrative: record.narrative, facts, foresight: record.foresight };
}
