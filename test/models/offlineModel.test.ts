import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AutoModelForSequenceClassification, AutoTokenizer, type Tensor } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_MODEL_ID } from '../../src/models/catalog';
import { REPO_MODELS_DIR } from '../../src/models/nodeEnv';
import { TransformersEmbedder } from '../../src/models/TransformersEmbedder';
import { TransformersReranker } from '../../src/models/TransformersReranker';
import { dot, fetchCalls, setUpOfflineModels } from './helpers';

let embedder: TransformersEmbedder;
let reranker: TransformersReranker;

beforeAll(async () => {
  setUpOfflineModels();
  embedder = await TransformersEmbedder.create(BUNDLED_MODEL_ID);
  reranker = await TransformersReranker.create(BUNDLED_MODEL_ID);
}, 60_000);

afterAll(async () => {
  await embedder?.dispose();
  await reranker?.dispose();
  expect(fetchCalls).toEqual([]);
});

describe('build-offline-model output', () => {
  const dir = join(REPO_MODELS_DIR, BUNDLED_MODEL_ID);

  it('has the transformers.js layout and a build stamp', () => {
    for (const f of [
      'config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'onnx/model_quantized.onnx',
      'onnx/model.onnx',
      'build-info.json',
    ]) {
      expect(existsSync(join(dir, f)), f).toBe(true);
    }
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(config).toMatchObject({ model_type: 'bert', hidden_size: 100, vocab_size: 50_004 });
    expect(Object.keys(config.id2label)).toHaveLength(1);
  });

  it('tokenizes whole words with [CLS] A [SEP] B [SEP] and segment ids', async () => {
    const tok = await AutoTokenizer.from_pretrained(BUNDLED_MODEL_ID);
    const enc = tok('My DOG, qwxzzy!', { text_pair: 'the puppy', return_tensor: false }) as unknown as {
      input_ids: number[];
      token_type_ids: number[];
    };
    const tokens = enc.input_ids.map((id) => tok.decode([id]));
    expect(tokens).toEqual(['[CLS]', 'my', 'dog', ',', '[UNK]', '!', '[SEP]', 'the', 'puppy', '[SEP]']);
    expect(enc.token_type_ids).toEqual([0, 0, 0, 0, 0, 0, 0, 1, 1, 1]);
  });

  it('loads as a sequence classifier with one logit per pair', async () => {
    const tok = await AutoTokenizer.from_pretrained(BUNDLED_MODEL_ID);
    const model = await AutoModelForSequenceClassification.from_pretrained(BUNDLED_MODEL_ID, { dtype: 'q8' });
    const inputs = tok(['a', 'b'], { text_pair: ['c', 'd'], padding: true, truncation: true });
    const { logits } = (await model(inputs)) as { logits: Tensor };
    expect(logits.dims).toEqual([2, 1]);
    await model.dispose();
  });

  it('fp32 and int8 models agree', async () => {
    const fp32 = await TransformersEmbedder.create(BUNDLED_MODEL_ID, {
      entry: { ...embedder.entry, dtype: 'fp32' },
    });
    const texts = ['the weather is lovely today', 'quarterly earnings beat expectations'];
    const [a, b] = [await fp32.embed(texts), await embedder.embed(texts)];
    for (let i = 0; i < texts.length; i++) expect(dot(a[i]!, b[i]!)).toBeGreaterThan(0.995);
    await fp32.dispose();
  });
});

describe('TransformersEmbedder (bundled GloVe-SIF)', () => {
  it('returns unit vectors of the model dimension', async () => {
    const [v] = await embedder.embed(['hello world']);
    expect(embedder.dim).toBe(100);
    expect(embedder.id).toBe('recollect/glove-100d-sif@1');
    expect(v).toHaveLength(100);
    expect(dot(v!, v!)).toBeCloseTo(1, 4);
  });

  const labelled: [anchor: string, similar: string, unrelated: string][] = [
    ['I adopted a puppy last week', 'my new dog', 'the stock market fell'],
    ['We flew to Paris for our honeymoon', 'a trip to France after the wedding', 'the printer is out of toner'],
    ['My sister is a nurse at the hospital', 'she works in healthcare caring for patients', 'the football season starts in August'],
    ['I am allergic to peanuts', 'nut allergy and food reactions', 'my laptop battery died'],
    ['The interest rates went up again', 'the central bank raised borrowing costs', 'we planted tomatoes in the garden'],
  ];

  it('puts similar sentences closer than unrelated ones', async () => {
    for (const [anchor, similar, unrelated] of labelled) {
      const [a, s, u] = await embedder.embed([anchor, similar, unrelated]);
      expect(dot(a!, s!), `${anchor} ~ ${similar}`).toBeGreaterThan(dot(a!, u!));
    }
  });

  it('keeps input order across length-sorted batches', async () => {
    const texts = Array.from({ length: 70 }, (_, i) => `${'word '.repeat(i % 13)}item ${i % 7 === 0 ? 'dog' : 'market'}`);
    const small = new Array<Float32Array>();
    for (const t of texts) small.push((await embedder.embed([t]))[0]!);
    const batched = await embedder.embed(texts);
    for (let i = 0; i < texts.length; i++) expect(dot(batched[i]!, small[i]!)).toBeCloseTo(1, 4);
  });

  it.each([
    ['empty', ''],
    ['unknown words', 'qwxzzy blorf'],
    ['emoji only', '😀🎉🚀'],
    ['whitespace', ' \n\t '],
  ])('gives a finite zero vector for %s', async (_label, text) => {
    const [v] = await embedder.embed([text]);
    expect(v).toHaveLength(100);
    expect(v!.every((x) => x === 0)).toBe(true);
  });

  it('handles a 100 kB text (truncated) with a finite unit vector', async () => {
    const text = 'the quick brown fox jumps over the lazy dog. '.repeat(2300);
    expect(text.length).toBeGreaterThan(100_000);
    const [v] = await embedder.embed([text]);
    expect(v!.every(Number.isFinite)).toBe(true);
    expect(dot(v!, v!)).toBeCloseTo(1, 4);
  });

  it('returns [] for no texts', async () => {
    expect(await embedder.embed([])).toEqual([]);
  });
});

describe('TransformersReranker (bundled stand-in)', () => {
  it('orders documents by relevance', async () => {
    const docs = ['the stock market fell sharply', 'my new dog loves the park', 'recipes for vegetable soup'];
    const scores = await reranker.rerank('I adopted a puppy last week', docs);
    expect(scores).toHaveLength(3);
    expect(scores[1]).toBeGreaterThan(scores[0]!);
    expect(scores[1]).toBeGreaterThan(scores[2]!);
  });

  it('equals the cosine of the two embeddings (same sign, same value)', async () => {
    const query = 'interest rates and inflation';
    const docs = ['the central bank raised rates', 'a cat sleeping on the sofa', 'not', 'quarterly profits'];
    const scores = await reranker.rerank(query, docs);
    const [q, ...d] = await embedder.embed([query, ...docs]);
    d.forEach((v, i) => {
      const cos = dot(q!, v);
      expect(Math.sign(scores[i]!)).toBe(Math.sign(cos));
      expect(scores[i]!).toBeCloseTo(cos, 3);
    });
  });

  it('scores 0, never NaN, when a side has no known words', async () => {
    const scores = await reranker.rerank('qwxzzy', ['my dog', '', '😀']);
    expect(scores).toEqual([0, 0, 0]);
    expect(await reranker.rerank('', ['my dog'])).toEqual([0]);
  });

  it('batches many documents and keeps their order', async () => {
    const docs = Array.from({ length: 75 }, (_, i) => (i % 5 === 0 ? 'a dog and a puppy' : `stock market report ${i}`));
    const scores = await reranker.rerank('puppy', docs);
    expect(scores).toHaveLength(75);
    scores.forEach((s, i) => {
      if (i % 5 === 0) expect(s).toBeGreaterThan(Math.max(...scores.filter((_, j) => j % 5 !== 0)));
    });
  });
});
