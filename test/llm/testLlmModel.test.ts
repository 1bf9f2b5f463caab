/**
 * The random-weight stand-ins for the in-page language models (scripts/build-test-llm.mjs) are
 * real decoder-only models to transformers.js 4.3.1: they load with AutoModelForCausalLM and
 * `pipeline('text-generation')` from a local folder with remote models off, their tokenizer is a
 * byte-level BPE of the Qwen2 family with ChatML, and their KV cache is right — decoding one token
 * with the cache gives the logits of a full pass over the whole sequence.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AutoModelForCausalLM,
  AutoTokenizer,
  env,
  pipeline,
  Tensor,
  TextStreamer,
  type PreTrainedModel,
  type PreTrainedTokenizer,
} from '@huggingface/transformers';
import { buildTestLlms } from '../support/modelHub';

const QWEN = 'onnx-community/Qwen2.5-0.5B-Instruct';
const SMOL = 'HuggingFaceTB/SmolLM2-135M-Instruct';

let tokenizer: PreTrainedTokenizer;
let model: PreTrainedModel;
const saved = { remote: env.allowRemoteModels, local: env.allowLocalModels, path: env.localModelPath };

beforeAll(async () => {
  const dir = await buildTestLlms('local');
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = `${dir}/`;
  tokenizer = await AutoTokenizer.from_pretrained(QWEN);
  model = await AutoModelForCausalLM.from_pretrained(QWEN, { dtype: 'q4', device: 'cpu' });
}, 120_000);

afterAll(async () => {
  await model?.dispose();
  env.allowRemoteModels = saved.remote;
  env.allowLocalModels = saved.local;
  env.localModelPath = saved.path;
});

function rows(t: Tensor): number[][] {
  const [, seq, vocab] = t.dims as [number, number, number];
  const data = t.data as Float32Array;
  return Array.from({ length: seq }, (_, i) => Array.from(data.subarray(i * vocab, (i + 1) * vocab)));
}

describe('random-weight decoder stand-in', () => {
  it('is a qwen2 causal LM with grouped-query attention, as its config says', () => {
    const config = model.config as unknown as Record<string, unknown>;
    expect(config.model_type).toBe('qwen2');
    expect(config.num_attention_heads).toBe(4);
    expect(config.num_key_value_heads).toBe(2);
    expect(model.sessions.model!.inputNames).toEqual(
      expect.arrayContaining(['input_ids', 'attention_mask', 'position_ids', 'past_key_values.0.key', 'past_key_values.1.value']),
    );
    expect(model.sessions.model!.outputNames).toEqual(expect.arrayContaining(['logits', 'present.0.key', 'present.1.value']));
  });

  it('tokenises byte-level (any text round-trips, words are single pieces) and keeps the ChatML specials whole', () => {
    const text = "Hello world, it's 2026 — naïve café 東京 🙂\n\tdone";
    const ids = tokenizer.encode(text, { add_special_tokens: false });
    expect(tokenizer.decode(ids)).toBe(text);
    // cl100k_base's first ranks hold common English words with their leading space.
    expect(tokenizer.encode(' the', { add_special_tokens: false })).toHaveLength(1);
    const special = tokenizer.encode('<|im_start|>user', { add_special_tokens: false });
    expect(tokenizer.decode(special.slice(0, 1))).toBe('<|im_start|>');
  });

  it('applies the chat template (ChatML, default system turn, generation prompt)', () => {
    const messages = [{ role: 'user', content: 'What did I say about Lisbon?' }];
    const text = tokenizer.apply_chat_template(messages, { tokenize: false, add_generation_prompt: true }) as string;
    expect(text).toBe(
      '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nWhat did I say about Lisbon?<|im_end|>\n<|im_start|>assistant\n',
    );
    const withSystem = tokenizer.apply_chat_template([{ role: 'system', content: 'Be brief.' }, ...messages], {
      tokenize: false,
      add_generation_prompt: false,
    }) as string;
    expect(withSystem.startsWith('<|im_start|>system\nBe brief.<|im_end|>\n')).toBe(true);
    expect(withSystem.endsWith('<|im_end|>\n')).toBe(true);
  });

  it('decodes with its KV cache: one cached step gives the logits of a full pass', async () => {
    const prompt = tokenizer('<|im_start|>user\nhello there<|im_end|>\n<|im_start|>assistant\n');
    const n = prompt.input_ids.dims[1]!;
    const first = (await model.generate({ ...prompt, max_new_tokens: 1, do_sample: false, return_dict_in_generate: true })) as {
      sequences: Tensor;
      past_key_values: { get_seq_length(): number; [name: string]: unknown };
    };
    expect(first.past_key_values.get_seq_length()).toBe(n);
    const next = (first.sequences.data as BigInt64Array)[n]!;
    // Step with the cache: only the new token goes in.
    const step = (await model.forward({
      input_ids: new Tensor('int64', BigInt64Array.of(next), [1, 1]),
      attention_mask: new Tensor('int64', new BigInt64Array(n + 1).fill(1n), [1, n + 1]),
      position_ids: new Tensor('int64', BigInt64Array.of(BigInt(n)), [1, 1]),
      past_key_values: first.past_key_values,
    })) as { logits: Tensor; 'present.0.key': Tensor };
    expect(step['present.0.key'].dims).toEqual([1, 2, n + 1, 16]);
    // The same sequence without a cache (transformers.js feeds an empty one).
    const ids = new BigInt64Array(n + 1);
    ids.set(prompt.input_ids.data as BigInt64Array);
    ids[n] = next;
    const full = (await model.forward({
      input_ids: new Tensor('int64', ids, [1, n + 1]),
      attention_mask: new Tensor('int64', new BigInt64Array(n + 1).fill(1n), [1, n + 1]),
      position_ids: new Tensor(
        'int64',
        BigInt64Array.from({ length: n + 1 }, (_, i) => BigInt(i)),
        [1, n + 1],
      ),
    })) as { logits: Tensor };
    const cached = rows(step.logits)[0]!;
    const reference = rows(full.logits)[n]!;
    const worst = Math.max(...cached.map((v, i) => Math.abs(v - reference[i]!)));
    expect(worst).toBeLessThan(1e-3);
    // And the cache matters: the step's logits differ from a pass over the new token alone.
    const alone = (await model.forward({
      input_ids: new Tensor('int64', BigInt64Array.of(next), [1, 1]),
      attention_mask: new Tensor('int64', BigInt64Array.of(1n), [1, 1]),
      position_ids: new Tensor('int64', BigInt64Array.of(BigInt(n)), [1, 1]),
    })) as { logits: Tensor };
    const differs = Math.max(...rows(alone.logits)[0]!.map((v, i) => Math.abs(v - cached[i]!)));
    expect(differs).toBeGreaterThan(1e-2);
  });

  it('streams tokens through generate() and never ends by chance (special tokens are biased out)', async () => {
    const text = tokenizer.apply_chat_template([{ role: 'user', content: 'Tell me something.' }], {
      tokenize: false,
      add_generation_prompt: true,
    }) as string;
    const inputs = tokenizer(text);
    const pieces: string[] = [];
    const streamer = new TextStreamer(tokenizer, {
      skip_prompt: true,
      skip_special_tokens: true,
      callback_function: (t: string) => void pieces.push(t),
    });
    const out = (await model.generate({ ...inputs, max_new_tokens: 24, do_sample: false, streamer })) as Tensor;
    expect(out.dims[1]).toBe(inputs.input_ids.dims[1]! + 24);
    expect(pieces.length).toBeGreaterThan(1);
    // What was streamed is exactly the decoded new tokens (the random weights make the words unknowable).
    const promptLength = inputs.input_ids.dims[1]!;
    const newTokens = (out.tolist() as bigint[][])[0]!.slice(promptLength);
    expect(pieces.join('')).toBe(tokenizer.decode(newTokens, { skip_special_tokens: true }));
  });

  it('runs through pipeline("text-generation") with chat messages, for the Llama-family stand-in too', async () => {
    const generator = await pipeline('text-generation', SMOL, { dtype: 'q4', device: 'cpu' });
    try {
      expect((generator.model.config as unknown as { model_type: string }).model_type).toBe('llama');
      const out = (await generator([{ role: 'user', content: 'Hi!' }], { max_new_tokens: 8, do_sample: false })) as {
        generated_text: { role: string; content: string }[];
      }[];
      const chat = out[0]!.generated_text;
      expect(chat.at(-1)!.role).toBe('assistant');
      // The pipeline's reply is the greedy continuation of the chat template, decoded.
      const prompt = generator.tokenizer.apply_chat_template([{ role: 'user', content: 'Hi!' }], {
        tokenize: false,
        add_generation_prompt: true,
      }) as string;
      const inputs = generator.tokenizer(prompt);
      const direct = (await generator.model.generate({ ...inputs, max_new_tokens: 8, do_sample: false })) as Tensor;
      const newTokens = (direct.tolist() as bigint[][])[0]!.slice(inputs.input_ids.dims[1]!);
      expect(chat.at(-1)!.content).toBe(generator.tokenizer.decode(newTokens, { skip_special_tokens: true }));
    } finally {
      await generator.dispose();
    }
  });
});

describe('random-weight decoder output', () => {
  it('is text a person could have typed: no control characters, no broken UTF-8 (the app refuses to store those)', async () => {
    let generated = '';
    // Greedy (deterministic) from several prompts, to visit many tokens.
    for (const content of ['Write something long.', '東京で何を食べた？', "What's 2 + 2, and why?"]) {
      const text = tokenizer.apply_chat_template([{ role: 'user', content }], { tokenize: false, add_generation_prompt: true }) as string;
      const inputs = tokenizer(text, { add_special_tokens: false });
      const out = (await model.generate({ ...inputs, max_new_tokens: 200, do_sample: false })) as Tensor;
      const ids = Array.from(out.data as BigInt64Array)
        .slice(inputs.input_ids.dims[1]!)
        .map(Number);
      generated += tokenizer.decode(ids, { skip_special_tokens: true });
    }
    expect(generated.length).toBeGreaterThan(300);
    const control = [...generated].filter((c) => {
      const n = c.codePointAt(0)!;
      return (n < 0x20 && n !== 0x09 && n !== 0x0a && n !== 0x0d) || n === 0x7f || n === 0xfffd;
    });
    expect(control).toEqual([]);
  });
});
