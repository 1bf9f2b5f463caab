/**
 * The optional LLM boundary check for segmentation (off by default: on LoCoMo, rule-based
 * segments cost about one point of answer accuracy against LLM segmentation, for zero tokens).
 * When enabled, each turn that the rules would add to a running episode of at least
 * `minTurns` turns is shown to the model with the episode's last turns: "does this start a new
 * topic?". Any failure (no endpoint, bad JSON, rate limit) falls back to the rules' answer.
 */
import { z } from 'zod';
import type { Llm } from '../base/ports';

export type BoundaryJudge = (
  recent: readonly { speaker: string; text: string }[],
  next: { speaker: string; text: string },
) => Promise<boolean>;

const schema = z.object({ newTopic: z.boolean() });

const SYSTEM = [
  'You split a conversation into episodes. An episode is a run of messages about one event or topic.',
  'Given the latest messages of the current episode and the next message, decide whether the next message starts a NEW episode (a clearly different topic or event).',
  'A reply, a follow-up question or a detail about the same topic is NOT a new episode.',
  'Answer with JSON only: {"newTopic": true} or {"newTopic": false}.',
].join('\n');

const clip = (t: string) => (t.length > 400 ? `${t.slice(0, 400)}…` : t);

export function llmBoundaryJudge(llm: () => Llm | null, options: { recentTurns?: number } = {}): BoundaryJudge {
  const keep = options.recentTurns ?? 6;
  return async (recent, next) => {
    const client = llm();
    if (!client) return false;
    const lines = recent
      .slice(-keep)
      .map((t) => `${t.speaker}: ${clip(t.text)}`)
      .join('\n');
    try {
      const { value } = await client.completeJson({
        stage: 'boundary',
        schema,
        maxTokens: 20,
        messages: [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: `CURRENT EPISODE (latest messages):\n${lines}\n\nNEXT MESSAGE:\n${next.speaker}: ${clip(next.text)}` },
        ],
      });
      return value.newTopic;
    } catch {
      return false; // the rules already said "same episode"; keep it
    }
  };
}
