/**
 * Benchmark dataset loaders: LoCoMo (one JSON array of conversations), LongMemEval (one
 * question object per file, or an array) and BEAM (a folder per chat) into one shape the recall
 * runner ingests and scores.
 *
 * Invariants: every turn id is unique within its corpus; question evidence only names turns or
 * sessions that exist in that corpus (malformed or dangling ids are dropped and counted, never
 * guessed at); sessions are listed in the order they are ingested (chronological).
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';

export type DatasetName = 'locomo' | 'longmemeval' | 'beam' | 'multilingual';

export interface BenchTurn {
  /** Unique within the corpus, e.g. "D3:7" (LoCoMo) or "<session key>:4" (LongMemEval). */
  readonly id: string;
  /** The dataset's session id, the unit evidence sessions are scored in (shared by repeated copies). */
  readonly sessionId: string;
  readonly role: 'user' | 'assistant';
  readonly speaker: string;
  readonly text: string;
  /** Caption of a shared image (LoCoMo `blip_caption`), stored in message metadata. */
  readonly caption?: string;
}

export interface BenchSession {
  /**
   * Unique within the corpus (the conversation it is stored as). A LongMemEval haystack can hold
   * the same session twice; the repeat is keyed by position ("<id>#<n>"), its turns' sessionId
   * stays the dataset's id.
   */
  readonly id: string;
  /** ms since epoch (UTC); NaN never appears — undated sessions inherit the previous date. */
  readonly date: number;
  readonly turns: readonly BenchTurn[];
}

export interface BenchQuestion {
  readonly id: string;
  readonly text: string;
  /** When the question is asked (ms); the last session's date when the dataset gives none. */
  readonly askedAt: number;
  /** LoCoMo: "1".."5"; LongMemEval: the question type; BEAM: the ability probed. */
  readonly category: string;
  /** false for questions reported apart (LoCoMo category 5, LongMemEval `_abs`, BEAM abstention). */
  readonly headline: boolean;
  readonly evidenceTurns: readonly string[];
  readonly evidenceSessions: readonly string[];
  /** Evidence strings that could not be parsed or named no existing turn. */
  readonly invalidEvidence: readonly string[];
}

/** One unit that gets its own fresh database: a LoCoMo conversation, a LongMemEval question or a BEAM chat. */
export interface BenchCorpus {
  readonly id: string;
  /** Names of the people talking (LoCoMo speakers; "User"/"Assistant" for LongMemEval). */
  readonly speakers: readonly string[];
  readonly sessions: readonly BenchSession[];
  readonly questions: readonly BenchQuestion[];
}

export interface BenchDataset {
  readonly name: DatasetName;
  readonly source: string;
  readonly corpora: readonly BenchCorpus[];
}

export const LOCOMO_CATEGORY_NAMES: Readonly<Record<string, string>> = {
  '1': 'multi-hop',
  '2': 'temporal',
  '3': 'open-domain',
  '4': 'single-hop',
  '5': 'adversarial',
};

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" → ms (UTC). Returns NaN when the text is not of that shape. */
export function parseLocomoDate(text: string): number {
  const m = /(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(text);
  if (!m) return Number.NaN;
  const month = MONTHS.indexOf(m[5]!.toLowerCase());
  if (month < 0) return Number.NaN;
  let hour = Number(m[1]) % 12;
  if (m[3]!.toLowerCase() === 'pm') hour += 12;
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
}

/** "2023/05/20 (Sat) 02:21" → ms (UTC). Returns NaN when the text is not of that shape. */
export function parseLongMemEvalDate(text: string): number {
  const m = /(\d{4})\/(\d{1,2})\/(\d{1,2})(?:\s*\([A-Za-z]+\))?(?:\s+(\d{1,2}):(\d{2}))?/.exec(text);
  if (!m) return Number.NaN;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0));
}

/**
 * Lenient LoCoMo evidence parsing: each string may hold zero or more ids ("D8:6; D9:17",
 * "D:11:26", "D30:05", space-joined lists). Ids are normalised to "D<session>:<turn>" without
 * leading zeros; whether they exist is checked by the caller.
 */
export function parseLocomoEvidence(raw: unknown): { ids: string[]; unparsable: string[] } {
  const ids: string[] = [];
  const unparsable: string[] = [];
  const items = Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw];
  for (const item of items) {
    const text = String(item);
    const found = [...text.matchAll(/D\s*:?\s*(\d+)\s*:\s*(\d+)/gi)];
    if (found.length === 0) {
      unparsable.push(text);
      continue;
    }
    for (const m of found) ids.push(`D${Number(m[1])}:${Number(m[2])}`);
  }
  return { ids: [...new Set(ids)], unparsable };
}

interface LocomoTurnJson {
  speaker?: string;
  dia_id?: string;
  text?: string;
  blip_caption?: string;
}

interface LocomoQaJson {
  question?: string;
  evidence?: unknown;
  category?: number | string;
}

interface LocomoConversationJson {
  sample_id?: string;
  conversation?: Record<string, unknown>;
  qa?: LocomoQaJson[];
}

export function loadLocomo(json: unknown, source = 'locomo'): BenchDataset {
  if (!Array.isArray(json)) throw new Error('LoCoMo data must be a JSON array of conversations.');
  const corpora = (json as LocomoConversationJson[]).map((conv, ci): BenchCorpus => {
    const id = conv.sample_id ?? `conv-${ci}`;
    const c = conv.conversation ?? {};
    const speakers = [c.speaker_a, c.speaker_b].filter((s): s is string => typeof s === 'string');
    // Iterate over the session lists, not the date keys: some date keys have no session.
    const sessionNumbers = Object.keys(c)
      .map((k) => /^session_(\d+)$/.exec(k))
      .filter((m): m is RegExpExecArray => m !== null && Array.isArray(c[m[0]]))
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    const sessions: BenchSession[] = [];
    let lastDate = Date.UTC(2000, 0, 1);
    for (const n of sessionNumbers) {
      const parsed = parseLocomoDate(String(c[`session_${n}_date_time`] ?? ''));
      const date = Number.isFinite(parsed) ? parsed : lastDate;
      lastDate = date;
      const turns = (c[`session_${n}`] as LocomoTurnJson[]).map((t, ti): BenchTurn => {
        const parsedId = parseLocomoEvidence(t.dia_id ?? '').ids[0];
        const turnId = parsedId ?? `D${n}:${ti + 1}`;
        const caption = typeof t.blip_caption === 'string' && t.blip_caption.trim() ? t.blip_caption.trim() : undefined;
        const speaker = t.speaker ?? 'Unknown';
        return {
          id: turnId,
          sessionId: `D${n}`,
          role: speaker === speakers[1] ? 'assistant' : 'user',
          speaker,
          text: t.text ?? '',
          ...(caption ? { caption } : {}),
        };
      });
      sessions.push({ id: `D${n}`, date, turns });
    }
    const turnIds = new Set(sessions.flatMap((s) => s.turns.map((t) => t.id)));
    const sessionOf = new Map(sessions.flatMap((s) => s.turns.map((t) => [t.id, s.id] as const)));
    const askedAt = sessions.length > 0 ? sessions[sessions.length - 1]!.date + 86_400_000 : lastDate;
    const questions = (conv.qa ?? []).map((qa, qi): BenchQuestion => {
      const { ids, unparsable } = parseLocomoEvidence(qa.evidence);
      const valid = ids.filter((x) => turnIds.has(x));
      const category = String(qa.category ?? '');
      return {
        id: `${id}#${qi}`,
        text: String(qa.question ?? ''),
        askedAt,
        category,
        headline: category !== '5',
        evidenceTurns: valid,
        evidenceSessions: [...new Set(valid.map((x) => sessionOf.get(x)!))],
        invalidEvidence: [...unparsable, ...ids.filter((x) => !turnIds.has(x))],
      };
    });
    return { id, speakers, sessions, questions };
  });
  return { name: 'locomo', source, corpora };
}

interface LongMemEvalJson {
  question_id?: string;
  question_type?: string;
  question?: string;
  question_date?: string;
  haystack_dates?: string[];
  haystack_session_ids?: string[];
  haystack_sessions?: { role?: string; content?: string; has_answer?: boolean }[][];
  answer_session_ids?: string[];
}

export function loadLongMemEval(items: readonly unknown[], source = 'longmemeval'): BenchDataset {
  const corpora = (items as LongMemEvalJson[]).map((q, qi): BenchCorpus => {
    const qid = q.question_id ?? `q${qi}`;
    const raw = (q.haystack_sessions ?? []).map((turns, si) => ({
      id: q.haystack_session_ids?.[si] ?? `s${si}`,
      date: parseLongMemEvalDate(q.haystack_dates?.[si] ?? ''),
      index: si,
      turns,
    }));
    // Ingest in time order (the file's order is not chronological); undated sessions keep their place.
    raw.sort((a, b) => (Number.isFinite(a.date) && Number.isFinite(b.date) ? a.date - b.date : a.index - b.index));
    const evidenceTurns: string[] = [];
    let lastDate = Date.UTC(2000, 0, 1);
    const copies = new Map<string, number>();
    const sessions = raw.map((s): BenchSession => {
      const date = Number.isFinite(s.date) ? s.date : lastDate;
      lastDate = date;
      // Key by position: a repeated session id (shared filler sessions) gets "#<n>", so turn ids stay unique.
      const n = copies.get(s.id) ?? 0;
      copies.set(s.id, n + 1);
      const key = n === 0 ? s.id : `${s.id}#${n}`;
      const turns = s.turns.map((t, ti): BenchTurn => {
        const id = `${key}:${ti}`;
        if (t.has_answer === true) evidenceTurns.push(id);
        const role = t.role === 'assistant' ? 'assistant' : 'user';
        return { id, sessionId: s.id, role, speaker: role === 'user' ? 'User' : 'Assistant', text: t.content ?? '' };
      });
      return { id: key, date, turns };
    });
    const sessionIds = new Set(sessions.map((s) => s.id));
    const answerSessions = q.answer_session_ids ?? [];
    const asked = parseLongMemEvalDate(q.question_date ?? '');
    const question: BenchQuestion = {
      id: qid,
      text: q.question ?? '',
      askedAt: Number.isFinite(asked) ? asked : lastDate,
      category: q.question_type ?? 'unknown',
      headline: !qid.endsWith('_abs'),
      evidenceTurns,
      evidenceSessions: answerSessions.filter((s) => sessionIds.has(s)),
      invalidEvidence: answerSessions.filter((s) => !sessionIds.has(s)),
    };
    return { id: qid, speakers: ['User', 'Assistant'], sessions, questions: [question] };
  });
  return { name: 'longmemeval', source, corpora };
}

/** BEAM's time anchor "March-15-2024" → ms (UTC, noon). Returns NaN when the text is not of that shape. */
export function parseBeamDate(text: string): number {
  const m = new RegExp(`^\\s*(${MONTHS.join('|')})[-\\s]+(\\d{1,2})[-,\\s]+(\\d{4})\\s*$`, 'i').exec(text);
  if (!m) return Number.NaN;
  return Date.UTC(Number(m[3]), MONTHS.indexOf(m[1]!.toLowerCase()), Number(m[2]), 12);
}

/** The generator's index marker at the end of a BEAM message (mostly the user's) (" ->-> 1,1"): not part of what the person wrote. */
const BEAM_MARKER = /\s*->->[^\n]*\s*$/;

interface BeamMessageJson {
  role?: string;
  id?: number;
  content?: string;
  time_anchor?: string;
}

interface BeamBatchJson {
  batch_number?: number;
  time_anchor?: string;
  turns?: BeamMessageJson[][];
}

/** The turn id of BEAM message `id` (message ids are numbered across the whole chat). */
export const beamTurnId = (id: number): string => `M${id}`;

/**
 * Evidence message ids of a BEAM question: a list, a list of lists (event ordering) or an object of
 * lists. For a knowledge update only `updated_info` counts: a current answer needs the new value.
 */
export function beamEvidenceIds(ability: string, raw: unknown): number[] {
  const flat = (x: unknown): unknown[] => (Array.isArray(x) ? x.flatMap(flat) : [x]);
  let items: unknown[];
  if (raw === null || raw === undefined) items = [];
  else if (Array.isArray(raw)) items = flat(raw);
  else if (typeof raw === 'object') {
    const o = raw as Record<string, unknown>;
    items = ability === 'knowledge_update' && 'updated_info' in o ? flat(o.updated_info) : Object.values(o).flatMap(flat);
  } else items = [raw];
  return [...new Set(items.filter((x): x is number => typeof x === 'number' && Number.isInteger(x)))];
}

/**
 * One BEAM chat (`chat.json` + `probing_questions.json`) → one corpus: each batch is a session
 * (its own conversation, as a person's separate chats with an assistant), dated by the time anchor
 * its messages carry (undated batches inherit the previous date, a day later); every question is
 * asked a day after the last session. Abstention questions (no evidence) are reported apart.
 */
export function loadBeamChat(id: string, chat: unknown, probing: unknown): BenchCorpus {
  if (!Array.isArray(chat)) throw new Error(`BEAM chat ${id}: chat.json must be a JSON array of batches.`);
  const sessions: BenchSession[] = [];
  let lastDate = Number.NaN;
  for (const [bi, batch] of (chat as BeamBatchJson[]).entries()) {
    const messages = (batch.turns ?? []).flat().filter((m): m is BeamMessageJson => m !== null && typeof m === 'object');
    const anchor = [batch.time_anchor, ...messages.map((m) => m.time_anchor)].find(
      (a): a is string => typeof a === 'string' && Number.isFinite(parseBeamDate(a)),
    );
    const date = anchor ? parseBeamDate(anchor) : Number.isFinite(lastDate) ? lastDate + 86_400_000 : Date.UTC(2024, 0, 1, 12);
    lastDate = date;
    const key = `B${batch.batch_number ?? bi + 1}`;
    const turns = messages
      .filter((m) => typeof m.id === 'number')
      .map((m): BenchTurn => {
        const role = m.role === 'assistant' ? 'assistant' : 'user';
        const text = String(m.content ?? '');
        return {
          id: beamTurnId(m.id!),
          sessionId: key,
          role,
          speaker: role === 'user' ? 'User' : 'Assistant',
          text: text.replace(BEAM_MARKER, ''),
        };
      });
    sessions.push({ id: key, date, turns });
  }
  const sessionOf = new Map(sessions.flatMap((s) => s.turns.map((t) => [t.id, s.id] as const)));
  const askedAt = (Number.isFinite(lastDate) ? lastDate : Date.UTC(2024, 0, 1)) + 86_400_000;
  const questions: BenchQuestion[] = [];
  const abilities =
    probing !== null && typeof probing === 'object' && !Array.isArray(probing) ? Object.entries(probing as Record<string, unknown>) : [];
  for (const [ability, list] of abilities) {
    if (!Array.isArray(list)) continue;
    for (const [qi, raw] of list.entries()) {
      const q = (raw ?? {}) as { question?: unknown; source_chat_ids?: unknown };
      const ids = beamEvidenceIds(ability, q.source_chat_ids).map(beamTurnId);
      const valid = ids.filter((x) => sessionOf.has(x));
      questions.push({
        id: `${id}#${ability}#${qi}`,
        text: String(q.question ?? ''),
        askedAt,
        category: ability,
        headline: ability !== 'abstention',
        evidenceTurns: valid,
        evidenceSessions: [...new Set(valid.map((x) => sessionOf.get(x)!))],
        invalidEvidence: ids.filter((x) => !sessionOf.has(x)),
      });
    }
  }
  return { id: `beam-${id}`, speakers: ['User', 'Assistant'], sessions, questions };
}

/** BEAM chats: one chat's folder (`chat.json`, `probing_questions.json`) or a folder of them (`<n>/`), in numeric order. */
async function loadBeam(path: string, folders: readonly string[]): Promise<BenchDataset> {
  const sorted = [...folders].sort((a, b) => Number(basename(a)) - Number(basename(b)) || a.localeCompare(b));
  const corpora: BenchCorpus[] = [];
  for (const dir of sorted) {
    const chat = JSON.parse(await readFile(join(dir, 'chat.json'), 'utf8')) as unknown;
    const probingPath = join(dir, 'probing_questions.json');
    const probing = existsSync(probingPath) ? (JSON.parse(await readFile(probingPath, 'utf8')) as unknown) : {};
    corpora.push(loadBeamChat(basename(dir), chat, probing));
  }
  return { name: 'beam', source: path, corpora };
}

/** Reads a LoCoMo file, a LongMemEval file (object or array), a folder of LongMemEval files or a folder of BEAM chats. */
export async function loadDataset(path: string): Promise<BenchDataset> {
  if ((await stat(path)).isDirectory()) {
    const entries = await readdir(path);
    if (existsSync(join(path, 'chat.json'))) return loadBeam(path, [path]);
    const chats = entries.map((n) => join(path, n)).filter((d) => existsSync(join(d, 'chat.json')));
    if (chats.length > 0) return loadBeam(path, chats);
    const names = entries.filter((n) => n.endsWith('.json')).sort();
    const items: unknown[] = [];
    for (const n of names) {
      const json = JSON.parse(await readFile(join(path, n), 'utf8')) as unknown;
      if (Array.isArray(json)) items.push(...json);
      else items.push(json);
    }
    return loadLongMemEval(items, path);
  }
  const json = JSON.parse(await readFile(path, 'utf8')) as unknown;
  const first = Array.isArray(json) ? (json[0] as Record<string, unknown> | undefined) : (json as Record<string, unknown>);
  if (first && 'haystack_sessions' in first) return loadLongMemEval(Array.isArray(json) ? json : [json], path);
  return loadLocomo(json, path);
}
