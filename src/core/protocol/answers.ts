/**
 * Answering and recall: an answer streamed from memory, stopping it, the ranked turns a question
 * recalls, and search by meaning.
 * One group of EngineApi (src/core/protocol.ts): callers write `engine.answers.…`.
 */
import type { SearchOptions } from '../base/store';
import type { SearchHit } from '../base/types';
import type { RetrievalResult } from '../recall/Retriever';
import type { AnswerResult } from '../recall/answer';

export interface AskRequest {
  readonly conversationId: string;
  /** The stored user turn to answer (conversations.send or appendTurn first, so the turn is kept whatever happens). */
  readonly userMessageId?: string;
  /** Temporary chat: the question text; nothing is stored and memory is not consulted. */
  readonly question?: string;
  readonly temporary?: boolean;
  /** Temporary chat: the conversation so far (memory chats read it from the database). */
  readonly history?: readonly { readonly role: 'user' | 'assistant'; readonly content: string }[];
  /** Lets the UI stop this answer with answers.stop(answerId). */
  readonly answerId: string;
  readonly sufficiencyCheck?: boolean;
  readonly budgetTokens?: number;
}

export type AskEvent = { readonly type: 'status'; readonly stage: string } | { readonly type: 'delta'; readonly text: string };

export interface AskResult {
  readonly answer: AnswerResult;
  /** The stored assistant turn (null in a temporary chat, or when nothing was said before a stop). */
  readonly messageId: string | null;
}

export interface RecallOptions {
  readonly limit?: number;
  readonly conversationId?: string;
  /** When the question is asked (default now); relative dates resolve against it. */
  readonly now?: number;
}

export interface AnswersApi {
  vectorSearch(query: string, options?: SearchOptions): Promise<SearchHit[]>;
  ask(request: AskRequest, onEvent: (event: AskEvent) => void): Promise<AskResult>;
  stop(answerId: string): Promise<void>;
  recall(query: string, options?: RecallOptions): Promise<RetrievalResult>;
}
