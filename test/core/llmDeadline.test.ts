import { describe, expect, it } from 'vitest';
import { withDeadline } from '../../src/core/base/llmDeadline';
import type { Timer } from '../../src/core/base/jobs';
import type { Llm, LlmAbortSignal, LlmRequest, LlmStreamEvent } from '../../src/core/base/ports';

/** A timer the test fires by hand. */
function manualTimer() {
  const due = new Set<() => void>();
  const timer: Timer = (fn) => {
    due.add(fn);
    return { cancel: () => due.delete(fn) };
  };
  return { timer, fire: () => [...due].forEach((fn) => fn()), armed: () => due.size };
}

/** An Llm that never answers (a dead worker) and records the signals it was given. */
function silentLlm(signals: (LlmAbortSignal | undefined)[]): Llm {
  return {
    complete: (req: LlmRequest) => {
      signals.push(req.signal);
      return new Promise(() => undefined);
    },
    completeJson: (req) => {
      signals.push(req.signal);
      return new Promise(() => undefined);
    },
    async *stream(req: LlmRequest): AsyncGenerator<LlmStreamEvent> {
      signals.push(req.signal);
      yield { type: 'delta', text: 'Hel' };
      await new Promise(() => undefined);
    },
  };
}

const request: LlmRequest = { stage: 'title', messages: [{ role: 'user', content: 'hi' }] };

describe('withDeadline', () => {
  it('gives every call a signal, even one its caller sent without, and times out a silent call with LLM_TIMEOUT', async () => {
    const { timer, fire, armed } = manualTimer();
    const signals: (LlmAbortSignal | undefined)[] = [];
    const llm = withDeadline(silentLlm(signals), timer, 1_000);
    const call = llm.complete(request);
    expect(signals[0]).toBeDefined();
    expect(signals[0]!.aborted).toBe(false);
    fire();
    await expect(call).rejects.toMatchObject({ code: 'LLM_TIMEOUT' });
    expect(signals[0]!.aborted).toBe(true); // the call itself is stopped, not only abandoned
    expect(armed()).toBe(0);
  });

  it("passes the caller's abort on", async () => {
    const { timer } = manualTimer();
    const signals: (LlmAbortSignal | undefined)[] = [];
    const llm = withDeadline(silentLlm(signals), timer, 1_000);
    const controller = new AbortController();
    void llm
      .completeJson({ ...request, schema: { safeParse: () => ({ success: true, data: 1 }) }, signal: controller.signal })
      .catch(() => undefined);
    controller.abort();
    expect(signals[0]!.aborted).toBe(true);
  });

  it('a stream that stops sending times out after its last piece', async () => {
    const { timer, fire } = manualTimer();
    const llm = withDeadline(silentLlm([]), timer, 1_000);
    const pieces: string[] = [];
    const run = (async () => {
      for await (const e of llm.stream(request)) if (e.type === 'delta') pieces.push(e.text);
    })();
    await new Promise((r) => setTimeout(r, 0));
    expect(pieces).toEqual(['Hel']);
    fire();
    await expect(run).rejects.toMatchObject({ code: 'LLM_TIMEOUT' });
  });

  it('reads onDevice through (a device model names where it last ran)', () => {
    const inner = { ...silentLlm([]), onDevice: 'A (WASM)' };
    const llm = withDeadline(inner, manualTimer().timer);
    expect(llm.onDevice).toBe('A (WASM)');
    inner.onDevice = 'A (WebGPU)';
    expect(llm.onDevice).toBe('A (WebGPU)');
  });
});
