/**
 * Prompts and output schemas of the three synthesis stages: `memcell` (narrative, facts,
 * foresight of one episode), `scene` (a theme's rolling summary) and `profile` (add/update/delete
 * operations on the user profile).
 *
 * Written for small local models as much as for large ones: one short system message with
 * numbered rules and a literal JSON example (no JSON Schema dump), data in a plain line format,
 * short labels instead of ids (K1 for a known fact, [3] for a turn, E2 for an episode, S1 for a
 * scene, P4 for a profile item) which synthesis.ts maps back. Schemas are lenient where models
 * are sloppy (null for absent, numbers as strings, one broken list element) and strict only
 * where a value is unusable without the field.
 *
 * The mock responder in test/support/synthesisResponder.ts recognises stages by the section
 * headings below (TURNS:, NEW EPISODES:, CURRENT PROFILE:); keep them stable.
 */
import { DEFAULT_TIME_ZONE, offsetMinutes } from '../base/timeZone';
import { z } from 'zod';
import type { LlmMessage } from '../base/ports';
import type { Fact, MemCell, Message, Role } from '../base/types';

export const SYNTHESIS_STAGES = { memcell: 'memcell', scene: 'scene', profile: 'profile' } as const;

/** Completion budgets; generous because a reply cut off by the limit costs a retry. */
export const MAX_TOKENS = { memcell: 1500, scene: 500, profile: 1200 } as const;

/** Per-turn character cap in the memcell prompt; a pasted document must not blow the context. */
const MAX_TURN_CHARS = 1200;

// ---------------------------------------------------------------------------------------------
// Dates: always absolute, in the user's time zone (UTC by default), in words the model copies into
// its text ("8 May 2023"): a turn at 20:00 in Los Angeles is an evening turn of that day, and the
// dates the model returns are read back in the same zone (synthesis.ts `parseDate`).
// ---------------------------------------------------------------------------------------------

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

const pad = (n: number): string => String(n).padStart(2, '0');

/** The wall-clock fields of instant `ms` in `zone` (read off a UTC date shifted by the zone's offset). */
function local(ms: number, zone: string): Date {
  return new Date(ms + offsetMinutes(zone, ms) * 60_000);
}

/** "8 May 2023" */
export function formatDay(ms: number, zone = DEFAULT_TIME_ZONE): string {
  const d = local(ms, zone);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** "Monday 8 May 2023, 14:05" */
export function formatDateTime(ms: number, zone = DEFAULT_TIME_ZONE): string {
  const d = local(ms, zone);
  return `${WEEKDAYS[d.getUTCDay()]} ${formatDay(ms, zone)}, ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
}

/** One line of text: models copy line structure, and a newline inside a turn breaks the format. */
function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

// ---------------------------------------------------------------------------------------------
// Lenient building blocks
// ---------------------------------------------------------------------------------------------

// `.optional()` before each transform: zod 4 treats a key whose schema rejects undefined as
// required, even z.unknown() piped into a transform.

/** A trimmed string, or null for absent/empty/non-string. */
const optionalText = z
  .unknown()
  .optional()
  .transform((v) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' ? String(v) : null));

/** Labels such as "K2", "E1", "P3" (numbers tolerated): a list of trimmed strings. */
const labelList = z
  .unknown()
  .optional()
  .transform((v): string[] => {
    const list = Array.isArray(v) ? v : typeof v === 'string' || typeof v === 'number' ? [v] : [];
    return list
      .filter((x) => typeof x === 'string' || typeof x === 'number')
      .map((x) => String(x).trim())
      .filter((x) => x !== '');
  });

/** Turn numbers: [1, "2", "[3]"] → [1, 2, 3]. */
const turnList = labelList.transform((list) =>
  list.map((x) => Number(x.replace(/[^0-9]/g, ''))).filter((n) => Number.isInteger(n) && n > 0),
);

const confidence = z
  .unknown()
  .optional()
  .transform((v) => {
    const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
    if (!Number.isFinite(n)) return 0.6;
    return Math.min(1, Math.max(0, n > 1 && n <= 100 ? n / 100 : n));
  });

/** An array whose unusable elements are dropped instead of failing the whole reply. */
function lenientList<T extends z.ZodType>(item: T) {
  return z
    .array(z.unknown())
    .nullish()
    .transform((list) => {
      const out: z.output<T>[] = [];
      for (const raw of list ?? []) {
        const parsed = item.safeParse(raw);
        if (parsed.success) out.push(parsed.data as z.output<T>);
      }
      return out;
    });
}

// ---------------------------------------------------------------------------------------------
// Stage 1: memcell
// ---------------------------------------------------------------------------------------------

export const factOutputSchema = z.object({
  text: z.string().trim().min(3),
  speaker: optionalText,
  kind: z.enum(['new', 'update', 'contradiction']).catch('new'),
  replaces: optionalText,
  turns: turnList,
  validFrom: optionalText,
  validTo: optionalText,
});

export const foresightOutputSchema = z.object({
  text: z.string().trim().min(3),
  start: optionalText,
  end: z.string().trim().min(4),
  evidence: turnList,
});

export const memcellOutputSchema = z.object({
  title: optionalText,
  narrative: z.string().trim().min(1),
  facts: lenientList(factOutputSchema),
  foresight: lenientList(foresightOutputSchema),
});

export type FactOutput = z.output<typeof factOutputSchema>;
export type ForesightOutput = z.output<typeof foresightOutputSchema>;
export type MemCellOutput = z.output<typeof memcellOutputSchema>;

export type PromptTurn = Pick<Message, 'speaker' | 'role' | 'occurredAt' | 'content'>;

export interface PromptKnownFact extends Pick<Fact, 'speaker' | 'content'> {
  /** "K1", "K2", … */
  readonly label: string;
}

const MEMCELL_SYSTEM = `You turn one conversation episode into memory records.

Rules:
1. Write in the third person and use people's names. Never "I", "you", "we", "he" or "she" when the name is known.
2. Use absolute dates such as "on 8 May 2023". Never write "today", "yesterday", "last week" or "next Friday": work the date out from the turn's timestamp.
3. "title": at most 12 words.
4. "narrative": 2 to 6 sentences saying what happened and what was said, in order.
5. "facts": only information that is NOT already in KNOWN FACTS. One idea per fact, a full sentence with names and absolute dates. Skip greetings and small talk.
   - kind "new": not known before.
   - kind "update": changes a known fact (a new value, a later state). Put that fact's label in "replaces", e.g. "K2".
   - kind "contradiction": disagrees with a known fact. Put its label in "replaces".
   - A fact that is already known, in any wording, is left out.
6. "speaker": the name of the person the fact is about. Turns marked (assistant) are an AI assistant: what it says is never a fact about the user. Attribute such facts to "Assistant" or leave them out.
7. "turns": the numbers of the turns the fact comes from.
8. "validFrom" / "validTo": dates (YYYY-MM-DD) when the fact starts or stops being true, or null.
9. "foresight": plans, deadlines, appointments or temporary states that matter later. "start" and "end" (YYYY-MM-DD) bound the time it is relevant; "evidence" lists turn numbers. Use [] when there are none.

JSON shape:
{"title": "Alice moves to Lisbon", "narrative": "On 8 May 2023 Alice told ...", "facts": [{"text": "Alice moved to Lisbon in early May 2023.", "speaker": "Alice", "kind": "update", "replaces": "K1", "turns": [1], "validFrom": "2023-05-01", "validTo": null}], "foresight": [{"text": "Alice has a job interview on 12 May 2023.", "start": "2023-05-08", "end": "2023-05-12", "evidence": [3]}]}`;

/** One turn as the MemCell prompt shows it (numbered; its text clipped to one line). */
export function memCellTurnLine(t: PromptTurn, n: number, zone = DEFAULT_TIME_ZONE): string {
  return `[${n}] ${formatDateTime(t.occurredAt, zone)} | ${t.speaker} (${t.role}): ${oneLine(t.content, MAX_TURN_CHARS)}`;
}

export function buildMemCellPrompt(input: {
  readonly startAt: number;
  readonly endAt: number;
  /** The user's IANA time zone; times are written in it (default UTC). */
  readonly timeZone?: string;
  readonly turns: readonly PromptTurn[];
  readonly known: readonly PromptKnownFact[];
  /** The number of the first turn (a batch of a longer episode, smallModel.ts); default 1. */
  readonly firstTurn?: number;
  /** Which batch this is, when the episode is split for a small context window. */
  readonly part?: { readonly index: number; readonly of: number };
}): LlmMessage[] {
  const first = input.firstTurn ?? 1;
  const zone = input.timeZone ?? DEFAULT_TIME_ZONE;
  const people = new Map<string, Role>();
  for (const t of input.turns) if (!people.has(t.speaker)) people.set(t.speaker, t.role);
  const lines = [
    `Episode: ${formatDateTime(input.startAt, zone)} to ${formatDateTime(input.endAt, zone)} (${zone})`,
    `People: ${[...people].map(([name, role]) => `${name} (${role})`).join(', ')}`,
    '',
    'KNOWN FACTS:',
    ...(input.known.length === 0 ? ['none'] : input.known.map((k) => `${k.label} | ${k.speaker} | ${oneLine(k.content, 400)}`)),
    '',
    input.part
      ? `TURNS (part ${input.part.index} of ${input.part.of} of this episode; the other parts are recorded separately):`
      : 'TURNS:',
    ...input.turns.map((t, i) => memCellTurnLine(t, first + i, zone)),
  ];
  return [
    { role: 'system', content: MEMCELL_SYSTEM },
    { role: 'user', content: lines.join('\n') },
  ];
}

// ---------------------------------------------------------------------------------------------
// Stage 2: scene
// ---------------------------------------------------------------------------------------------

export const sceneOutputSchema = z.object({
  title: z.string().trim().min(1),
  summary: z.string().trim().min(1),
});
export type SceneOutput = z.output<typeof sceneOutputSchema>;

export interface PromptEpisode extends Pick<MemCell, 'startAt' | 'title'> {
  /** "E1", "E2", … */
  readonly label: string;
  readonly narrative: string;
}

const SCENE_SYSTEM = `You keep the summary of one theme in a person's memory up to date.

Rules:
1. Merge NEW EPISODES into CURRENT SUMMARY. Keep names, numbers, places and absolute dates; drop small talk.
2. When something changed, say what it was before and what it is now, with dates.
3. "title": at most 8 words. "summary": at most 6 sentences, third person.

JSON shape:
{"title": "Alice's move to Lisbon", "summary": "In May 2023 Alice moved from Porto to Lisbon ..."}`;

/** One new episode as the scene prompt shows it (smallModel.ts sizes batches by these lines). */
export function sceneEpisodeLine(e: PromptEpisode): string {
  return `${e.label} | ${formatDay(e.startAt)} | ${e.title ? oneLine(e.title, 200) : 'untitled'}: ${oneLine(e.narrative, 2000)}`;
}

export function buildScenePrompt(input: {
  readonly title: string | null;
  readonly summary: string | null;
  readonly episodes: readonly PromptEpisode[];
}): LlmMessage[] {
  const lines = [
    `CURRENT TITLE: ${input.title ? oneLine(input.title, 200) : 'none'}`,
    'CURRENT SUMMARY:',
    input.summary ? oneLine(input.summary, 3000) : 'none',
    '',
    'NEW EPISODES:',
    ...input.episodes.map(sceneEpisodeLine),
  ];
  return [
    { role: 'system', content: SCENE_SYSTEM },
    { role: 'user', content: lines.join('\n') },
  ];
}

// ---------------------------------------------------------------------------------------------
// Stage 3: profile
// ---------------------------------------------------------------------------------------------

export const profileOperationSchema = z.object({
  op: z.enum(['add', 'update', 'delete']),
  id: optionalText,
  kind: z.enum(['explicit', 'implicit']).catch('explicit'),
  key: optionalText,
  value: optionalText,
  confidence,
  evidence: labelList,
  reason: optionalText,
});

export const profileOutputSchema = z.object({
  operations: lenientList(profileOperationSchema),
});
export type ProfileOperation = z.output<typeof profileOperationSchema>;
export type ProfileOutput = z.output<typeof profileOutputSchema>;

export interface PromptProfileItem {
  /** "P1", "P2", … */
  readonly label: string;
  readonly kind: 'explicit' | 'implicit';
  readonly key: string;
  readonly value: string;
  readonly confidence: number;
  readonly status: 'active' | 'conflict' | 'deleted';
}

export interface PromptScene {
  /** "S1", "S2", … */
  readonly label: string;
  readonly title: string | null;
  readonly summary: string;
  /** Episode labels ("E1") of its members. */
  readonly episodes: readonly string[];
}

const PROFILE_SYSTEM = `You maintain a profile of the user from summaries of their conversations.

Rules:
1. Profile only the people listed in USER, never the AI assistant. If USER lists more than one person, start each key with the person's name, e.g. "Alice: home city".
2. kind "explicit": a checkable fact (job, home, family, health, a measurement with its date). kind "implicit": a trait or preference shown by behaviour (e.g. "prefers short answers").
3. "key": 1 to 4 words naming the attribute. "value": short; for values that change over time, give the date, e.g. "82 kg (June 2023), was 85 kg (May 2023)".
4. Operations: "add" a new item; "update" an existing item (its id, e.g. "P3") with a new value or confidence; "delete" an item (its id) that is no longer true or was wrong.
5. Use only what the scenes say. "confidence": 0 to 1. "evidence": the episode ids (E1) or scene ids (S1) that support it. "reason": a few words.
6. If nothing changes, reply {"operations": []}.

JSON shape:
{"operations": [{"op": "add", "id": null, "kind": "explicit", "key": "home city", "value": "Lisbon (since May 2023)", "confidence": 0.9, "evidence": ["E2"], "reason": "moved from Porto"}]}`;

/** One profile item as the profile prompt shows it. */
export function profileItemLine(p: PromptProfileItem): string {
  return `${p.label} | ${p.kind} | ${oneLine(p.key, 100)} = ${oneLine(p.value, 300)} | confidence ${p.confidence.toFixed(2)}${p.status === 'conflict' ? ' | disputed' : ''}`;
}

/** One scene as the profile prompt shows it. */
export function profileSceneLine(s: PromptScene): string {
  return `${s.label} (episodes ${s.episodes.join(', ') || 'none'}) | ${s.title ? oneLine(s.title, 200) : 'untitled'}: ${oneLine(s.summary, 2000)}`;
}

export function buildProfilePrompt(input: {
  readonly subjects: readonly string[];
  readonly items: readonly PromptProfileItem[];
  readonly scenes: readonly PromptScene[];
}): LlmMessage[] {
  const lines = [
    `USER: ${input.subjects.length > 0 ? input.subjects.join(', ') : 'the user'}`,
    '',
    'CURRENT PROFILE:',
    ...(input.items.length === 0 ? ['none'] : input.items.map(profileItemLine)),
    '',
    'SCENES:',
    ...input.scenes.map(profileSceneLine),
  ];
  return [
    { role: 'system', content: PROFILE_SYSTEM },
    { role: 'user', content: lines.join('\n') },
  ];
}
