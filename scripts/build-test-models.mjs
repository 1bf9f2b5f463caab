#!/usr/bin/env node
/**
 * Builds a local "model hub" for tests: for every downloadable catalog model, a random-weight ONNX
 * model of the same architecture and I/O, a real-format tokenizer of the same family and the
 * config the entry declares, laid out as the Hugging Face Hub serves them:
 *
 *   .cache/test-hub/<repo id>/resolve/main/{config.json, tokenizer.json, tokenizer_config.json,
 *                                          onnx/model_quantized.onnx}
 *
 * No real weights can be downloaded here, so these models test the path (download, cache, load,
 * tokenise, run, pool, store) and never quality. The architecture is a one-layer transformer
 * encoder — embeddings (word + position + token type), LayerNorm, multi-head self-attention with
 * the padding mask, GELU feed-forward — whose `last_hidden_state` has the catalog dimension;
 * cross-encoders add BERT's pooler (tanh over the first token) and a one-logit head.
 * Weights are int8 with a per-tensor scale (DequantizeLinear), as in the q8 files the app loads.
 *
 * Tokenizers (tokenizer.json in the format @huggingface/tokenizers reads):
 *   - BERT WordPiece (MiniLM, BGE, ms-marco): lower-cased words of the bundled model's vocabulary,
 *     `##` suffix pieces and single characters, [CLS] A [SEP] B [SEP] with token type ids.
 *   - XLM-R Unigram (multilingual-e5): `▁`-prefixed pieces for English, French, German, Spanish
 *     words plus single Latin, CJK, kana and Hangul characters, <s> A </s></s> B </s>.
 *   - DeBERTa-v2 Unigram (mxbai-rerank): the same pieces with [CLS] A [SEP] B [SEP].
 *
 * Word list: the bundled model's tokenizer (built at install time from an npm package), so this
 * script needs only npm packages. Deterministic (seeded), idempotent, ≈2 MB per model.
 * Usage: node scripts/build-test-models.mjs [--out <dir>]
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { onnx } = require('onnx-proto');

const BUILD_VERSION = 1;
const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..');
const args = process.argv.slice(2);
const outArg = args.indexOf('--out');
const outDir = outArg >= 0 && args[outArg + 1] ? resolve(args[outArg + 1]) : join(repoRoot, '.cache/test-hub');

/** What the catalog declares for each downloadable model (src/models/catalog.ts). */
export const TEST_MODELS = [
  { id: 'Xenova/all-MiniLM-L6-v2', kind: 'embedder', family: 'bert', hidden: 384, heads: 12 },
  { id: 'Xenova/bge-small-en-v1.5', kind: 'embedder', family: 'bert', hidden: 384, heads: 12 },
  { id: 'Xenova/multilingual-e5-small', kind: 'embedder', family: 'xlmr', hidden: 384, heads: 12 },
  { id: 'Xenova/ms-marco-MiniLM-L-6-v2', kind: 'reranker', family: 'bert', hidden: 384, heads: 12 },
  { id: 'mixedbread-ai/mxbai-rerank-xsmall-v1', kind: 'reranker', family: 'deberta', hidden: 384, heads: 6 },
];
const MAX_POSITIONS = 512;
const FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'];

// ---------------------------------------------------------------------------------------------
// Seeded random numbers (mulberry32), roughly normal by summing uniforms.
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => next() + next() + next() - 1.5;
}

function seedOf(text) {
  let h = 2166136261;
  for (const c of text) h = Math.imul(h ^ c.codePointAt(0), 16777619);
  return h >>> 0;
}

// ---------------------------------------------------------------------------------------------
// ONNX helpers (opset 17: LayerNormalization), written with onnx-proto.
const T = onnx.TensorProto.DataType;
const A = onnx.AttributeProto.AttributeType;
const bytesOf = (typed) => new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
const tensor = (name, dataType, dims, typed) => ({ name, dataType, dims, rawData: bytesOf(typed) });
const attr = (name, v) =>
  Array.isArray(v) ? { name, type: A.INTS, ints: v } : Number.isInteger(v) ? { name, type: A.INT, i: v } : { name, type: A.FLOAT, f: v };
const node = (opType, input, output, attrs = {}) => ({
  opType,
  input,
  output,
  name: `${opType}_${output[0]}`,
  attribute: Object.entries(attrs).map(([k, v]) => attr(k, v)),
});
const valueInfo = (name, elemType, dims) => ({
  name,
  type: { tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) } } },
});

/** Builds the graph for one model; returns the encoded ModelProto. */
function buildGraph(spec, vocabSize) {
  const { hidden: H, heads, kind, family } = spec;
  const I = H; // a narrow feed-forward keeps the file small; the shape of the computation is the same
  const d = H / heads;
  const normal = rng(seedOf(spec.id));
  const init = [];
  const nodes = [];
  let n = 0;
  const id = (p) => `${p}_${n++}`;
  /** An int8 weight with a per-tensor scale, dequantised in the graph. */
  const weight = (name, dims, std) => {
    const size = dims.reduce((a, b) => a * b, 1);
    const q = new Int8Array(size);
    for (let i = 0; i < size; i++) q[i] = Math.max(-127, Math.min(127, Math.round(normal() * 60)));
    init.push(tensor(`${name}_q`, T.INT8, dims, q));
    init.push(tensor(`${name}_s`, T.FLOAT, [], Float32Array.of(std / 60)));
    init.push(tensor(`${name}_z`, T.INT8, [], Int8Array.of(0)));
    nodes.push(node('DequantizeLinear', [`${name}_q`, `${name}_s`, `${name}_z`], [name]));
    return name;
  };
  const constant = (name, dims, values) => (init.push(tensor(name, T.FLOAT, dims, Float32Array.from(values))), name);
  const ints = (name, values) => (init.push(tensor(name, T.INT64, [values.length], BigInt64Array.from(values.map(BigInt)))), name);
  const op = (type, inputs, attrs) => {
    const out = id(type.toLowerCase());
    nodes.push(node(type, inputs, [out], attrs));
    return out;
  };
  const linear = (x, name, inDim, outDim) =>
    op('Add', [
      op('MatMul', [x, weight(`${name}_w`, [inDim, outDim], 1 / Math.sqrt(inDim))]),
      constant(`${name}_b`, [outDim], new Array(outDim).fill(0)),
    ]);
  const layerNorm = (x, name) =>
    op('LayerNormalization', [x, constant(`${name}_g`, [H], new Array(H).fill(1)), constant(`${name}_beta`, [H], new Array(H).fill(0))], {
      axis: -1,
      epsilon: 1e-12,
    });

  const hasTypes = family !== 'deberta';
  // Embeddings: word rows gathered first, then dequantised (only the rows used).
  const wordQ = new Int8Array(vocabSize * H);
  for (let i = 0; i < wordQ.length; i++) wordQ[i] = Math.max(-127, Math.min(127, Math.round(normal() * 60)));
  init.push(tensor('word_q', T.INT8, [vocabSize, H], wordQ), tensor('word_s', T.FLOAT, [], Float32Array.of(0.05 / 60)));
  const wordRows = op('Cast', [op('Gather', ['word_q', 'input_ids'], { axis: 0 })], { to: T.FLOAT });
  let x = op('Mul', [wordRows, 'word_s']);
  const seqLen = op('Gather', [op('Shape', ['input_ids']), ints('one_index', [1])], { axis: 0 });
  const zero = (init.push(tensor('zero', T.INT64, [], BigInt64Array.of(0n))), 'zero');
  const oneStep = (init.push(tensor('one', T.INT64, [], BigInt64Array.of(1n))), 'one');
  const positions = op('Range', [zero, op('Squeeze', [seqLen, ints('axes_0', [0])]), oneStep]);
  x = op('Add', [x, op('Gather', [weight('pos', [MAX_POSITIONS, H], 0.02), positions], { axis: 0 })]);
  if (hasTypes) x = op('Add', [x, op('Gather', [weight('type', [2, H], 0.02), 'token_type_ids'], { axis: 0 })]);
  x = layerNorm(x, 'emb_ln');

  // Self-attention over the unpadded tokens: padding gets -10000 before the softmax.
  const split = (t) => op('Transpose', [op('Reshape', [t, ints(id('shape'), [0, 0, heads, d])])], { perm: [0, 2, 1, 3] });
  const q = split(linear(x, 'q', H, H));
  const k = op('Transpose', [op('Reshape', [linear(x, 'k', H, H), ints(id('shape'), [0, 0, heads, d])])], { perm: [0, 2, 3, 1] });
  const v = split(linear(x, 'v', H, H));
  const mask = op('Cast', ['attention_mask'], { to: T.FLOAT });
  const bias = op('Unsqueeze', [
    op('Mul', [op('Sub', [constant('one_f', [], [1]), mask]), constant('neg', [], [-10000])]),
    ints('axes_12', [1, 2]),
  ]);
  const scores = op('Add', [op('Mul', [op('MatMul', [q, k]), constant('inv_sqrt_d', [], [1 / Math.sqrt(d)])]), bias]);
  const context = op('MatMul', [op('Softmax', [scores], { axis: -1 }), v]);
  const merged = op('Reshape', [op('Transpose', [context], { perm: [0, 2, 1, 3] }), ints('shape_merge', [0, 0, H])]);
  const h1 = layerNorm(op('Add', [linear(merged, 'o', H, H), x]), 'attn_ln');
  // Feed-forward with exact GELU: 0.5·u·(1 + erf(u/√2)).
  const u = linear(h1, 'ffn_in', H, I);
  const gelu = op('Mul', [
    op('Mul', [u, constant('half', [], [0.5])]),
    op('Add', [op('Erf', [op('Mul', [u, constant('inv_sqrt2', [], [Math.SQRT1_2])])]), 'one_f']),
  ]);
  const out = layerNorm(op('Add', [linear(gelu, 'ffn_out', I, H), h1]), 'ffn_ln');
  nodes.push(node('Identity', [out], ['last_hidden_state']));

  const ids = ['batch_size', 'sequence_length'];
  const inputs = ['input_ids', 'attention_mask', ...(hasTypes ? ['token_type_ids'] : [])].map((name) => valueInfo(name, T.INT64, ids));
  const outputs = [valueInfo('last_hidden_state', T.FLOAT, [...ids, H])];
  if (kind === 'reranker') {
    // Pooler over the first token, then one relevance logit.
    const first = op('Gather', ['last_hidden_state', zero], { axis: 1 });
    const pooled = op('Tanh', [linear(first, 'pooler', H, H)]);
    nodes.push(node('Identity', [linear(pooled, 'classifier', H, 1)], ['logits']));
    outputs.splice(0, 1, valueInfo('logits', T.FLOAT, ['batch_size', 1]));
  }
  const model = onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 17 }],
    producerName: 'recollect/scripts/build-test-models.mjs',
    producerVersion: String(BUILD_VERSION),
    docString: `Random-weight stand-in for ${spec.id} (tests only).`,
    graph: { name: 'test_encoder', node: nodes, initializer: init, input: inputs, output: outputs },
  });
  return onnx.ModelProto.encode(model).finish();
}

// ---------------------------------------------------------------------------------------------
// Tokenizers.
function englishWords(limit) {
  const file = join(repoRoot, 'public/models/recollect/glove-100d-sif/tokenizer.json');
  if (!existsSync(file)) throw new Error(`${file} is missing: run node scripts/build-offline-model.mjs first (npm install does).`);
  const vocab = Object.keys(JSON.parse(readFileSync(file, 'utf8')).model.vocab);
  return vocab.filter((w) => /^[a-z]+$/.test(w)).slice(0, limit);
}

const addedToken = (content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
const special = (content, typeId) => ({ SpecialToken: { id: content, type_id: typeId } });
const seq = (name, typeId) => ({ Sequence: { id: name, type_id: typeId } });
const specialMap = (tokens, ids) => Object.fromEntries(tokens.map((t) => [t, { id: t, ids: [ids[t]], tokens: [t] }]));

function wordPieceTokenizer() {
  const specials = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  const chars = 'abcdefghijklmnopqrstuvwxyz0123456789.,!?\'"-:;()'.split('');
  const pieces = [
    ...specials,
    ...chars,
    ...chars.map((c) => `##${c}`),
    ...['s', 'ed', 'ing', 'er', 'ly', 'es'].map((p) => `##${p}`),
    ...englishWords(3000),
  ];
  const vocab = {};
  for (const p of pieces) if (!(p in vocab)) vocab[p] = Object.keys(vocab).length;
  return {
    vocabSize: Object.keys(vocab).length,
    json: {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: specials.map((t) => addedToken(t, vocab[t])),
      normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
      pre_tokenizer: { type: 'BertPreTokenizer' },
      post_processor: {
        type: 'TemplateProcessing',
        single: [special('[CLS]', 0), seq('A', 0), special('[SEP]', 0)],
        pair: [special('[CLS]', 0), seq('A', 0), special('[SEP]', 0), seq('B', 1), special('[SEP]', 1)],
        special_tokens: specialMap(['[CLS]', '[SEP]'], vocab),
      },
      decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
      model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
    },
    config: {
      tokenizer_class: 'BertTokenizer',
      do_lower_case: true,
      model_max_length: 512,
      unk_token: '[UNK]',
      pad_token: '[PAD]',
      cls_token: '[CLS]',
      sep_token: '[SEP]',
      mask_token: '[MASK]',
      clean_up_tokenization_spaces: true,
    },
  };
}

/** Words and characters of several scripts, so Chinese, Japanese and Korean text tokenises. */
function multilingualPieces() {
  const european = [
    'le',
    'la',
    'les',
    'et',
    'est',
    'chien',
    'maison',
    'der',
    'die',
    'das',
    'und',
    'ist',
    'hund',
    'haus',
    'el',
    'los',
    'perro',
    'casa',
    'y',
    'es',
  ];
  const ranges = [
    [0x4e00, 0x4fff],
    [0x3041, 0x3096],
    [0x30a1, 0x30fa],
    [0xac00, 0xac00 + 400],
  ];
  const cjk = ranges.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => String.fromCodePoint(a + i)));
  const latin = 'abcdefghijklmnopqrstuvwxyz0123456789.,!?\'"-:;()'.split('');
  const words = [...englishWords(2500), ...european];
  // Unigram scores: log-probabilities; whole words beat their spelling-out, characters are the floor.
  return [
    ...words.map((w, i) => [`▁${w}`, -4 - Math.log1p(i) / 2]),
    ['▁', -5],
    ...latin.map((c) => [c, -12]),
    ...latin.map((c) => [`▁${c}`, -12.5]),
    ...cjk.map((c, i) => [c, -9 - (i % 7) / 10]),
  ];
}

function unigramTokenizer(family) {
  const specials = family === 'xlmr' ? ['<s>', '<pad>', '</s>', '<unk>'] : ['[PAD]', '[CLS]', '[SEP]', '[UNK]'];
  const [cls, sep, unk, pad] = family === 'xlmr' ? ['<s>', '</s>', '<unk>', '<pad>'] : ['[CLS]', '[SEP]', '[UNK]', '[PAD]'];
  const seen = new Set();
  const vocab = [...specials.map((t) => [t, 0]), ...multilingualPieces()].filter(([p]) => (seen.has(p) ? false : (seen.add(p), true)));
  if (family === 'xlmr') vocab.push(['<mask>', 0]);
  else vocab.push(['[MASK]', 0]);
  const index = Object.fromEntries(vocab.map(([p], i) => [p, i]));
  const pair =
    family === 'xlmr'
      ? [special(cls, 0), seq('A', 0), special(sep, 0), special(sep, 0), seq('B', 0), special(sep, 0)]
      : [special(cls, 0), seq('A', 0), special(sep, 0), seq('B', 1), special(sep, 1)];
  const mask = family === 'xlmr' ? '<mask>' : '[MASK]';
  return {
    vocabSize: vocab.length,
    json: {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: [...specials, mask].map((t) => addedToken(t, index[t])),
      normalizer: {
        type: 'Sequence',
        normalizers: [{ type: 'NFKC' }, { type: 'Lowercase' }, { type: 'Replace', pattern: { Regex: ' {2,}' }, content: ' ' }],
      },
      pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
      post_processor: {
        type: 'TemplateProcessing',
        single: [special(cls, 0), seq('A', 0), special(sep, 0)],
        pair,
        special_tokens: specialMap([cls, sep], index),
      },
      decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
      model: { type: 'Unigram', unk_id: index[unk], vocab, byte_fallback: false },
    },
    config: {
      tokenizer_class: family === 'xlmr' ? 'XLMRobertaTokenizer' : 'DebertaV2Tokenizer',
      model_max_length: 512,
      bos_token: cls,
      eos_token: sep,
      cls_token: cls,
      sep_token: sep,
      unk_token: unk,
      pad_token: pad,
      mask_token: mask,
      clean_up_tokenization_spaces: true,
    },
  };
}

function configJson(spec, vocabSize) {
  const base = {
    hidden_size: spec.hidden,
    num_hidden_layers: 1,
    num_attention_heads: spec.heads,
    intermediate_size: spec.hidden,
    vocab_size: vocabSize,
    max_position_embeddings: MAX_POSITIONS,
    pad_token_id: spec.family === 'xlmr' ? 1 : 0,
    'transformers.js_config': { dtype: 'q8' },
    recollect: { test_model: true, build_version: BUILD_VERSION, note: 'Random weights: tests the path, not quality.' },
  };
  if (spec.family === 'deberta') {
    return {
      ...base,
      model_type: 'deberta-v2',
      architectures: ['DebertaV2ForSequenceClassification'],
      type_vocab_size: 0,
      id2label: { 0: 'LABEL_0' },
      label2id: { LABEL_0: 0 },
    };
  }
  const arch = spec.kind === 'reranker' ? 'BertForSequenceClassification' : 'BertModel';
  return {
    ...base,
    model_type: 'bert',
    architectures: [arch],
    type_vocab_size: 2,
    ...(spec.kind === 'reranker' ? { id2label: { 0: 'LABEL_0' }, label2id: { LABEL_0: 0 } } : {}),
  };
}

export async function buildTestHub(dir = outDir) {
  const stampFile = join(dir, 'build-info.json');
  const stamp = JSON.stringify({ version: BUILD_VERSION, models: TEST_MODELS.map((m) => m.id) });
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return dir;
  const tokenizers = { bert: wordPieceTokenizer(), xlmr: unigramTokenizer('xlmr'), deberta: unigramTokenizer('deberta') };
  for (const spec of TEST_MODELS) {
    const tok = tokenizers[spec.family];
    const root = join(dir, spec.id, 'resolve/main');
    await mkdir(join(root, 'onnx'), { recursive: true });
    const files = {
      'config.json': JSON.stringify(configJson(spec, tok.vocabSize), null, 2),
      'tokenizer.json': JSON.stringify(tok.json),
      'tokenizer_config.json': JSON.stringify(tok.config, null, 2),
      'onnx/model_quantized.onnx': buildGraph(spec, tok.vocabSize),
    };
    for (const f of FILES) await writeFile(join(root, f), files[f]);
  }
  await writeFile(stampFile, stamp);
  return dir;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = await buildTestHub();
  console.log(`test model hub: ${dir}`);
}
