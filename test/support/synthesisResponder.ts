/**
 * A deterministic responder for the mock LLM server that answers the three synthesis stages
 * (src/core/synthesisPrompts.ts) with schema-valid JSON derived mechanically from the prompt:
 * one fact per user turn not already among the known facts, a naive narrative from the first
 * sentences, a foresight item per turn that talks about the future, a scene summary from first
 * sentences, one profile item per scene. It exists to exercise the pipeline and to measure
 * construction cost (bench/); it says nothing about quality. Other prompts go to `fallback`.
 *
 * Stages are recognised by the prompt's section headings (TURNS:, NEW EPISODES:,
 * CURRENT PROFILE:) in the first user message, so the structured-output retry (which appends
 * messages) gets the same answer.
 */
import { defaultResponder, type MockChatRequest, type MockResponder } from '../llm/mockLlmServer';

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const DAY = 86_400_000;
const FUTURE =
  /\b(tomorrow|next (week|month|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|going to|planning|plan to|will)\b/i;

function firstUserMessage(req: MockChatRequest): string {
  return req.messages.find((m) => m.role === 'user')?.content ?? '';
}

/** Lines after `heading` up to the next blank line. */
function section(text: string, heading: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.trim() === heading);
  if (start < 0) return [];
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '') break;
    out.push(line);
  }
  return out.length === 1 && out[0] === 'none' ? [] : out;
}

function words(text: string, n: number): string {
  const all = text.split(/\s+/).filter(Boolean);
  return all.slice(0, n).join(' ') + (all.length > n ? '…' : '');
}

function firstSentence(text: string, maxWords = 25): string {
  const m = /^(.+?[.!?])(\s|$)/.exec(text.trim());
  return words(m?.[1] ?? text.trim(), maxWords);
}

const norm = (t: string): string =>
  t
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/** "Monday 8 May 2023, 14:05" → epoch ms of that day (UTC), or null. */
function dayOf(text: string): number | null {
  const m = /(\d{1,2}) ([A-Za-z]+) (\d{4})/.exec(text);
  if (!m) return null;
  const month = MONTHS.indexOf(m[2]!.toLowerCase());
  return month < 0 ? null : Date.UTC(Number(m[3]), month, Number(m[1]));
}

function iso(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function memcell(prompt: string): string {
  const known = section(prompt, 'KNOWN FACTS:').map((l) => {
    const [label = '', speaker = '', ...rest] = l.split(' | ');
    return { label, speaker, content: norm(rest.join(' | ')) };
  });
  const turns = section(prompt, 'TURNS:').flatMap((l) => {
    const m = /^\[(\d+)\] (.+?) \| (.+?) \((user|assistant|system)\): (.*)$/.exec(l);
    return m ? [{ n: Number(m[1]), when: m[2]!, speaker: m[3]!, role: m[4]!, content: m[5]! }] : [];
  });
  const facts = [];
  const foresight = [];
  for (const t of turns) {
    if (t.role !== 'user') continue;
    const said = norm(t.content);
    if (said.length < 3) continue;
    // Predict-calibrate, mechanically: a turn already covered by a known fact adds nothing.
    if (known.some((k) => k.speaker === t.speaker && k.content.includes(said))) continue;
    facts.push({
      text: `${t.speaker} said: ${words(t.content, 30)}`,
      speaker: t.speaker,
      kind: 'new',
      replaces: null,
      turns: [t.n],
      validFrom: null,
      validTo: null,
    });
    const day = dayOf(t.when);
    if (day !== null && FUTURE.test(t.content) && foresight.length < 2) {
      foresight.push({ text: `${t.speaker}: ${firstSentence(t.content, 20)}`, start: iso(day), end: iso(day + 7 * DAY), evidence: [t.n] });
    }
  }
  const first = turns[0];
  const day = first ? dayOf(first.when) : null;
  const said = turns
    .filter((t) => t.role === 'user')
    .slice(0, 3)
    .map((t) => `${t.speaker} said: ${firstSentence(t.content)}`);
  const narrative = `On ${day === null ? 'an unknown date' : iso(day)}, ${said.join(' ') || 'nothing of note was said.'}`;
  return JSON.stringify({ title: first ? words(first.content, 8) : 'Conversation', narrative, facts, foresight });
}

function scene(prompt: string): string {
  const titleLine = prompt.split('\n').find((l) => l.startsWith('CURRENT TITLE: ')) ?? '';
  const currentTitle = titleLine.slice('CURRENT TITLE: '.length).trim();
  const [summaryLine = 'none'] = section(prompt, 'CURRENT SUMMARY:').length ? section(prompt, 'CURRENT SUMMARY:') : ['none'];
  const episodes = section(prompt, 'NEW EPISODES:').flatMap((l) => {
    const m = /^E\d+ \| (.+?) \| (.+?): (.*)$/.exec(l);
    return m ? [{ title: m[2]!, narrative: m[3]! }] : [];
  });
  const parts = [summaryLine === 'none' ? '' : firstSentence(summaryLine, 40), ...episodes.map((e) => firstSentence(e.narrative))].filter(
    Boolean,
  );
  const title = currentTitle && currentTitle !== 'none' ? currentTitle : words(episodes[0]?.title ?? 'Theme', 8);
  return JSON.stringify({ title, summary: words(parts.join(' '), 80) || 'Nothing notable.' });
}

function profile(prompt: string): string {
  const items = section(prompt, 'CURRENT PROFILE:').flatMap((l) => {
    const m = /^(P\d+) \| (explicit|implicit) \| (.+?) = (.+?) \| confidence/.exec(l);
    return m ? [{ label: m[1]!, key: m[3]!, value: m[4]! }] : [];
  });
  const operations = [];
  for (const l of section(prompt, 'SCENES:')) {
    const m = /^(S\d+) \(episodes ([^)]*)\) \| (.+?): (.*)$/.exec(l);
    if (!m) continue;
    const key = words(norm(m[3]!), 4).replace(/…$/, '') || 'topic';
    const value = firstSentence(m[4]!, 20);
    const evidence = m[2] === 'none' ? [m[1]!] : m[2]!.split(', ');
    const existing = items.find((i) => i.key === key);
    if (existing && norm(existing.value) === norm(value)) continue;
    operations.push(
      existing
        ? { op: 'update', id: existing.label, kind: 'explicit', key, value, confidence: 0.7, evidence, reason: 'newer scene summary' }
        : { op: 'add', id: null, kind: 'explicit', key, value, confidence: 0.7, evidence, reason: 'from scene summary' },
    );
  }
  return JSON.stringify({ operations });
}

export function createSynthesisResponder(fallback: MockResponder = defaultResponder): MockResponder {
  return (req) => {
    const prompt = firstUserMessage(req);
    if (prompt.includes('\nTURNS:\n') && prompt.includes('KNOWN FACTS:')) return memcell(prompt);
    if (prompt.includes('\nNEW EPISODES:\n')) return scene(prompt);
    if (prompt.includes('CURRENT PROFILE:\n')) return profile(prompt);
    return fallback(req);
  };
}

export const synthesisResponder: MockResponder = createSynthesisResponder();
