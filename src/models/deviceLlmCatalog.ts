/**
 * The language models Recollect can download and run on this device, and the honest check of
 * whether this device can run one. File names and sizes are the Hub's (onnx-community /
 * HuggingFaceTB repositories, `onnx/model_q4f16.onnx` and `onnx/model_q4.onnx`); speeds are
 * independent desktop measurements of transformers.js v4 on WebGPU, not ours (docs/answers.md,
 * "Answers on this device").
 *
 * Rules: WebGPU is required except for the tiny model, which may run on WASM (on WASM only
 * models under ≈ 100M–150M parameters answer at a readable pace). q4f16 needs the adapter's
 * `shader-f16` feature; without it the larger q4 file is used. The largest weight buffer must fit
 * the adapter's `maxBufferSize` and `maxStorageBufferBindingSize`, or loading fails half-way.
 */

export type DeviceLlmDtype = 'q4' | 'q4f16';

export interface DeviceLlmEntry {
  readonly id: string;
  readonly label: string;
  /** Download size per file variant (bytes, all files). */
  readonly bytes: Readonly<Record<DeviceLlmDtype, number>>;
  readonly languages: string;
  readonly licence: string;
  readonly speed: string;
  readonly note: string;
  /** May run without WebGPU (WASM). */
  readonly wasm: boolean;
  /** The largest single weight tensor (the token embeddings, fp16), for the adapter limit check. */
  readonly largestBufferBytes: number;
  /** The context window the prompts are sized for. */
  readonly contextTokens: number;
}

const MB = 1_000_000;

export const DEVICE_LLM_CATALOG: readonly DeviceLlmEntry[] = [
  {
    id: 'HuggingFaceTB/SmolLM2-135M-Instruct',
    label: 'SmolLM2 135M Instruct',
    bytes: { q4f16: 134 * MB + 3 * MB, q4: 200 * MB + 3 * MB },
    languages: 'English',
    licence: 'Apache-2.0',
    speed: 'Fast on a GPU; the only model usable without one (WASM, a few tokens/s to tens of tokens/s)',
    note: 'Tiny: short, often wrong answers; synthesis will be rough. For trying Recollect without a server.',
    wasm: true,
    largestBufferBytes: 49_152 * 576 * 2,
    contextTokens: 8192,
  },
  {
    id: 'HuggingFaceTB/SmolLM2-360M-Instruct',
    label: 'SmolLM2 360M Instruct',
    bytes: { q4f16: 299 * MB + 3 * MB, q4: 417 * MB + 3 * MB },
    languages: 'English',
    licence: 'Apache-2.0',
    speed: 'About 100 tokens/s on a desktop GPU (WebGPU required)',
    note: 'Small: simple answers from memory; keep expectations modest.',
    wasm: false,
    largestBufferBytes: 49_152 * 960 * 2,
    contextTokens: 8192,
  },
  {
    id: 'onnx-community/Qwen2.5-0.5B-Instruct',
    label: 'Qwen2.5 0.5B Instruct',
    bytes: { q4f16: 483 * MB + 8 * MB, q4: 786 * MB + 8 * MB },
    languages: 'About 30 languages (English, Chinese, French, Spanish, German, Japanese, Korean, …)',
    licence: 'Apache-2.0',
    speed: 'About 140 tokens/s on a desktop GPU (WebGPU required)',
    note: 'The best of these for answers and JSON synthesis; still a small model.',
    wasm: false,
    largestBufferBytes: 151_936 * 896 * 2,
    contextTokens: 32_768,
  },
];

export function findDeviceLlm(id: string): DeviceLlmEntry | undefined {
  return DEVICE_LLM_CATALOG.find((m) => m.id === id);
}

/** The files a model needs for one variant, as the Hub serves them. */
export function deviceLlmFiles(dtype: DeviceLlmDtype): string[] {
  return ['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', `onnx/model_${dtype}.onnx`];
}

/** What the WebGPU adapter offers (null: no WebGPU, or no adapter). */
export interface GpuCapabilities {
  readonly maxBufferSize: number;
  readonly maxStorageBufferBindingSize: number;
  readonly f16: boolean;
}

export type Runtime =
  | { readonly ok: true; readonly device: 'webgpu' | 'wasm'; readonly dtype: DeviceLlmDtype; readonly notice: string | null }
  | { readonly ok: false; readonly reason: string };

/**
 * Where and how `entry` runs here, or why it cannot. `forceWasm`: the person asked for the
 * processor (or WebGPU failed at load time and this is the retry).
 */
export function chooseRuntime(entry: DeviceLlmEntry, gpu: GpuCapabilities | null, forceWasm = false): Runtime {
  const onWasm = (why: string | null): Runtime =>
    entry.wasm
      ? { ok: true, device: 'wasm', dtype: 'q4', notice: why ? `${why}; running on the processor (WASM), which is slow.` : null }
      : {
          ok: false,
          reason: `${entry.label} needs WebGPU${why ? `, and ${why.charAt(0).toLowerCase()}${why.slice(1)}` : ''}. Try the smallest model, or the browser's built-in one.`,
        };
  if (forceWasm) return onWasm(null);
  if (!gpu) return onWasm('This browser offers no WebGPU adapter');
  const limit = Math.min(gpu.maxBufferSize, gpu.maxStorageBufferBindingSize);
  if (limit < entry.largestBufferBytes) {
    return onWasm(`The graphics adapter allows buffers of ${mb(limit)}, the model needs ${mb(entry.largestBufferBytes)}`);
  }
  return gpu.f16
    ? { ok: true, device: 'webgpu', dtype: 'q4f16', notice: null }
    : {
        ok: true,
        device: 'webgpu',
        dtype: 'q4',
        notice: 'The graphics adapter has no 16-bit float support (shader-f16): the larger q4 file is used.',
      };
}

const mb = (bytes: number): string => `${Math.round(bytes / MB)} MB`;
