/**
 * Reranker over transformers.js AutoTokenizer + AutoModelForSequenceClassification with
 * (query, document) pair inputs. Returns the raw logit of the single relevance label, one per
 * document in input order (no sigmoid: monotone, so the ordering is the same). For the bundled
 * stand-in the "logit" is the cosine of the two segments' averaged word vectors, in [-1, 1].
 */
import {
  AutoModelForSequenceClassification,
  AutoTokenizer,
  type PreTrainedModel,
  type PreTrainedTokenizer,
  type Tensor,
} from '@huggingface/transformers';
import type { Reranker } from '../core/base/ports';
import type { CatalogEntry } from './catalog';
import { clipText, DEFAULT_BATCH_SIZE, loadWithFallback, resolveEntry, type ModelLoadOptions } from './loadOptions';
import { toModelError } from './modelErrors';
import type { Device } from './transformersEnv';

export class TransformersReranker implements Reranker {
  readonly id: string;
  readonly trust: number;
  readonly entry: CatalogEntry;
  readonly device: Device | undefined;
  private readonly tokenizer: PreTrainedTokenizer;
  private readonly model: PreTrainedModel;
  private readonly batchSize: number;

  private constructor(
    entry: CatalogEntry,
    tokenizer: PreTrainedTokenizer,
    model: PreTrainedModel,
    device: Device | undefined,
    batchSize: number,
  ) {
    this.entry = entry;
    this.id = entry.vectorId;
    this.trust = entry.rerankTrust ?? 0;
    this.tokenizer = tokenizer;
    this.model = model;
    this.device = device;
    this.batchSize = batchSize;
  }

  static async create(modelId: string, options: ModelLoadOptions = {}): Promise<TransformersReranker> {
    const entry = resolveEntry(modelId, 'reranker', options);
    const progress = options.progress ? { progress_callback: options.progress } : {};
    const { value, device } = await loadWithFallback(entry, options, async (device) => {
      // Model first: a missing config.json then raises ModelFileNotFoundError, whereas
      // AutoTokenizer 4.3.1 fails on a missing tokenizer_config.json with a bare TypeError
      // ("reading 'tokenizer_class'").
      const model = await AutoModelForSequenceClassification.from_pretrained(entry.id, {
        dtype: entry.dtype,
        ...(device ? { device } : {}),
        ...progress,
      });
      try {
        return { tokenizer: await AutoTokenizer.from_pretrained(entry.id, progress), model };
      } catch (err) {
        await model.dispose();
        throw err;
      }
    });
    return new TransformersReranker(entry, value.tokenizer, value.model, device, options.batchSize ?? DEFAULT_BATCH_SIZE);
  }

  async rerank(query: string, docs: readonly string[]): Promise<number[]> {
    const scores: number[] = [];
    const q = this.entry.queryPrefix + clipText(query, this.entry.maxTokens);
    for (let start = 0; start < docs.length; start += this.batchSize) {
      const batch = docs.slice(start, start + this.batchSize).map((d) => this.entry.documentPrefix + clipText(d, this.entry.maxTokens));
      try {
        const inputs = this.tokenizer(new Array<string>(batch.length).fill(q), {
          text_pair: batch,
          padding: true,
          truncation: true,
          max_length: this.entry.maxTokens,
        });
        const { logits } = (await this.model(inputs)) as { logits: Tensor };
        const data = logits.data as Float32Array;
        const labels = logits.dims[1] ?? 1;
        // One label: its logit. Several (binary heads): the last one, conventionally "relevant".
        for (let row = 0; row < batch.length; row++) {
          const s = data[row * labels + labels - 1]!;
          // A non-finite score is a model bug; rank it last rather than poisoning the sort.
          scores.push(Number.isFinite(s) ? s : Number.NEGATIVE_INFINITY);
        }
      } catch (err) {
        throw toModelError(err, this.entry.id, this.entry, 'rerank');
      }
    }
    return scores;
  }

  async dispose(): Promise<void> {
    await this.model.dispose();
  }
}
