/**
 * The open long-term-memory benchmarks as history, so their conversations can be explored and
 * questioned in the app:
 * - LoCoMo: an array of samples `{sample_id, conversation: {speaker_a, speaker_b, session_N: [{speaker,
 *   dia_id, text, blip_caption?}], session_N_date_time: "1:56 pm on 8 May, 2023"}}`; each session
 *   becomes a conversation. Both speakers are people, so both turns are stored as role `user` with
 *   their names (an `assistant` turn would be read as an AI's words by synthesis).
 * - LongMemEval: an array of questions `{haystack_session_ids, haystack_dates: "2023/05/20 (Sat)
 *   02:21", haystack_sessions: [[{role, content}]]}`; each haystack session becomes a conversation.
 *   Sessions recur across questions; their ids are the session ids, so each is stored once.
 * Turns of one session are one second apart from the session's time, keeping their order.
 */
import type { ImportedConversation, ImportedTurn } from '../core/base/historyImport';
import { SkipEntry, asRecord, text } from './parseHelpers';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** "1:56 pm on 8 May, 2023" → ms (UTC); NaN otherwise. */
export function locomoDate(value: string): number {
  const m = /(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(value);
  if (!m) return Number.NaN;
  const month = MONTHS.indexOf(m[5]!.slice(0, 3).toLowerCase());
  if (month < 0) return Number.NaN;
  const hour = (Number(m[1]) % 12) + (m[3]!.toLowerCase() === 'pm' ? 12 : 0);
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
}

/** "2023/05/20 (Sat) 02:21" → ms (UTC); NaN otherwise. */
export function longMemEvalDate(value: string): number {
  const m = /(\d{4})\/(\d{1,2})\/(\d{1,2})(?:\s*\([A-Za-z]+\))?(?:\s+(\d{1,2}):(\d{2}))?/.exec(value);
  if (!m) return Number.NaN;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0));
}

export function parseLocomoSample(raw: unknown, index: number): ImportedConversation[] {
  const sample = asRecord(raw);
  const conv = asRecord(sample?.conversation);
  if (!sample || !conv) throw new SkipEntry('LoCoMo entries without a conversation');
  const sampleId = text(sample.sample_id) || `sample-${index}`;
  const people = [text(conv.speaker_a), text(conv.speaker_b)].filter(Boolean).join(' & ') || sampleId;
  const sessions = Object.keys(conv)
    .map((k) => /^session_(\d+)$/.exec(k))
    .filter((m): m is RegExpExecArray => m !== null && Array.isArray(conv[m[0]]))
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  let lastDate = Number.NaN;
  return sessions.map((n) => {
    const parsed = locomoDate(text(conv[`session_${n}_date_time`]));
    // An undated session follows the previous one (a day later), never "now".
    const date = Number.isFinite(parsed) ? parsed : Number.isFinite(lastDate) ? lastDate + 86_400_000 : Date.UTC(2000, 0, 1);
    lastDate = date;
    const turns: ImportedTurn[] = [];
    (conv[`session_${n}`] as unknown[]).forEach((t, i) => {
      const turn = asRecord(t);
      if (!turn) return;
      const caption = text(turn.blip_caption).trim();
      const content = [text(turn.text).trim(), caption ? `[image: ${caption}]` : ''].filter(Boolean).join('\n');
      if (!content) return;
      const speaker = text(turn.speaker) || 'Unknown';
      turns.push({
        id: `locomo:${sampleId}:${text(turn.dia_id) || `D${n}:${i + 1}`}`,
        role: 'user',
        speaker,
        content,
        occurredAt: date + i * 1000,
      });
    });
    return { id: `locomo:${sampleId}:session-${n}`, title: `${people} — session ${n}`, createdAt: date, turns };
  });
}

export function parseLongMemEvalQuestion(raw: unknown): ImportedConversation[] {
  const q = asRecord(raw);
  if (!q || !Array.isArray(q.haystack_sessions)) throw new SkipEntry('LongMemEval entries without sessions');
  const ids = Array.isArray(q.haystack_session_ids) ? q.haystack_session_ids : [];
  const dates = Array.isArray(q.haystack_dates) ? q.haystack_dates : [];
  const qid = text(q.question_id) || 'question';
  return q.haystack_sessions.map((session, si) => {
    const sessionId = text(ids[si]) || `${qid}-${si}`;
    const parsed = longMemEvalDate(text(dates[si]));
    const date = Number.isFinite(parsed) ? parsed : Date.UTC(2000, 0, 1);
    const turns: ImportedTurn[] = [];
    (Array.isArray(session) ? session : []).forEach((t, i) => {
      const turn = asRecord(t);
      const role = text(turn?.role);
      const content = text(turn?.content).trim();
      if (!content || (role !== 'user' && role !== 'assistant')) return;
      turns.push({ id: `lme:${sessionId}:${i}`, role, content, occurredAt: date + i * 1000 });
    });
    return { id: `lme:${sessionId}`, title: `LongMemEval session ${sessionId}`, createdAt: date, turns };
  });
}
