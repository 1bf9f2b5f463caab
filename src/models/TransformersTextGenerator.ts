/**
 * A chat model run by transformers.js on this device (WebGPU or WASM in the device-LLM worker;
 * onnxruntime-node's CPU in tests): the model's own chat template, KV-cache decoding, each decoded
 * piece streamed as it forms, and stop through an interruptable stopping criterion.
 *
 * Invariants: one generation at a time (a WebGPU session is not re-entrant, and two would share the
 * memory of one); a cancel for a queued request makes it return at once with nothing generated;
 * token counts are the model tokenizer's, never estimates.
 */
import {
  AutoModelForCausalLM,
  AutoTokenizer,
  InterruptableStoppingCriteria,
  TextStreamer,
  type PreTrainedModel,
  type ProgressInfo,
  type PreTrainedTokenizer,
  type Tensor,
} from '@huggingface/transformers';
import { LlmError } from '../llm/llmErrors';
import type { DeviceGenerationRequest, DeviceGenerationResult, TextGenerator, TextListener } from '../core/protocol';

/** Resolves on the next macrotask (a MessageChannel round trip: no timer clamping). */
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

export interface TextGeneratorLoadOptions {
  readonly device: 'webgpu' | 'wasm' | 'cpu';
  readonly dtype: 'q4' | 'q4f16';
  readonly progress_callback?: (info: ProgressInfo) => void;
}

export class TransformersTextGenerator implements TextGenerator {
  readonly modelId: string;
  readonly device: string;
  readonly #model: PreTrainedModel;
  readonly #tokenizer: PreTrainedTokenizer;
  readonly #stops = new Map<string, InterruptableStoppingCriteria>();
  readonly #cancelled = new Set<string>();
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(modelId: string, device: string, model: PreTrainedModel, tokenizer: PreTrainedTokenizer) {
    this.modelId = modelId;
    this.device = device;
    this.#model = model;
    this.#tokenizer = tokenizer;
    // generate() steps from token to token through promises only (microtasks), so a worker busy
    // generating never reads its incoming messages — a stop would wait for the whole answer. One
    // macrotask turn before each forward pass lets cancel() arrive between tokens.
    const forward = model.forward.bind(model);
    model.forward = async (inputs: Record<string, unknown>) => {
      await nextTask();
      return forward(inputs);
    };
  }

  static async load(modelId: string, options: TextGeneratorLoadOptions): Promise<TransformersTextGenerator> {
    const progress = options.progress_callback ? { progress_callback: options.progress_callback } : {};
    const tokenizer = await AutoTokenizer.from_pretrained(modelId, progress);
    const model = await AutoModelForCausalLM.from_pretrained(modelId, { ...progress, device: options.device, dtype: options.dtype });
    return new TransformersTextGenerator(modelId, options.device, model, tokenizer);
  }

  generate(request: DeviceGenerationRequest, onText?: TextListener): Promise<DeviceGenerationResult> {
    const run = this.#queue.then(() => this.#generate(request, onText));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  cancel(requestId: string): void {
    this.#cancelled.add(requestId);
    this.#stops.get(requestId)?.interrupt();
  }

  async dispose(): Promise<void> {
    await this.#queue;
    await this.#model.dispose();
  }

  async #generate(request: DeviceGenerationRequest, onText?: TextListener): Promise<DeviceGenerationResult> {
    const tokenizer = this.#tokenizer;
    const messages = request.messages.map((m) => ({ role: m.role, content: m.content }));
    let prompt: string;
    try {
      prompt = tokenizer.apply_chat_template(messages, { tokenize: false, add_generation_prompt: true }) as string;
    } catch (err) {
      throw new LlmError(
        'LLM_REJECTED',
        `The model on this device cannot take this conversation: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    // The template already wrote the special tokens; adding them again would double a BOS.
    const inputs = tokenizer(prompt, { add_special_tokens: false }) as { input_ids: Tensor; attention_mask: Tensor };
    const promptTokens = inputs.input_ids.dims[1] ?? 0;
    const base = { model: this.modelId, promptTokens, tokensEstimated: false, device: this.device };
    if (this.#cancelled.delete(request.requestId)) return { ...base, text: '', completionTokens: 0, finishReason: 'cancelled' };

    const stop = new InterruptableStoppingCriteria();
    this.#stops.set(request.requestId, stop);
    let text = '';
    let completionTokens = 0;
    let last: bigint | null = null;
    const streamer = new TextStreamer(tokenizer, {
      skip_prompt: true,
      skip_special_tokens: true,
      callback_function: (piece: string) => {
        if (!piece) return;
        text += piece;
        onText?.(piece, this.device);
      },
      token_callback_function: (ids: bigint[]) => {
        completionTokens += ids.length;
        last = ids.at(-1) ?? last;
      },
    });
    const sampling =
      request.temperature && request.temperature > 0 ? { do_sample: true, temperature: request.temperature } : { do_sample: false };
    try {
      await this.#model.generate({ ...inputs, ...sampling, max_new_tokens: request.maxNewTokens, streamer, stopping_criteria: [stop] });
    } finally {
      this.#stops.delete(request.requestId);
    }
    const wasCancelled = this.#cancelled.delete(request.requestId) || stop.interrupted;
    const eos = this.#eosIds();
    const finishReason = wasCancelled
      ? 'cancelled'
      : last !== null && eos.has(Number(last))
        ? 'stop'
        : completionTokens >= request.maxNewTokens
          ? 'length'
          : 'stop';
    return { ...base, text, completionTokens, finishReason };
  }

  #eosIds(): Set<number> {
    const config = this.#model.generation_config as { eos_token_id?: number | number[] } | null;
    const ids = config?.eos_token_id ?? (this.#model.config as unknown as { eos_token_id?: number | number[] }).eos_token_id;
    return new Set(ids === undefined ? [] : Array.isArray(ids) ? ids : [ids]);
  }
}
