/**
 * TransformersEmbedder pools 'mean' / 'cls' itself instead of asking the feature-extraction
 * pipeline to. These tests pin that the vectors are the pipeline's (pooling + normalize: true,
 * NaN mapped to zero) for the bundled model, and check the pooling and int64 helpers against
 * transformers.js on synthetic tensors.
 */
import { mean_pooling, pipeline, Tensor, type FeatureExtractionPipeline } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_MODEL_ID, type CatalogEntry } from '../../src/models/catalog';
import { clipText } from '../../src/models/loadOptions';
import { finiteOrZero, int64Tensor, poolRows, TransformersEmbedder } from '../../src/models/TransformersEmbedder';
import { fetchCalls, setUpOfflineModels } from './helpers';

let embedder: TransformersEmbedder;
let pipe: FeatureExtractionPipeline;

beforeAll(async () => {
  setUpOfflineModels();
  embedder = await TransformersEmbedder.create(BUNDLED_MODEL_ID);
  pipe = await pipeline('feature-extraction', BUNDLED_MODEL_ID, { dtype: embedder.entry.dtype });
}, 60_000);

afterAll(async () => {
  await embedder?.dispose();
  await pipe?.dispose();
  expect(fetchCalls).toEqual([]);
});

/** The previous implementation: the pipeline pools and normalises one batch; NaN rows become zero. */
async function pipelineVectors(texts: readonly string[], entry: CatalogEntry, prefix = ''): Promise<Float32Array[]> {
  const batch = texts.map((t) => prefix + clipText(t, entry.maxTokens));
  const tensor = await pipe(batch, { pooling: entry.pooling ?? 'mean', normalize: true });
  const dim = tensor.dims[1]!;
  const data = tensor.data as Float32Array;
  return batch.map((_, row) => finiteOrZero(data.slice(row * dim, (row + 1) * dim)));
}

function maxAbsDiff(a: readonly Float32Array[], b: readonly Float32Array[]): number {
  expect(a).toHaveLength(b.length);
  let max = 0;
  a.forEach((v, i) => {
    expect(v).toHaveLength(b[i]!.length);
    for (let k = 0; k < v.length; k++) max = Math.max(max, Math.abs(v[k]! - b[i]![k]!));
  });
  return max;
}

const longText = 'we talked about the garden, the rain and my sister. '.repeat(2500);
const mixed = Array.from({ length: 45 }, (_, i) =>
  i % 9 === 0 ? '' : `${'the puppy chased a ball across the park '.repeat(i % 6)}note ${i} qwxzzy`.trim(),
);

describe('TransformersEmbedder own pooling matches the pipeline (bundled model)', () => {
  it.each([
    ['empty string', ['']],
    ['all-unknown words', ['qwxzzy blorf fnarg']],
    ['emoji and whitespace', ['😀🎉', ' \n\t ']],
    ['very long text (clipped and truncated)', [longText]],
    [
      'a batch of mixed lengths',
      ['hi', 'I adopted a puppy last week and we walk in the park every morning before work.', '', 'qwxzzy', longText],
    ],
  ])('mean pooling: %s', async (_label, texts) => {
    const got = await embedder.embed(texts);
    const want = await pipelineVectors(texts, embedder.entry);
    expect(maxAbsDiff(got, want)).toBeLessThanOrEqual(1e-5);
  });

  it('keeps pipeline vectors across length-sorted internal batches (45 texts, batch 32)', async () => {
    const got = await embedder.embed(mixed);
    // Reference per text, so padding and batch membership differ from the embedder's batches.
    const want: Float32Array[] = [];
    for (const t of mixed) want.push(...(await pipelineVectors([t], embedder.entry)));
    expect(maxAbsDiff(got, want)).toBeLessThanOrEqual(1e-5);
    expect(got.filter((v) => v.every((x) => x === 0))).toHaveLength(mixed.filter((t) => t === '').length);
  });

  it("cls pooling and the query prefix match the pipeline's", async () => {
    const entry: CatalogEntry = { ...embedder.entry, pooling: 'cls', queryPrefix: 'find the dog: ' };
    const cls = await TransformersEmbedder.create(BUNDLED_MODEL_ID, { entry });
    try {
      const texts = ['my new dog', '', 'quarterly earnings beat expectations'];
      const got = await cls.embed(texts, 'query');
      const want = await pipelineVectors(texts, entry, entry.queryPrefix);
      expect(maxAbsDiff(got, want)).toBeLessThanOrEqual(1e-5);
    } finally {
      await cls.dispose();
    }
  });
});

describe('poolRows', () => {
  // Deterministic pseudo-random states; masked positions hold large values that must not leak in.
  const [batch, tokens, dim] = [4, 7, 16];
  const lengths = [7, 3, 1, 5];
  let s = 7;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
  const states = Float32Array.from({ length: batch * tokens * dim }, (_, i) => {
    const [b, t] = [Math.floor(i / (tokens * dim)), Math.floor(i / dim) % tokens];
    return t < lengths[b]! ? rand() : 1e6;
  });
  const mask = lengths.map((n) => Array.from({ length: tokens }, (_, t) => (t < n ? 1 : 0)));
  const hidden = () => new Tensor('float32', states.slice(), [batch, tokens, dim]);

  it('equals transformers.js mean_pooling + normalize(2, -1) bit for bit', () => {
    const want = mean_pooling(hidden(), int64Tensor(mask)).normalize(2, -1).data as Float32Array;
    const got = poolRows(hidden(), mask, 'mean');
    got.forEach((row, b) => expect(Array.from(row)).toEqual(Array.from(want.subarray(b * dim, (b + 1) * dim))));
  });

  it('takes the first token for cls', () => {
    const want = hidden().slice(null, 0).normalize(2, -1).data as Float32Array;
    const got = poolRows(hidden(), mask, 'cls');
    got.forEach((row, b) => expect(Array.from(row)).toEqual(Array.from(want.subarray(b * dim, (b + 1) * dim))));
  });

  it('gives NaN for an all-zero row (like the library), which finiteOrZero maps to zeros', () => {
    const zeros = new Tensor('float32', new Float32Array(2 * 3 * 4), [2, 3, 4]);
    const [row] = poolRows(
      zeros,
      [
        [1, 1, 0],
        [1, 1, 1],
      ],
      'mean',
    );
    expect(row!.every(Number.isNaN)).toBe(true);
    expect(Array.from(finiteOrZero(row!))).toEqual([0, 0, 0, 0]);
  });
});

describe('int64Tensor', () => {
  it('matches BigInt conversion for ids, masks, negatives and values beyond int32', () => {
    const rows = [
      [101, 2023, 0, -1],
      [2 ** 31 - 1, -(2 ** 31), 2 ** 40 + 3, -(2 ** 33)],
    ];
    const t = int64Tensor(rows);
    expect(t.type).toBe('int64');
    expect(t.dims).toEqual([2, 4]);
    expect(Array.from(t.data as BigInt64Array)).toEqual(rows.flat().map(BigInt));
  });

  it('rejects ragged rows', () => {
    expect(() => int64Tensor([[1, 2], [3]])).toThrow(/ragged/);
  });
});
