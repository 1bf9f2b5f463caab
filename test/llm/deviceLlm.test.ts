/**
 * DeviceLlm — the engine's `Llm` over a model on this device — run against both providers: the
 * transformers.js generator over the random-weight Qwen2 stand-in (onnxruntime-node's CPU here,
 * WebGPU/WASM in the browser), and the Prompt API generator over a stub `LanguageModel` with the
 * documented interface. One behaviour suite: streaming, stop, the ledger, the structured-output
 * path. Then what is particular to each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { env } from '@huggingface/transformers';
import type { LlmCall, LlmCallSink, LlmStreamEvent } from '../../src/core/base/ports';
import type { DeviceGenerationRequest, DeviceGenerationResult, TextGenerator } from '../../src/core/protocol';
import { DeviceLlm } from '../../src/llm/DeviceLlm';
import { LlmError } from '../../src/llm/llmErrors';
import {
  BUILT_IN_MODEL_ID,
  PromptApiGenerator,
  builtInAdvice,
  builtInAvailability,
  builtInContextWindow,
  findLanguageModel,
} from '../../src/llm/PromptApiGenerator';
import { TransformersTextGenerator } from '../../src/models/TransformersTextGenerator';
import { buildTestLlms } from '../support/modelHub';
import { stubLanguageModel } from '../support/stubLanguageModel';

const QWEN = 'onnx-community/Qwen2.5-0.5B-Instruct';

class Ledger implements LlmCallSink {
  readonly calls: LlmCall[] = [];
  record(call: LlmCall): void {
    this.calls.push(call);
  }
}

const ask = [
  { role: 'system' as const, content: 'Answer from memory.' },
  { role: 'user' as const, content: 'Where did I go in May?' },
];

interface Provider {
  readonly name: string;
  readonly model: string;
  readonly device: string;
  generator(): TextGenerator;
  /** Exact counts from the provider (not estimates). */
  readonly exactTokens: boolean;
  /** The completion tokens the provider reports for a reply that ended at its token limit. */
  completionTokens(text: string, maxTokens: number): number;
}

let transformers: TransformersTextGenerator;
const saved = { remote: env.allowRemoteModels, local: env.allowLocalModels, path: env.localModelPath };

beforeAll(async () => {
  const dir = await buildTestLlms('local');
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = `${dir}/`;
  transformers = await TransformersTextGenerator.load(QWEN, { device: 'cpu', dtype: 'q4' });
}, 120_000);

afterAll(async () => {
  await transformers?.dispose();
  Object.assign(env, { allowRemoteModels: saved.remote, allowLocalModels: saved.local, localModelPath: saved.path });
});

const providers: Provider[] = [
  {
    name: 'transformers.js (random-weight Qwen2 stand-in)',
    model: QWEN,
    device: 'cpu',
    generator: () => transformers,
    exactTokens: true,
    // The model stopped at the limit, so it generated exactly that many tokens.
    completionTokens: (_text, maxTokens) => maxTokens,
  },
  {
    name: 'Prompt API (stub LanguageModel)',
    model: BUILT_IN_MODEL_ID,
    device: 'built-in',
    exactTokens: true,
    // The stub's sessions count words (test/support/stubLanguageModel.ts).
    completionTokens: (text) => text.split(/\s+/).filter(Boolean).length,
    generator: () => {
      const stub = stubLanguageModel();
      stub.replies = [Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ')];
      return new PromptApiGenerator(stub);
    },
  },
];

describe.each(providers)('DeviceLlm over $name', (p) => {
  it('streams deltas, then one done whose text is their concatenation; the ledger counts the call under the model id', async () => {
    const ledger = new Ledger();
    const llm = new DeviceLlm(p.generator(), { model: p.model, sink: ledger });
    const events: LlmStreamEvent[] = [];
    for await (const e of llm.stream({ stage: 'answer', messages: ask, maxTokens: 16 })) events.push(e);
    const deltas = events.filter((e) => e.type === 'delta').map((e) => (e as { text: string }).text);
    const done = events.at(-1)!;
    expect(deltas.length).toBeGreaterThan(1);
    expect(done.type).toBe('done');
    if (done.type !== 'done') return;
    expect(done.result.text).toBe(deltas.join(''));
    expect(done.result.model).toBe(p.model);
    expect(done.result.finishReason).toBe('length');
    expect(llm.lastDevice).toBe(p.device);
    expect(ledger.calls).toHaveLength(1);
    const call = ledger.calls[0]!;
    expect(call).toMatchObject({
      stage: 'answer',
      model: p.model,
      outcome: 'ok',
      error: null,
      attempt: 1,
      tokensEstimated: !p.exactTokens,
    });
    expect(call.promptTokens).toBeGreaterThan(5);
    expect(call.completionTokens).toBe(p.completionTokens(done.result.text, 16));
  });

  it('stops when the signal aborts mid-stream: LLM_CANCELLED, the partial call counted as cancelled', async () => {
    const ledger = new Ledger();
    const llm = new DeviceLlm(p.generator(), { model: p.model, sink: ledger });
    const controller = new AbortController();
    const seen: string[] = [];
    const run = async () => {
      for await (const e of llm.stream({ stage: 'answer', messages: ask, maxTokens: 400, signal: controller.signal })) {
        if (e.type === 'delta') {
          seen.push(e.text);
          if (seen.length === 2) controller.abort();
        }
      }
    };
    await expect(run()).rejects.toMatchObject({ code: 'LLM_CANCELLED' });
    expect(ledger.calls).toHaveLength(1);
    expect(ledger.calls[0]).toMatchObject({ outcome: 'cancelled', error: 'LLM_CANCELLED', model: p.model });
    // It stopped early: far fewer than the 400 tokens allowed.
    expect(ledger.calls[0]!.completionTokens).toBeLessThan(100);
    // A stopped first answer still says where it ran (the pieces carry the device; no result is awaited).
    expect(llm.lastDevice).toBe(p.device);
  });

  it('leaving the stream early cancels the generation, and the next call runs normally', async () => {
    const ledger = new Ledger();
    const generator = p.generator();
    const llm = new DeviceLlm(generator, { model: p.model, sink: ledger });
    for await (const e of llm.stream({ stage: 'answer', messages: ask, maxTokens: 400 })) {
      if (e.type === 'delta') break;
    }
    expect(ledger.calls.map((c) => c.outcome)).toEqual(['cancelled']);
    const next = await llm.complete({ stage: 'title', messages: ask, maxTokens: 6 });
    // A full run: it ends by its own token limit, not by the earlier cancellation.
    expect(next.finishReason).toBe('length');
    expect(ledger.calls.at(-1)!.completionTokens).toBe(p.completionTokens(next.text, 6));
    expect(ledger.calls.map((c) => c.outcome)).toEqual(['cancelled', 'ok']);
  });

  it('takes the structured-output path: an unusable reply is retried once with the problems, then LLM_BAD_OUTPUT', async () => {
    const ledger = new Ledger();
    const llm = new DeviceLlm(p.generator(), { model: p.model, sink: ledger });
    const schema = z.object({ facts: z.array(z.string()) });
    const err = await llm.completeJson({ stage: 'synthesis', messages: ask, schema, maxTokens: 12 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as LlmError).code).toBe('LLM_BAD_OUTPUT');
    expect(ledger.calls.map((c) => [c.stage, c.outcome])).toEqual([
      ['synthesis', 'ok'],
      ['synthesis', 'ok'],
    ]);
  });
});

describe('DeviceLlm', () => {
  it('repairs poor JSON from a small model like the endpoint client does', async () => {
    const stub = stubLanguageModel();
    stub.replies = ["Sure! Here it is:\n```json\n{'facts': ['went to Lisbon in May',],}\n```"];
    const llm = new DeviceLlm(new PromptApiGenerator(stub), { model: BUILT_IN_MODEL_ID });
    const out = await llm.completeJson({ stage: 'synthesis', messages: ask, schema: z.object({ facts: z.array(z.string()) }) });
    expect(out.value).toEqual({ facts: ['went to Lisbon in May'] });
    expect(out.repaired).toBe(true);
    expect(out.attempts).toBe(1);
  });

  it('retries a generator that was unavailable before its first delta, reporting each attempt', async () => {
    let calls = 0;
    const flaky: TextGenerator = {
      async generate(req: DeviceGenerationRequest, onText): Promise<DeviceGenerationResult> {
        calls++;
        if (calls === 1) throw new LlmError('LLM_UNAVAILABLE', 'The model worker restarted.');
        onText?.('ok');
        return {
          text: 'ok',
          model: 'm',
          promptTokens: 3,
          completionTokens: 1,
          tokensEstimated: false,
          finishReason: 'stop',
          device: 'wasm',
        };
      },
      cancel() {},
    };
    const ledger = new Ledger();
    const llm = new DeviceLlm(flaky, { model: 'm', sink: ledger, baseDelayMs: 1 });
    const result = await llm.complete({ stage: 'answer', messages: ask });
    expect(result.text).toBe('ok');
    expect(ledger.calls.map((c) => [c.attempt, c.outcome, c.error])).toEqual([
      [1, 'error', 'LLM_UNAVAILABLE'],
      [2, 'ok', null],
    ]);
  });

  it('does not retry a failure that needs the person (the model failed to load), and says why', async () => {
    const broken: TextGenerator = {
      async generate() {
        throw Object.assign(new Error('The model on this device failed to load: out of GPU memory'), { code: 'LLM_NOT_CONFIGURED' });
      },
      cancel() {},
    };
    const ledger = new Ledger();
    const llm = new DeviceLlm(broken, { model: 'm', sink: ledger, baseDelayMs: 1 });
    await expect(llm.complete({ stage: 'answer', messages: ask })).rejects.toMatchObject({
      code: 'LLM_NOT_CONFIGURED',
      message: expect.stringContaining('out of GPU memory'),
    });
    expect(ledger.calls).toHaveLength(1);
  });
});

describe('Prompt API provider', () => {
  it('reports the documented availability states, and unsupported when there is no LanguageModel', async () => {
    const stub = stubLanguageModel();
    for (const state of ['available', 'downloadable', 'downloading', 'unavailable']) {
      stub.state = state;
      expect(await builtInAvailability(stub)).toBe(state);
    }
    stub.state = 'something-new';
    expect(await builtInAvailability(stub)).toBe('unavailable');
    expect(await builtInAvailability(findLanguageModel({}))).toBe('unsupported');
    expect(findLanguageModel({ LanguageModel: stub })).toBe(stub);
    expect(builtInAdvice('downloadable')).toMatch(/22 GB/);
    expect(builtInAdvice('unsupported')).toMatch(/Download a model/);
  });

  it('puts the system prompt and earlier turns in initialPrompts and prompts with the last user message; sessions are destroyed', async () => {
    const stub = stubLanguageModel();
    const generator = new PromptApiGenerator(stub);
    const messages = [
      { role: 'system' as const, content: 'Answer from memory.' },
      { role: 'user' as const, content: 'Hi' },
      { role: 'assistant' as const, content: 'Hello!' },
      { role: 'user' as const, content: 'Where did I go in May?' },
    ];
    const result = await generator.generate({ requestId: 'r1', messages, maxNewTokens: 200 });
    expect(stub.created[0]!.initialPrompts).toEqual(messages.slice(0, 3));
    expect(stub.prompts).toEqual(['Where did I go in May?']);
    expect(result).toMatchObject({
      text: stub.replies[0],
      finishReason: 'stop',
      tokensEstimated: false,
      device: 'built-in',
      model: BUILT_IN_MODEL_ID,
    });
    // Words in the stub: system 3 + "Hi" 1 + "Hello!" 1 + question 6.
    expect(result.promptTokens).toBe(11);
    expect(result.completionTokens).toBe(stub.replies[0]!.split(' ').length);
    expect(stub.live).toBe(0);
  });

  it('a too-long conversation is a rejection a person can act on, not a crash', async () => {
    const stub = stubLanguageModel();
    stub.failWith = Object.assign(new Error('The input is too large.'), { name: 'QuotaExceededError' });
    const llm = new DeviceLlm(new PromptApiGenerator(stub), { model: BUILT_IN_MODEL_ID });
    await expect(llm.complete({ stage: 'answer', messages: ask })).rejects.toMatchObject({
      code: 'LLM_REJECTED',
      message: expect.stringContaining('too long'),
    });
    expect(stub.live).toBe(0);
  });

  it('reads the window the session reports (contextWindow, else the older inputQuota), never downloads to find out', async () => {
    const stub = stubLanguageModel();
    expect(await builtInContextWindow(stub)).toBe(4096);
    stub.reports = { contextWindow: 3000, inputQuota: 9999 };
    expect(await builtInContextWindow(stub)).toBe(3000);
    stub.reports = { contextWindow: Infinity };
    expect(await builtInContextWindow(stub)).toBeNull();
    stub.reports = {};
    expect(await builtInContextWindow(stub)).toBeNull();
    expect(stub.live).toBe(0); // every session made to ask is let go
    const made = stub.created.length;
    stub.state = 'downloadable'; // create() would start a download of several GB: not asked
    expect(await builtInContextWindow(stub)).toBeNull();
    expect(stub.created).toHaveLength(made);
  });

  it('a cancel that arrives before the generation starts returns at once with nothing', async () => {
    const stub = stubLanguageModel();
    const generator = new PromptApiGenerator(stub);
    generator.cancel('early');
    const result = await generator.generate({ requestId: 'early', messages: ask, maxNewTokens: 50 });
    expect(result).toMatchObject({ text: '', finishReason: 'cancelled' });
    expect(stub.created).toHaveLength(0);
  });
});
