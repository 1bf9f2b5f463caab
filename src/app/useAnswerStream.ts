/**
 * The answer-streaming state machine of a chat, so views only render it:
 *   idle → streaming(stage, text) → idle            (the answer is stored; the message list refetches)
 *                                 → failed(error)   → streaming again on retry, or idle on dismiss
 * Escape (or stop()) asks the engine to stop the current answer; whatever arrived is kept by the engine.
 * An Escape that closes a dialog, or that a handler took, does not (keyboard.ts escapeStopsAnswer).
 * Used by the memory chat (answers a stored user turn) and the temporary chat (answers a question
 * with its in-memory history; nothing is stored).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import * as Comlink from 'comlink';
import { useEngineClient } from './hooks';
import { escapeStopsAnswer } from './keyboard';
import type { AskEvent, AskRequest, AskResult } from '../core/protocol';

export interface AnswerStream {
  readonly answerId: string;
  readonly text: string;
  readonly stage: string;
  readonly error: string | null;
  /** What to re-ask on "Try again". */
  readonly request: Omit<AskRequest, 'answerId'>;
}

const DRAW_EVERY_MS = 80;

export const STAGE_LABEL: Record<string, string> = {
  retrieval: 'Recalling…',
  sufficiency: 'Checking what memory holds…',
  'follow-up': 'Looking further…',
  answer: 'Answering…',
};

export interface AnswerStreamControls {
  readonly stream: AnswerStream | null;
  /** True while an answer is coming (not after it failed). */
  readonly busy: boolean;
  /** Starts an answer; resolves with the engine's result, or null when it failed (the error stays in `stream`). */
  ask(request: Omit<AskRequest, 'answerId'>): Promise<AskResult | null>;
  retry(): Promise<AskResult | null>;
  stop(): void;
  dismiss(): void;
}

export function useAnswerStream(): AnswerStreamControls {
  const { engine } = useEngineClient();
  const [stream, setStream] = useState<AnswerStream | null>(null);
  const current = useRef<AnswerStream | null>(null);
  current.current = stream;
  const busy = stream !== null && stream.error === null;

  const ask = useCallback(
    async (request: Omit<AskRequest, 'answerId'>): Promise<AskResult | null> => {
      const answerId = crypto.randomUUID();
      const mine = (s: AnswerStream | null): s is AnswerStream => s !== null && s.answerId === answerId;
      setStream({ answerId, text: '', stage: 'retrieval', error: null, request });
      // Deltas are drawn at most every DRAW_EVERY_MS: one render (and Markdown parse of the whole
      // text) per delta made a fast, long stream freeze the tab.
      let pending = '';
      let timer: ReturnType<typeof setTimeout> | null = null;
      const flush = () => {
        timer = null;
        const text = pending;
        pending = '';
        if (text) setStream((s) => (mine(s) ? { ...s, text: s.text + text, stage: 'answer' } : s));
      };
      const onEvent = (e: AskEvent) => {
        if (e.type !== 'delta') {
          setStream((s) => (mine(s) ? { ...s, stage: e.stage } : s));
          return;
        }
        pending += e.text;
        timer ??= setTimeout(flush, DRAW_EVERY_MS);
      };
      const settle = () => {
        if (timer) clearTimeout(timer);
        flush();
      };
      try {
        const result = await engine.answers.ask({ ...request, answerId }, Comlink.proxy(onEvent) as unknown as (e: AskEvent) => void);
        settle();
        setStream((s) => (mine(s) ? null : s));
        return result;
      } catch (err) {
        settle();
        const message = err instanceof Error ? err.message : String(err);
        setStream((s) => (mine(s) ? { ...s, error: message } : s));
        return null;
      }
    },
    [engine],
  );

  const stop = useCallback(() => {
    const s = current.current;
    if (s && !s.error) void engine.answers.stop(s.answerId);
  }, [engine]);

  const retry = useCallback(async () => {
    const s = current.current;
    return s ? ask(s.request) : null;
  }, [ask]);

  const dismiss = useCallback(() => setStream(null), []);

  useEffect(() => {
    if (!busy) return;
    const onKey = (e: KeyboardEvent) => {
      if (escapeStopsAnswer(e)) stop();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [busy, stop]);

  return { stream, busy, ask, retry, stop, dismiss };
}
