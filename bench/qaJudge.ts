/**
 * The answer-accuracy benchmark's grading side (bench/qa.ts runs it): gold answers read from the
 * dataset files (same id scheme as bench/datasets.ts; unanswerable questions expect a refusal), the
 * judge prompt and its output schema, and the majority rule over the judge runs.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { DatasetName } from './datasets';

export type Verdict = 'CORRECT' | 'WRONG' | 'ERROR';

// ---------------------------------------------------------------------------------------------
// Gold answers (bench/datasets.ts does not load them; same id scheme)
// ---------------------------------------------------------------------------------------------

/** What a correct reply to an unanswerable question says (LoCoMo category 5, LongMemEval _abs). */
export const NOT_IN_MEMORY_GOLD =
  'The conversations do not contain this information; a correct reply says it is not known or not mentioned.';

async function readJsonItems(path: string): Promise<unknown[]> {
  if ((await stat(path)).isDirectory()) {
    const items: unknown[] = [];
    for (const n of (await readdir(path)).filter((f) => f.endsWith('.json')).sort()) {
      const json = JSON.parse(await readFile(join(path, n), 'utf8')) as unknown;
      items.push(...(Array.isArray(json) ? json : [json]));
    }
    return items;
  }
  const json = JSON.parse(await readFile(path, 'utf8')) as unknown;
  return Array.isArray(json) ? json : [json];
}

/** Question id → gold answer, ids as bench/datasets.ts builds them. */
export async function loadGoldAnswers(path: string, dataset: DatasetName): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const items = await readJsonItems(path);
  const text = (v: unknown): string | null => (typeof v === 'string' || typeof v === 'number' ? String(v) : null);
  if (dataset === 'locomo') {
    items.forEach((raw, ci) => {
      const conv = raw as { sample_id?: string; qa?: { answer?: unknown; category?: unknown }[] };
      const id = conv.sample_id ?? `conv-${ci}`;
      (conv.qa ?? []).forEach((qa, qi) => {
        // Category 5 carries only a distractor (`adversarial_answer`): the right reply is a refusal.
        const gold = String(qa.category) === '5' ? NOT_IN_MEMORY_GOLD : text(qa.answer);
        if (gold !== null) out.set(`${id}#${qi}`, gold);
      });
    });
  } else {
    items.forEach((raw, qi) => {
      const q = raw as { question_id?: string; answer?: unknown };
      const id = q.question_id ?? `q${qi}`;
      const gold = id.endsWith('_abs') ? `${NOT_IN_MEMORY_GOLD} (${text(q.answer) ?? ''})` : text(q.answer);
      if (gold !== null) out.set(id, gold);
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Judge
// ---------------------------------------------------------------------------------------------

const JUDGE_SYSTEM = [
  "You grade an answer to a question about a person's past conversations, against a gold answer.",
  'CORRECT: the candidate gives the same information as the gold answer, even if worded differently, longer, or with extra details that do not contradict it. A date in another format, or a relative date that clearly resolves to the same time, counts as the same.',
  'WRONG: the candidate contradicts the gold answer, misses its key point, gives another date, number or name, or says it does not know when the gold answer has one.',
  'If the gold answer says the information is not in the conversations, the candidate is CORRECT only if it says it does not know or that this was not mentioned.',
  'Reply with one JSON object: {"reasoning": "<one sentence>", "label": "CORRECT" or "WRONG"}.',
].join('\n');

export const JudgeSchema = z.object({
  reasoning: z.string().optional(),
  label: z
    .string()
    .transform((s) => s.trim().toUpperCase())
    .pipe(z.enum(['CORRECT', 'WRONG'])),
});

export function judgeMessages(question: string, gold: string, answer: string) {
  // Citation markers mean nothing to the judge.
  const candidate = answer.replace(/\s*\[\d+(?:\s*[,;–-]\s*\d+)*\]/g, '').trim() || '(no answer)';
  return [
    { role: 'system' as const, content: JUDGE_SYSTEM },
    { role: 'user' as const, content: `QUESTION: ${question}\nGOLD ANSWER: ${gold}\nCANDIDATE ANSWER: ${candidate}` },
  ];
}

/** True when more than half of the runs say CORRECT. */
export function majorityCorrect(verdicts: readonly Verdict[], runs = verdicts.length): boolean {
  return verdicts.filter((v) => v === 'CORRECT').length * 2 > runs;
}
