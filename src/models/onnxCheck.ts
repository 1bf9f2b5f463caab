/**
 * A cheap look at whether some bytes can be an ONNX model, before onnxruntime is given them.
 *
 * Why: in a browser, transformers.js 4.3.1 chains every session creation on one module-level
 * promise (`webInitChain` in src/backends/onnx.js) and never clears a rejection, so one file that
 * fails to parse makes every later model load in that worker fail with the same error until the
 * page is reloaded (huggingface/transformers.js#1767 describes the same pattern). A damaged
 * download or cache entry must therefore be caught before it reaches onnxruntime.
 *
 * The check walks the top level of the protobuf `ModelProto` as the bytes stream past (no copy,
 * constant memory): every field must have a valid wire type and a length inside the file, the
 * file must end on a field boundary, and a graph (field 7) must be present. Random bytes, a cut
 * file, an HTML error page or an empty file fail it; damage inside the graph does not (onnxruntime
 * still reports that one, at the cost above).
 */

const GRAPH_FIELD = 7;

export class OnnxShapeCheck {
  #problem: string | null = null;
  /** What the parser waits for: a tag varint, a value varint, a length varint, or bytes to skip. */
  #state: 'tag' | 'varint' | 'length' | 'skip' = 'tag';
  #varint = 0;
  #shift = 0;
  #skip = 0;
  #field = 0;
  #offset = 0;
  #graph = false;

  /** A problem was found already (no need to read further). */
  get failed(): boolean {
    return this.#problem !== null;
  }

  push(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.length && this.#problem === null) {
      if (this.#state === 'skip') {
        const n = Math.min(this.#skip, chunk.length - i);
        this.#skip -= n;
        i += n;
        this.#offset += n;
        if (this.#skip === 0) this.#state = 'tag';
        continue;
      }
      const byte = chunk[i]!;
      i++;
      this.#offset++;
      if (this.#shift > 49) {
        this.#problem = `a number longer than any length in the file at byte ${this.#offset}`;
        break;
      }
      this.#varint += (byte & 0x7f) * 2 ** this.#shift;
      this.#shift += 7;
      if (byte & 0x80) continue;
      const value = this.#varint;
      this.#varint = 0;
      this.#shift = 0;
      this.#done(value);
    }
  }

  #done(value: number): void {
    if (this.#state === 'tag') {
      const wire = value % 8;
      this.#field = Math.floor(value / 8);
      if (this.#field === 0) this.#problem = `field number 0 at byte ${this.#offset}`;
      else if (wire === 0) this.#state = 'varint';
      else if (wire === 2) this.#state = 'length';
      else if (wire === 1 || wire === 5) [this.#state, this.#skip] = ['skip', wire === 1 ? 8 : 4];
      else this.#problem = `wire type ${wire} at byte ${this.#offset}, which a model file does not use`;
      return;
    }
    if (this.#state === 'length') {
      if (this.#field === GRAPH_FIELD) this.#graph = true;
      this.#skip = value;
      this.#state = value === 0 ? 'tag' : 'skip';
      return;
    }
    this.#state = 'tag';
  }

  /** Null when the bytes can be a model, else what is wrong with them. */
  finish(): string | null {
    if (this.#problem) return this.#problem;
    if (this.#offset === 0) return 'the file is empty';
    if (this.#state !== 'tag' || this.#shift > 0) return `the file ends in the middle of a field (after ${this.#offset} bytes)`;
    if (!this.#graph) return 'the file has no model graph';
    return null;
  }
}

/** Reads a stream through the check; resolves to null or what is wrong. */
export async function checkOnnxStream(stream: ReadableStream<Uint8Array>): Promise<string | null> {
  const check = new OnnxShapeCheck();
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    check.push(value);
    if (check.failed) {
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  return check.finish();
}

/**
 * Passes a model file's bytes through unchanged (progress keeps flowing) and errors the stream at
 * its end if they cannot be a model, so transformers.js neither caches nor loads them.
 */
export function onnxCheckingStream(): TransformStream<Uint8Array, Uint8Array> {
  const check = new OnnxShapeCheck();
  return new TransformStream({
    transform(chunk, controller) {
      check.push(chunk);
      controller.enqueue(chunk);
    },
    flush(controller) {
      const problem = check.finish();
      if (problem) controller.error(new Error(`not an ONNX model: ${problem}`));
    },
  });
}
