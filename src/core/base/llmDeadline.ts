/**
 * Every LLM call carries an abort signal and a deadline: answers, synthesis, titles and checks
 * alike go through `withDeadline` (LlmChoice wraps whichever model is in use). A call that makes
 * no progress — no reply, no streamed piece — for `idleMs` is aborted (its own signal, so the
 * endpoint's request or the device's generation really stops) and fails with LLM_TIMEOUT, which
 * synthesis treats as "try again later" and an answer shows with Try again. The caller's signal,
 * when there is one, still stops it (LLM_CANCELLED as before). The call is raced against the
 * deadline too, so even an implementation that ignores the signal cannot hang its caller (a job
 * queue once stalled for the session on a synthesis call to a dead worker).
 *
 * The deadline is on idleness, not on total time: a slow phone may stream a long answer for
 * minutes, but it streams.
 */
import { RecollectError } from './errors';
import type { Llm, LlmAbortSignal, LlmJsonRequest, LlmJsonResult, LlmRequest, LlmResult, LlmStreamEvent } from './ports';
import type { Timer } from './jobs';

/** Without a sign of life for this long, an endpoint call is given up (its own retries included). */
export const ENDPOINT_IDLE_MS = 5 * 60_000;
/** A model on this device answers a whole JSON reply without streaming: a slow phone takes minutes. */
export const DEVICE_IDLE_MS = 10 * 60_000;

/** An abort signal core can make (no DOM types here): aborted by the deadline or by the caller. */
class CallSignal implements LlmAbortSignal {
  aborted = false;
  reason: unknown = undefined;
  readonly #listeners = new Set<() => void>();
  addEventListener(_type: 'abort', listener: () => void): void {
    this.#listeners.add(listener);
  }
  removeEventListener(_type: 'abort', listener: () => void): void {
    this.#listeners.delete(listener);
  }
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    for (const l of [...this.#listeners]) l();
    this.#listeners.clear();
  }
}

interface Call {
  readonly signal: CallSignal;
  /** Rejects with LLM_TIMEOUT when the deadline passes (never resolves). */
  readonly expired: Promise<never>;
  /** A sign of life: the idle deadline starts again. */
  progress(): void;
  end(): void;
}

function startCall(outer: LlmAbortSignal | undefined, timer: Timer, idleMs: number, what: string): Call {
  const signal = new CallSignal();
  let expire!: (err: Error) => void;
  const expired = new Promise<never>((_, reject) => (expire = reject));
  expired.catch(() => undefined);
  const onOuter = () => signal.abort(outer?.reason);
  if (outer?.aborted) signal.abort(outer.reason);
  else outer?.addEventListener('abort', onOuter, { once: true });
  let pending: { cancel(): void } | null = null;
  const arm = () => {
    pending?.cancel();
    pending = timer(() => {
      const err = new RecollectError(
        'LLM_TIMEOUT',
        `${what} sent nothing for ${Math.round(idleMs / 60_000)} minutes, so Recollect gave up waiting. Try again.`,
      );
      signal.abort(err);
      expire(err);
    }, idleMs);
  };
  arm();
  return {
    signal,
    expired,
    progress: arm,
    end: () => {
      pending?.cancel();
      outer?.removeEventListener('abort', onOuter);
    },
  };
}

export function withDeadline(llm: Llm, timer: Timer, idleMs = llm.onDevice ? DEVICE_IDLE_MS : ENDPOINT_IDLE_MS): Llm {
  const what = llm.onDevice ? 'The model on this device' : 'The endpoint';
  const once = async <T>(req: LlmRequest, run: (req: LlmRequest) => Promise<T>): Promise<T> => {
    const call = startCall(req.signal, timer, idleMs, what);
    try {
      return await Promise.race([run({ ...req, signal: call.signal }), call.expired]);
    } finally {
      call.end();
    }
  };
  return {
    // Read through: a device model's `onDevice` names where it last ran (it changes).
    get onDevice() {
      return llm.onDevice;
    },
    get contextTokens() {
      return llm.contextTokens;
    },
    complete: (req: LlmRequest): Promise<LlmResult> => once(req, (r) => llm.complete(r)),
    completeJson: <T>(req: LlmJsonRequest<T>): Promise<LlmJsonResult<T>> =>
      once(req, (r) => llm.completeJson({ ...req, ...r } as LlmJsonRequest<T>)),
    async *stream(req: LlmRequest): AsyncGenerator<LlmStreamEvent, void, undefined> {
      const call = startCall(req.signal, timer, idleMs, what);
      const events = llm.stream({ ...req, signal: call.signal })[Symbol.asyncIterator]();
      try {
        for (;;) {
          const step = await Promise.race([events.next(), call.expired]);
          if (step.done) return;
          call.progress();
          yield step.value;
        }
      } finally {
        call.end();
        // Left early (Stop, an error, the deadline): the inner stream is closed too.
        void Promise.resolve(events.return?.()).catch(() => undefined);
      }
    },
  };
}
