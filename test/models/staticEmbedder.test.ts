/**
 * The bundled model as a plain lookup (StaticEmbedder) gives the same token ids and the same
 * vectors as the ONNX graph run by transformers.js (TransformersEmbedder, q8, onnxruntime-node):
 * stored vectors keep their `vectorId`, so nothing is re-embedded when the runtime changes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AutoTokenizer, type PreTrainedTokenizer } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_MODEL_ID, findModel } from '../../src/models/catalog';
import { nodeStaticReader, REPO_MODELS_DIR } from '../../src/models/nodeEnv';
import { StaticEmbedder, type StaticManifest } from '../../src/models/StaticEmbedder';
import { TransformersEmbedder } from '../../src/models/TransformersEmbedder';
import { fetchCalls, setUpOfflineModels } from './helpers';

const entry = findModel(BUNDLED_MODEL_ID, 'embedder')!;
let onnx: TransformersEmbedder;
let lookup: StaticEmbedder;
let tokenizer: PreTrainedTokenizer;

beforeAll(async () => {
  setUpOfflineModels();
  onnx = await TransformersEmbedder.create(BUNDLED_MODEL_ID);
  tokenizer = await AutoTokenizer.from_pretrained(BUNDLED_MODEL_ID);
  lookup = await StaticEmbedder.load(entry, nodeStaticReader(BUNDLED_MODEL_ID));
}, 60_000);

afterAll(async () => {
  await onnx?.dispose();
  expect(fetchCalls).toEqual([]);
});

const longText = Array.from({ length: 700 }, (_, i) => ['memory', 'river', 'qwxzzy', 'Paris,', 'dog!', '42'][i % 6]).join(' ');
const TEXTS: readonly string[] = [
  'My dog Biscuit is a beagle mix.',
  'The FLIGHT to Lisbon leaves at noon, gate B12 — don’t be late!!!',
  'qwxzzy blorfmatic snargle', // unknown words only: a zero vector
  'unknown qwxzzy mixed with known words',
  '...,,;;::!!??',
  'e-mail me at someone@example.com or visit https://example.org/a?b=c#d',
  'Café naïve résumé coöperate',
  'ＦＵＬＬＷＩＤＴＨ ｔｅｘｔ and ﬁ ligatures ½ ①',
  '我的狗叫饼干', // CJK: no vocabulary entries, a zero vector
  '私の犬 and my dog',
  '😀🎉 party time 🚀',
  'tabs\tand\nnewlines\r\n  and   spaces  ',
  'literal [CLS] and [SEP] and [UNK] tokens, [PAD] too; [cls] lower and [CLS[SEP]]',
  'numbers 1 12 123 1,000 3.14 2026-01-03 10:30pm',
  "it's the user's 'quoted' \"double\" (parenthesised) [bracketed] {braced}",
  '',
  '   ',
  longText, // over 512 tokens: cut to 512 with [CLS], no [SEP]
  'word '.repeat(509) + 'river memory', // exactly at the cut
];

describe('StaticEmbedder (bundled model, no inference runtime)', () => {
  it('gives the token ids of the model tokenizer, cut where transformers.js cuts', () => {
    for (const text of TEXTS) {
      const expected = (tokenizer(text, { truncation: true, return_tensor: false }) as unknown as { input_ids: number[] }).input_ids;
      expect(lookup.tokenIds(text), text.slice(0, 60)).toEqual(expected);
    }
    expect(lookup.tokenIds(longText)).toHaveLength(512);
  });

  it('gives the token ids of transformers.js AutoTokenizer on text in many languages', () => {
    // Real-length turns: a German one with ß and umlauts, an Arabic one, a 3,000-character one.
    const german = 'Straße, Größe, Übermaß und Fußgängerzone: Jürgen aß in München Käsespätzle. '.repeat(4);
    const arabic = 'ذهبت إلى السوق يوم الجمعة واشتريت الخبز والزيتون، ثم عدت إلى البيت.';
    const long = Array.from(
      { length: 60 },
      (_, i) => `Turn ${i}: the meeting about the budget moved to Thursday; [CLS] see the table |a|b| and \`code()\`.`,
    ).join(' ');
    expect(long.length).toBeGreaterThan(3_000);
    const texts = [
      'I moved to Lisbon in March and my flight leaves Friday at 9:45.',
      german,
      'GROSSBUCHSTABEN: STRASSE ẞ — Ärger, Öl, Übel',
      '我上周去了北京，和朋友一起吃了烤鸭。',
      '先週、東京で友達と寿司を食べました。カタカナとひらがな。',
      arabic,
      'Party 🎉🥳 with the 👩‍👩‍👧 family, flags 🇵🇹 and skin tones 👍🏽',
      'She typed [CLS] and [SEP] literally, then [UNK][PAD] and [cls].',
      'Mixed: dog Hund 狗 犬 كلب 🐕',
      long,
    ];
    for (const text of texts) {
      const expected = (tokenizer(text, { truncation: true, return_tensor: false }) as unknown as { input_ids: number[] }).input_ids;
      expect(lookup.tokenIds(text), text.slice(0, 60)).toEqual(expected);
    }
    // The long turn is cut where transformers.js cuts it: 512 ids, the first [CLS], no [SEP].
    const cut = lookup.tokenIds(long);
    expect(cut).toHaveLength(512);
    expect(cut[0]).toBe(2);
    expect(cut[511]).not.toBe(3);
    // Known words are found in every script the vocabulary has (German and English here), not [UNK].
    expect(lookup.tokenIds(german).filter((id) => id > 3).length).toBeGreaterThan(10);
  });

  it('gives the same vectors as the ONNX model, one text at a time and in batches', async () => {
    const expected = await onnx.embed(TEXTS, 'document');
    const got = await lookup.embed(TEXTS, 'document');
    const queries = await lookup.embed(TEXTS, 'query');
    for (const [i, text] of TEXTS.entries()) {
      const e = expected[i]!;
      const g = got[i]!;
      expect(g, text.slice(0, 60)).toHaveLength(100);
      let maxDiff = 0;
      for (let k = 0; k < e.length; k++) maxDiff = Math.max(maxDiff, Math.abs(e[k]! - g[k]!));
      expect(maxDiff, text.slice(0, 60)).toBeLessThanOrEqual(1e-6);
      expect(Array.from(queries[i]!)).toEqual(Array.from(g)); // no query prefix for this model
    }
    const [single] = await onnx.embed([TEXTS[1]!]);
    expect(Array.from(got[1]!)).toEqual(Array.from(single!));
  });

  it('gives zero vectors (never NaN) for text without a known word, and unit vectors otherwise', async () => {
    const [zeroUnknown, zeroCjk, zeroEmpty, dog] = await lookup.embed(['qwxzzy blorf', '我的狗叫饼干', '', 'my dog']);
    for (const v of [zeroUnknown!, zeroCjk!, zeroEmpty!]) expect(v.every((x) => x === 0)).toBe(true);
    const norm = Math.hypot(...dog!);
    expect(norm).toBeCloseTo(1, 5);
  });

  it('refuses files that do not belong together', () => {
    const dir = join(REPO_MODELS_DIR, BUNDLED_MODEL_ID, 'static');
    const manifest = JSON.parse(readFileSync(join(dir, 'static.json'), 'utf8')) as StaticManifest;
    const vocab = readFileSync(join(dir, manifest.vocab), 'utf8');
    const table = new ArrayBuffer(manifest.rows * (4 + manifest.dim));
    expect(() => StaticEmbedder.fromFiles(entry, { manifest, vocab, table: new ArrayBuffer(10) })).toThrow(/inconsistent/);
    expect(() => StaticEmbedder.fromFiles(entry, { manifest, vocab: 'a\nb', table })).toThrow(/vocabulary lines/);
    expect(() => StaticEmbedder.fromFiles(entry, { manifest: { ...manifest, format: 'other@9' }, vocab, table })).toThrow(/format/);
    expect(() => StaticEmbedder.fromFiles(entry, { manifest, vocab, table })).not.toThrow();
  });
});
