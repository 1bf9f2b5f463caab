/**
 * Answering a chat turn: reads the question and the recent history, runs the answer
 * pipeline (recall/answer.ts) over memory — or over nothing in a temporary chat — streams its
 * events, stores the answer with its citations, the exact request and token usage, and lets the UI
 * stop an answer. Nothing is stored for a temporary chat. A conversation with "use memory in
 * answers" off is answered from its own recent turns only, and its stored answer says so
 * (`metadata.memoryOff`, shown in "What was sent").
 */
import { RecollectError } from '../base/errors';
import { cleanModelPiece, cleanModelText } from '../base/modelText';
import type { Clock, Llm, LlmAbortSignal, LlmMessage } from '../base/ports';
import type { AppendResult, MessageWindow, MessageWindowRequest, NewTurn } from '../base/types';
import { ANSWER_SIZE_LIMIT, answerQuestion, type AnswerMetadata, type AnswerResult } from '../recall/answer';
import { gatherContext, type AnswerSource, type ContextParts } from '../recall/answerContext';
import { EMPTY_ANSWER_SOURCE } from '../recall/answerSource';
import type { AnswerSettings, AskEvent, AskRequest, AskResult } from '../protocol';
import type { AnswerScope } from '../recall/memoryScope';

/** How many earlier turns of the chat go with the question. */
const HISTORY_TURNS = 8;

export interface AnswerServiceDeps {
  readonly llm: () => Llm | null;
  /** Memory as answers read it; null when the engine was built without one. */
  readonly source: AnswerSource | null;
  /** A window of the conversation's turns (the answer reads the question and the turns just before it, never the whole conversation). */
  readonly messageWindow: (conversationId: string, request: MessageWindowRequest) => Promise<MessageWindow>;
  readonly appendTurn: (turn: NewTurn) => Promise<AppendResult>;
  readonly settings: () => Promise<AnswerSettings>;
  /** An answer used these turns (visits, heat, synthesis of raw episodes per the policy). */
  readonly retrieved: (messageIds: readonly string[]) => Promise<void>;
  readonly clock: Clock;
  /** The user's time zone: the prompt's dates are written in it. */
  readonly timeZone?: () => string;
  /** An answer was stored in this conversation (titles by the endpoint after the first one). */
  readonly answered?: (conversationId: string) => Promise<unknown>;
  /** The conversation's "use memory in answers" switch (default: on). */
  readonly usesMemory?: (conversationId: string) => Promise<boolean>;
  /**
   * False while the embedding model and the vector index are still loading after open: recall
   * then reads by keywords only (MemoryEngine's recall embedder), and the answer says so.
   */
  readonly vectorsReady?: () => boolean;
  /** The conversation's project: the scope its answers recall from and the instructions they are sent with. */
  readonly answerScope?: (conversationId: string) => Promise<AnswerScope>;
}

export class AnswerService {
  readonly #d: AnswerServiceDeps;
  readonly #running = new Map<string, { abort(): void; signal: LlmAbortSignal }>();
  readonly #pending = new Set<Promise<void>>();

  constructor(deps: AnswerServiceDeps) {
    this.#d = deps;
  }

  /** The question, the history sent before it, and the stored turns the request carries (both). */
  async #question(request: AskRequest): Promise<{ question: string; history: LlmMessage[]; carried: ReadonlySet<string> }> {
    if (request.temporary === true) {
      const question = (request.question ?? '').trim();
      if (!question) throw new RecollectError('INVALID_INPUT', 'Ask something first.');
      return {
        question,
        history: (request.history ?? []).slice(-HISTORY_TURNS).map((t) => ({ role: t.role, content: t.content })),
        carried: new Set(),
      };
    }
    const { messages: turns } = await this.#d.messageWindow(request.conversationId, {
      around: request.userMessageId,
      lead: HISTORY_TURNS,
      limit: HISTORY_TURNS + 1,
    });
    const index = turns.findIndex((t) => t.id === request.userMessageId);
    if (index < 0) throw new RecollectError('NOT_FOUND', 'The message to answer is no longer stored.');
    const recent = turns.slice(Math.max(0, index - HISTORY_TURNS), index).filter((t) => t.role !== 'system');
    const history = recent.map((t): LlmMessage => ({ role: t.role === 'assistant' ? 'assistant' : 'user', content: t.content }));
    return { question: turns[index]!.content, history, carried: new Set([...recent.map((t) => t.id), turns[index]!.id]) };
  }

  /**
   * Answers from memory, streaming events to `onEvent`. A memory chat answers the stored user turn
   * and stores the answer; a temporary chat stores nothing and consults no memory.
   */
  async ask(request: AskRequest, onEvent: (event: AskEvent) => void): Promise<AskResult> {
    const llm = this.#d.llm();
    if (!llm)
      throw new RecollectError(
        'LLM_NOT_CONFIGURED',
        'No LLM endpoint is configured. Open Settings to add one; your messages are still stored and searchable.',
      );
    const temporary = request.temporary === true;
    const { question, history, carried } = await this.#question(request);
    const memoryOff = !temporary && this.#d.usesMemory !== undefined && !(await this.#d.usesMemory(request.conversationId));
    const source = temporary || memoryOff || !this.#d.source ? EMPTY_ANSWER_SOURCE : this.#d.source;
    // Read per answer, never cached: a chat moved a moment ago answers from its new project's memory.
    const { scope, project } = !temporary && this.#d.answerScope ? await this.#d.answerScope(request.conversationId) : {};
    const defaults = await this.#d.settings();
    // Not ready when asked and still not ready once answered: every recall of this answer read by
    // keywords (readiness only goes from false to true during a warm-up). Otherwise say nothing.
    const keywordsAtStart = source !== EMPTY_ANSWER_SOURCE && this.#d.vectorsReady?.() === false;
    const Controller = (globalThis as unknown as { AbortController: new () => { abort(): void; signal: LlmAbortSignal } }).AbortController;
    const controller = new Controller();
    this.#running.set(request.answerId, controller);
    let result: AnswerResult;
    try {
      const run = answerQuestion({ llm, source, clock: this.#d.clock }, question, {
        history,
        excludeTurnIds: carried,
        signal: controller.signal,
        // With memory off there is nothing to check: no extra call.
        sufficiencyCheck: !memoryOff && (request.sufficiencyCheck ?? defaults.sufficiencyCheck),
        ...(memoryOff ? { memoryOff: true } : {}),
        ...(scope ? { scope } : {}),
        ...(project ? { project } : {}),
        budgetTokens: request.budgetTokens ?? defaults.budgetTokens,
        ...(this.#d.timeZone ? { timeZone: this.#d.timeZone() } : {}),
      });
      for (;;) {
        const step = await run.next();
        if (step.done) {
          result = step.value;
          break;
        }
        const e = step.value;
        if (e.type === 'delta') {
          // Broken characters (U+FFFD, control bytes) are not shown, as they are not stored.
          const piece = cleanModelPiece(e.text);
          if (piece) onEvent({ type: 'delta', text: piece });
        } else if (e.type === 'status') onEvent({ type: 'status', stage: e.stage });
      }
    } finally {
      this.#running.delete(request.answerId);
    }
    const keywordsOnly = keywordsAtStart && this.#d.vectorsReady?.() === false;
    // The model's broken characters are dropped before storing (a message full of them would be
    // refused as binary and the answer lost); how many is kept with the answer.
    const cleaned = cleanModelText(result.answer);
    result = { ...result, answer: cleaned.text };
    if (temporary || (!result.answer.trim() && result.stopped)) return { answer: result, messageId: null };
    if (!result.answer.trim()) {
      // Storing "(no answer)" would look like the model's reply; say what happened instead.
      const what = cleaned.dropped > 0 ? 'an answer of broken characters only' : 'an empty answer';
      throw new RecollectError(
        'LLM_BAD_OUTPUT',
        `The model ${llm.onDevice ? 'on this device' : 'at the endpoint'} sent ${what}${result.finishReason === 'length' ? ' (it hit its token limit before writing anything)' : ''}. Try again, or check the model in Settings. Your message is stored.`,
      );
    }
    const metadata: AnswerMetadata = {
      answerTo: request.userMessageId ?? null,
      model: result.model,
      // Shown in "What was sent": a model on this device got these requests, nothing left it.
      ...(llm.onDevice ? { onDevice: llm.onDevice } : {}),
      stopped: result.stopped,
      // The token limit ended it, or Recollect's own size limit (both shown as cut off).
      ...(result.finishReason === 'length' ? { cutOff: 'length' } : result.finishReason === ANSWER_SIZE_LIMIT ? { cutOff: 'size' } : {}),
      ...(memoryOff ? { memoryOff: true } : {}),
      ...(keywordsOnly ? { recall: 'keywords' } : {}),
      ...(cleaned.dropped > 0 ? { brokenChars: cleaned.dropped } : {}),
      ...(project ? { project: { id: project.id, name: project.name, memory: project.memory } } : {}),
      citations: result.citations,
      recalled: result.contextCitations,
      requests: result.requests,
      usage: result.usage,
    };
    const stored = await this.#d.appendTurn({
      id: request.answerId,
      conversationId: request.conversationId,
      role: 'assistant',
      speaker: 'Assistant',
      content: result.answer.trim(),
      metadata,
    });
    // After the answer is stored, without holding it up: a title, and the visits of what it used.
    // Neither may fail the answer; a failing title call keeps the first message's title.
    if (this.#d.answered) this.#after(this.#d.answered(request.conversationId));
    const used = result.contextCitations.filter((c) => c.kind === 'turn').map((c) => c.ref);
    if (used.length > 0) this.#after(this.#d.retrieved(used));
    return { answer: result, messageId: stored.message.id };
  }

  /**
   * What an answer to `question` reads from memory: the retrieval round `ask` runs first (turns,
   * facts, episodes and their themes, profile, plans ahead), over the same source, without calling
   * the endpoint and without writing. `now` is the question's time (default: the clock). The scale
   * benchmark times it.
   */
  context(question: string, options: { readonly now?: number } = {}): Promise<ContextParts> {
    return gatherContext(this.#d.source ?? EMPTY_ANSWER_SOURCE, question, { now: options.now ?? this.#d.clock.now() });
  }

  /** Stops a streaming answer; what was said so far is kept. */
  async stop(answerId: string): Promise<void> {
    this.#running.get(answerId)?.abort();
  }

  #after(work: Promise<unknown>): void {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    this.#pending.add(settled);
    void settled.then(() => this.#pending.delete(settled));
  }

  /** Resolves when the work that follows stored answers (titles, visits) has settled. */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }
}
