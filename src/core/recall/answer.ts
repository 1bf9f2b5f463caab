/**
 * Answering from memory (docs/architecture.md, Read path): retrieval over turns, facts and episodes
 * with scene-guided expansion → optional sufficiency check (one JSON call; when the memories are
 * not enough, 2–3 follow-up queries and ONE extra retrieval round, never more — EverMemOS runs a
 * single rewrite round) → a numbered context within a token budget → the streamed answer, which
 * cites memories as [n].
 *
 * Invariants:
 * - Writes nothing: the source is read-only and no store is touched, so a temporary chat can use
 *   this as is. (The caller's Llm may log usage to `llm_calls`; that is the caller's choice.)
 * - The result carries the exact messages sent per call (the "what was sent" view) — prompts and
 *   context only; the API key lives inside the Llm and never reaches this module.
 * - A malformed sufficiency reply (after completeJson's repair and retry) never blocks an answer:
 *   the first round's context is used.
 * - Stop: aborting during the answer stream ends it with `stopped: true` and the text so far;
 *   aborting earlier throws LLM_CANCELLED.
 */
import { z } from 'zod';
import type { Clock, Llm, LlmAbortSignal, LlmMessage, LlmUsage } from '../base/ports';
import type { ErrorCode } from '../base/errors';
import { errorCode, RecollectError } from '../base/errors';
import { untilAborted } from '../base/abortable';
import { ANSWER_BUDGET } from '../base/settings';
import { loadTokenCounter } from '../base/tokens';
import { recallQuery } from './recallQuery';
import type { StageUsage } from '../base/types';
import {
  composeContext,
  originsNeeded,
  recalledFromOf,
  gatherContext,
  mergeParts,
  type AnswerSource,
  type Citation,
  type ComposedContext,
  type ContextParts,
  type GatherLimits,
  type TokenCounter,
} from './answerContext';
import type { MemoryScope } from './memoryScope';

export type AnswerStage = 'sufficiency' | 'answer';

export interface AnswerDeps {
  readonly llm: Llm;
  readonly source: AnswerSource;
  readonly clock: Clock;
  /** Token estimate for the context budget; default gpt-tokenizer's cl100k count (base/tokens.ts). */
  readonly countTokens?: TokenCounter;
}

export interface AnswerOptions {
  /** When the question is asked (default clock.now()): relative dates and foresight validity. */
  readonly now?: number;
  /** Retrieve from this conversation only; default all of memory. */
  readonly conversationId?: string;
  /** Context budget in tokens. Default 2,500. */
  readonly budgetTokens?: number;
  /** Ask the model whether the context suffices, with one extra round if not. Default off. */
  readonly sufficiencyCheck?: boolean;
  /** Recent turns of the current chat, oldest first, placed before the question. */
  readonly history?: readonly LlmMessage[];
  /** Stored turns the request already carries (the question, the history): not recalled as excerpts. */
  readonly excludeTurnIds?: ReadonlySet<string>;
  readonly limits?: Partial<GatherLimits>;
  readonly signal?: LlmAbortSignal;
  /** Default 1,024. */
  readonly maxAnswerTokens?: number;
  readonly temperature?: number;
  /** IANA zone for dates in the context and the prompt; default UTC. */
  readonly timeZone?: string;
  /** Memory is switched off for this conversation: the prompt says so instead of "none found". */
  readonly memoryOff?: boolean;
  /** The project scope of every memory read (memoryScope.ts); default all of memory. */
  readonly scope?: MemoryScope;
  /** The project the conversation is in: its instructions join the system prompt. */
  readonly project?: AnswerProject;
}

/** The project an answer is given in, as the prompt and "What was sent" name it. */
export interface AnswerProject {
  readonly id: string;
  readonly name: string;
  readonly memory: 'shared' | 'project-only';
  readonly instructions: string;
}

/** One request as sent to the endpoint, minus transport details (the key is never here). */
export interface SentRequest {
  readonly stage: AnswerStage;
  readonly messages: readonly LlmMessage[];
  readonly maxTokens: number;
  readonly temperature?: number;
  readonly json: boolean;
}

/**
 * What a stored answer keeps beside its text (the metadata of an assistant turn the engine wrote):
 * "What was sent", citations, token counts and the marks for a cut, stopped or keyword-only answer.
 * Read back from storage it may hold anything (an imported file): readers check before use.
 */
// A type, not an interface: it is stored as a message's Record<string, unknown> metadata.
export type AnswerMetadata = {
  /** The user turn it answers. */
  readonly answerTo: string | null;
  readonly model: string | null;
  /** A model on this device answered (what and where); absent for the endpoint. */
  readonly onDevice?: string;
  readonly stopped: boolean;
  /** The token limit ended it, or Recollect's own size limit. */
  readonly cutOff?: 'length' | 'size';
  /** "Use memory in answers" was off for this answer. */
  readonly memoryOff?: true;
  /** Recall read by keywords only: the embedding model was still loading when it was asked. */
  readonly recall?: 'keywords';
  /** The model's broken characters left out of the stored text. */
  readonly brokenChars?: number;
  /** The project the answer was given in, and so the scope its memories were recalled from. */
  readonly project?: { readonly id: string; readonly name: string; readonly memory: 'shared' | 'project-only' };
  readonly citations: readonly Citation[];
  /** Every item the context sent held, in its numbering, each with where it was recalled from. */
  readonly recalled?: readonly Citation[];
  readonly requests: readonly SentRequest[];
  readonly usage: Readonly<Record<AnswerStage, StageUsage>>;
};

export interface SufficiencyOutcome {
  readonly checked: boolean;
  /** null when not checked or when the reply could not be read. */
  readonly sufficient: boolean | null;
  /** The follow-up queries run in the extra round (empty when none ran). */
  readonly followUps: readonly string[];
  readonly error: ErrorCode | null;
}

export interface AnswerResult {
  readonly question: string;
  readonly answer: string;
  /** True when the caller stopped the stream; `answer` holds the text so far. */
  readonly stopped: boolean;
  readonly finishReason: string | null;
  readonly model: string | null;
  /** The memories the answer cites ([n] markers that name a context item), in first-cited order. */
  readonly citations: readonly Citation[];
  /** Every item the context offered. */
  readonly contextCitations: readonly Citation[];
  /** The exact messages of every call, in order; the answer's is last. */
  readonly requests: readonly SentRequest[];
  readonly usage: Readonly<Record<AnswerStage, StageUsage>>;
  readonly sufficiency: SufficiencyOutcome;
  /** 1, or 2 when follow-up queries were retrieved. */
  readonly rounds: 1 | 2;
  readonly context: { readonly tokens: number; readonly dropped: number; readonly budgetTokens: number; readonly text: string };
  readonly askedAt: number;
}

export type AnswerEvent =
  | { readonly type: 'status'; readonly stage: 'retrieval' | 'sufficiency' | 'follow-up' | 'answer' }
  | { readonly type: 'delta'; readonly text: string }
  | { readonly type: 'done'; readonly result: AnswerResult };

const MAX_FOLLOW_UPS = 3;
const SUFFICIENCY_MAX_TOKENS = 400;

// ---------------------------------------------------------------------------------------------
// Prompts
// ---------------------------------------------------------------------------------------------

const ANSWER_SYSTEM = [
  "You are Recollect, a private assistant with a long-term memory of the user's past conversations.",
  'Answer the question from the numbered memories in the message. Rules:',
  '- Cite every memory you rely on with its number in square brackets, like [2] or [1][4], right after the claim it supports.',
  '- Each memory carries the date it happened. Resolve relative times ("yesterday", "last week") against that date, not against today, and give absolute dates when asked "when".',
  '- When memories disagree, prefer the most recent one and say that it changed.',
  '- If the memories do not contain the answer, say plainly that your memory does not contain it. Do not guess or invent details; general knowledge is fine if you say it is not from memory.',
  '- Be concise and direct.',
].join('\n');

const SUFFICIENCY_SYSTEM = [
  'You check whether retrieved memories are enough to answer a question, before anyone answers it.',
  'Work out what the question needs: the people or things, the attribute asked about (place, time, number, name…) and any time constraint.',
  'Sufficient means the numbered memories alone answer it completely and precisely. Insufficient means a person, an attribute or a date is missing, a relative time cannot be resolved, or memories conflict without resolution.',
  'When insufficient, write 2 or 3 different search queries that would find what is missing: one of 2–5 keywords, one natural question, and one hypothetical statement of the answer.',
  'Reply with one JSON object only, exactly: {"sufficient": true or false, "followUps": ["query", …]} (followUps empty when sufficient).',
].join('\n');

function formatNow(now: number, timeZone: string): string {
  const text = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(now);
  return `${text} (${timeZone})`;
}

/** Said in place of memories when the user turned memory off for the conversation. */
export const MEMORY_OFF_NOTE =
  '(memory is turned off for this conversation: no memories were looked up; answer from the conversation itself)';

function memoryBlock(context: ComposedContext, memoryOff = false): string {
  return memoryOff ? MEMORY_OFF_NOTE : context.text || '(no relevant memories were found)';
}

/**
 * The system prompt: Recollect's rules, then the project's instructions (the person's own words,
 * for every answer in the project) when it has any.
 */
export function answerSystem(project?: Pick<AnswerProject, 'name' | 'instructions'>): string {
  const instructions = project?.instructions.trim();
  return instructions
    ? `${ANSWER_SYSTEM}\n\nInstructions for the project "${project!.name}" (from the user; follow them in every answer here):\n${instructions}`
    : ANSWER_SYSTEM;
}

/** The answer call's messages: instructions, recent chat turns, then date + memories + question. */
export function answerMessages(
  question: string,
  context: ComposedContext,
  options: { now: number; timeZone: string; history?: readonly LlmMessage[]; memoryOff?: boolean; project?: AnswerProject },
): LlmMessage[] {
  return [
    { role: 'system', content: answerSystem(options.project) },
    ...(options.history ?? []),
    {
      role: 'user',
      content: `Current date: ${formatNow(options.now, options.timeZone)}\n\nMemories:\n${memoryBlock(context, options.memoryOff)}\n\nQuestion: ${question}`,
    },
  ];
}

/** The sufficiency call's messages. */
export function sufficiencyMessages(question: string, context: ComposedContext, options: { now: number; timeZone: string }): LlmMessage[] {
  return [
    { role: 'system', content: SUFFICIENCY_SYSTEM },
    {
      role: 'user',
      content: `Current date: ${formatNow(options.now, options.timeZone)}\n\nQuestion: ${question}\n\nRetrieved memories:\n${memoryBlock(context)}`,
    },
  ];
}

const boolish = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);
export const SufficiencySchema = z.object({
  sufficient: boolish,
  followUps: z.array(z.string()).default([]),
});

// ---------------------------------------------------------------------------------------------
// Citations
// ---------------------------------------------------------------------------------------------

/**
 * The context items an answer cites, in first-cited order. Understands [3], [1, 4], [1][2] and
 * ranges [2-4]; numbers that name no item are ignored.
 */
export function citedItems(answer: string, citations: readonly Citation[]): Citation[] {
  const byId = new Map(citations.map((c) => [c.id, c]));
  const out: Citation[] = [];
  const seen = new Set<number>();
  const add = (n: number) => {
    const c = byId.get(n);
    if (c && !seen.has(n)) {
      seen.add(n);
      out.push(c);
    }
  };
  for (const m of answer.matchAll(/\[(\d+(?:\s*(?:[,;]|[-–])\s*\d+)*)\]/g)) {
    for (const part of m[1]!.split(/\s*[,;]\s*/)) {
      const range = /^(\d+)\s*[-–]\s*(\d+)$/.exec(part);
      if (range) {
        const [a, b] = [Number(range[1]), Number(range[2])];
        if (b >= a && b - a <= 50) for (let n = a; n <= b; n++) add(n);
      } else add(Number(part));
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The pipeline
// ---------------------------------------------------------------------------------------------

const ZERO: StageUsage = { calls: 0, promptTokens: 0, completionTokens: 0, estimated: false };

function addUsage(a: StageUsage, u: LlmUsage, calls = 1): StageUsage {
  return {
    calls: a.calls + calls,
    promptTokens: a.promptTokens + u.promptTokens,
    completionTokens: a.completionTokens + u.completionTokens,
    estimated: a.estimated || u.estimated,
  };
}

/**
 * The longest answer kept (about 25,000 words, far beyond any useful reply). A runaway model or a
 * broken server once streamed 30 MB, which froze the tab; the answer is cut here, stored with
 * `finishReason` ANSWER_SIZE_LIMIT, and shown as cut.
 */
export const MAX_ANSWER_CHARS = 100_000;
export const ANSWER_SIZE_LIMIT = 'size_limit';

const stoppedError = () => new RecollectError('LLM_CANCELLED', 'The answer was stopped.');

function throwIfAborted(signal: LlmAbortSignal | undefined): void {
  if (signal?.aborted) throw stoppedError();
}

function cleanFollowUps(raw: readonly string[], question: string): string[] {
  const q = question.trim().toLowerCase();
  const out: string[] = [];
  for (const s of raw) {
    const t = s.replace(/\s+/g, ' ').trim().slice(0, 300);
    if (t && t.toLowerCase() !== q && !out.some((o) => o.toLowerCase() === t.toLowerCase())) out.push(t);
    if (out.length >= MAX_FOLLOW_UPS) break;
  }
  return out;
}

/**
 * Answers `question` from memory, streaming: status events, then text deltas, then exactly one
 * 'done' with the result. Errors of the answer call (endpoint down, unauthorized…) are thrown as
 * the Llm throws them (LLM_* codes).
 */
export async function* answerQuestion(
  deps: AnswerDeps,
  question: string,
  options: AnswerOptions = {},
): AsyncGenerator<AnswerEvent, AnswerResult, undefined> {
  const now = options.now ?? deps.clock.now();
  const timeZone = options.timeZone ?? 'UTC';
  const budgetTokens = Math.max(0, options.budgetTokens ?? ANSWER_BUDGET.default);
  const count = deps.countTokens ?? (await loadTokenCounter());
  const signal = options.signal;
  // Stop/Esc ends recall itself, not only the stream after it: the wait for the question's
  // embedding (a model-worker round trip) and the reads give way to the abort at once.
  const gather = (query: string): Promise<ContextParts> =>
    untilAborted(
      gatherContext(deps.source, query, {
        now,
        ...(options.conversationId !== undefined ? { conversationId: options.conversationId } : {}),
        ...(options.limits ? { limits: options.limits } : {}),
        ...(options.scope ? { scope: options.scope } : {}),
        ...(options.excludeTurnIds ? { excludeTurnIds: options.excludeTurnIds } : {}),
      }),
      signal,
      stoppedError,
    );
  // Excerpts are cut around the words recall searched with (recallQuery.ts), not every word of a long paste.
  // Where each recalled item comes from (this project, shared memory, the profile) is decided here,
  // as the request is built, and stored with the answer: a chat moved later does not rewrite it.
  const compose = async (parts: ContextParts): Promise<ComposedContext> => {
    const needed = originsNeeded(parts);
    const origins = await deps.source.origins(needed.conversationIds, needed.memcellIds);
    return composeContext(parts, {
      budgetTokens,
      now,
      countTokens: count,
      timeZone,
      query: recallQuery(question),
      recalledFrom: recalledFromOf(origins, options.project?.id ?? null),
    });
  };

  throwIfAborted(signal);
  yield { type: 'status', stage: 'retrieval' };
  let parts = await gather(question);
  let context = await compose(parts);
  throwIfAborted(signal);

  const requests: SentRequest[] = [];
  const usage: Record<AnswerStage, StageUsage> = { sufficiency: ZERO, answer: ZERO };
  let sufficiency: SufficiencyOutcome = { checked: false, sufficient: null, followUps: [], error: null };
  let rounds: 1 | 2 = 1;

  if (options.sufficiencyCheck) {
    yield { type: 'status', stage: 'sufficiency' };
    const messages = sufficiencyMessages(question, context, { now, timeZone });
    requests.push({ stage: 'sufficiency', messages, maxTokens: SUFFICIENCY_MAX_TOKENS, temperature: 0, json: true });
    try {
      const verdict = await deps.llm.completeJson({
        stage: 'sufficiency',
        messages,
        schema: SufficiencySchema,
        maxTokens: SUFFICIENCY_MAX_TOKENS,
        temperature: 0,
        ...(signal ? { signal } : {}),
      });
      usage.sufficiency = addUsage(usage.sufficiency, verdict.usage, verdict.attempts);
      const followUps = verdict.value.sufficient ? [] : cleanFollowUps(verdict.value.followUps, question);
      sufficiency = { checked: true, sufficient: verdict.value.sufficient, followUps, error: null };
    } catch (err) {
      const code = errorCode(err);
      if (code !== 'LLM_BAD_OUTPUT') throw err;
      // Unreadable even after repair and one retry: answer from round one. The Llm's call log has
      // the exact counts; here both attempts are estimated from the prompt and the raw reply.
      const raw = (err as { raw?: unknown }).raw;
      const prompt = messages.reduce((n, m) => n + count(m.content), 0);
      usage.sufficiency = addUsage(
        usage.sufficiency,
        { promptTokens: 2 * prompt, completionTokens: typeof raw === 'string' ? 2 * count(raw) : 0, estimated: true },
        2,
      );
      sufficiency = { checked: true, sufficient: null, followUps: [], error: 'LLM_BAD_OUTPUT' };
    }
    throwIfAborted(signal);
    // One extra round at most, whatever the model would say about the second context.
    if (sufficiency.followUps.length > 0) {
      yield { type: 'status', stage: 'follow-up' };
      const extra = await Promise.all(sufficiency.followUps.map((q) => gather(q)));
      parts = mergeParts(parts, extra);
      context = await compose(parts);
      rounds = 2;
      throwIfAborted(signal);
    }
  }

  yield { type: 'status', stage: 'answer' };
  const messages = answerMessages(question, context, {
    now,
    timeZone,
    ...(options.history ? { history: options.history } : {}),
    ...(options.memoryOff ? { memoryOff: true } : {}),
    ...(options.project ? { project: options.project } : {}),
  });
  const maxTokens = options.maxAnswerTokens ?? 1024;
  requests.push({
    stage: 'answer',
    messages,
    maxTokens,
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    json: false,
  });
  let text = '';
  let stopped = false;
  let finishReason: string | null = null;
  let model: string | null = null;
  let cutAtSize = false;
  try {
    for await (const event of deps.llm.stream({
      stage: 'answer',
      messages,
      maxTokens,
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(signal ? { signal } : {}),
    })) {
      if (event.type === 'delta') {
        const piece = event.text.slice(0, MAX_ANSWER_CHARS - text.length);
        text += piece;
        if (piece) yield { type: 'delta', text: piece };
        if (text.length >= MAX_ANSWER_CHARS) {
          // Leaving the loop closes the stream: the endpoint stops sending, the ledger says 'cancelled'.
          cutAtSize = true;
          break;
        }
      } else {
        text = (event.result.text || text).slice(0, MAX_ANSWER_CHARS);
        finishReason = event.result.finishReason;
        model = event.result.model;
        usage.answer = addUsage(usage.answer, event.result.usage);
      }
    }
  } catch (err) {
    if (errorCode(err) !== 'LLM_CANCELLED' && !signal?.aborted) throw err;
    stopped = true;
    const prompt = messages.reduce((n, m) => n + count(m.content), 0);
    usage.answer = addUsage(usage.answer, { promptTokens: prompt, completionTokens: count(text), estimated: true });
  }

  if (cutAtSize) {
    finishReason = ANSWER_SIZE_LIMIT;
    const prompt = messages.reduce((n, m) => n + count(m.content), 0);
    usage.answer = addUsage(usage.answer, { promptTokens: prompt, completionTokens: count(text), estimated: true });
  }
  const result: AnswerResult = {
    question,
    answer: text,
    stopped,
    finishReason,
    model,
    citations: citedItems(text, context.citations),
    contextCitations: context.citations,
    requests,
    usage: { ...usage },
    sufficiency,
    rounds,
    context: { tokens: context.tokens, dropped: context.dropped, budgetTokens, text: context.text },
    askedAt: now,
  };
  yield { type: 'done', result };
  return result;
}

/** Runs answerQuestion to the end, passing deltas to `onDelta` (benchmarks, tests). */
export async function collectAnswer(events: AsyncIterable<AnswerEvent>, onDelta?: (text: string) => void): Promise<AnswerResult> {
  let result: AnswerResult | null = null;
  for await (const e of events) {
    if (e.type === 'delta') onDelta?.(e.text);
    else if (e.type === 'done') result = e.result;
  }
  if (!result) throw new RecollectError('INTERNAL', 'The answer ended without a result.');
  return result;
}
