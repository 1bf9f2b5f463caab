/**
 * The relay transport over Durable Streams (`@durable-streams/client`; docs/sync-spike.md for the
 * choice): one append-only JSON stream per owner at `<relay>/v1/stream/<ownerId>`. Appends go
 * through an idempotent producer (named by the device id and a suffix per producer), so a
 * request retried after a lost response is stored once; reads are catch-up GETs and long-polls.
 *
 * Failures come back as SyncRelayError with a code the sync status shows: the relay could not be
 * reached, the stream is gone (a wiped relay), or it refused. The client's own retry loop is cut
 * short (a few attempts) so a down relay is reported in seconds, and the sync service's loop does
 * the waiting.
 */
import { DurableStream, DurableStreamError, FetchError, IdempotentProducer, stream } from '@durable-streams/client';
import type { SealedEvent } from '../core/sync/syncEnvelope';
import { SyncRelayError, type RelayBatch, type SyncRelay } from '../core/sync/syncPorts';

/** The marker stream beside a retired owner's (relay/…/<ownerId>.retired): empty; its existence is the message. */
const RETIRED_SUFFIX = '.retired';

/** A short random suffix naming one producer's lifetime (see append). */
function newProducerSuffix(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, '0')).join('');
}

const BACKOFF = { initialDelay: 100, maxDelay: 1_000, multiplier: 2, maxRetries: 2 };

function asRelayError(error: unknown, relayUrl: string): SyncRelayError {
  if (error instanceof SyncRelayError) return error;
  if (error instanceof DurableStreamError) {
    if (error.code === 'NOT_FOUND' || error.status === 404)
      return new SyncRelayError('stream-missing', 'The relay no longer holds this memory (it was wiped or reset).');
    return new SyncRelayError('relay-refused', `The relay at ${relayUrl} refused the request: ${error.message}`);
  }
  if (error instanceof FetchError && error.status === 404)
    return new SyncRelayError('stream-missing', 'The relay no longer holds this memory (it was wiped or reset).');
  if (error instanceof FetchError && error.status >= 400 && error.status < 500)
    return new SyncRelayError('relay-refused', `The relay at ${relayUrl} refused the request (HTTP ${error.status}).`);
  return new SyncRelayError('relay-unreachable', `The relay at ${relayUrl} cannot be reached.`);
}

export class DurableStreamsRelay implements SyncRelay {
  readonly #base: string;
  readonly #producers = new Map<string, { producer: IdempotentProducer; failed: Error | null }>();

  constructor(relayUrl: string) {
    this.#base = relayUrl.replace(/\/+$/, '');
  }

  #url(ownerId: string): string {
    return `${this.#base}/v1/stream/${encodeURIComponent(ownerId)}`;
  }

  async ensure(ownerId: string): Promise<void> {
    try {
      await DurableStream.create({ url: this.#url(ownerId), contentType: 'application/json' });
      // A new stream (first use, or a wiped relay) knows no producer: sequences start again.
      for (const key of [...this.#producers.keys()]) if (key.startsWith(`${ownerId}/`)) this.#producers.delete(key);
    } catch (error) {
      // Already there (this device's earlier run, or another device's): that is the goal.
      if (error instanceof DurableStreamError && error.code === 'CONFLICT_EXISTS') return;
      throw asRelayError(error, this.#base);
    }
  }

  async append(ownerId: string, producerId: string, items: readonly SealedEvent[]): Promise<void> {
    const key = `${ownerId}/${producerId}`;
    let held = this.#producers.get(key);
    if (!held) {
      const handle = new DurableStream({ url: this.#url(ownerId), contentType: 'application/json', backoffOptions: BACKOFF });
      const entry: { producer: IdempotentProducer; failed: Error | null } = {
        producer: null as unknown as IdempotentProducer,
        failed: null,
      };
      // Each producer gets a name of its own (the device id and a fresh suffix). The relay dedupes
      // by (name, epoch, sequence): a new producer under the old name would start its sequence at 0
      // again, and the relay would drop its first batches as repeats of ones it already holds.
      entry.producer = new IdempotentProducer(handle, `${producerId}-${newProducerSuffix()}`, {
        autoClaim: true,
        lingerMs: 0,
        onError: (error) => {
          entry.failed = error;
        },
      });
      held = entry;
      this.#producers.set(key, held);
    }
    try {
      for (const item of items) held.producer.append(JSON.stringify(item));
      await held.producer.flush();
      if (held.failed) throw held.failed;
    } catch (error) {
      // A producer that failed keeps its sequence state; the next attempt starts a fresh one
      // (a new epoch), and events the relay already stored are deduped by id when read back.
      this.#producers.delete(key);
      throw asRelayError(error, this.#base);
    }
  }

  async retire(ownerId: string): Promise<void> {
    try {
      await DurableStream.create({ url: this.#url(`${ownerId}${RETIRED_SUFFIX}`), contentType: 'application/json' });
    } catch (error) {
      if (!(error instanceof DurableStreamError && error.code === 'CONFLICT_EXISTS')) throw asRelayError(error, this.#base);
    }
    try {
      await DurableStream.delete({ url: this.#url(ownerId) });
    } catch (error) {
      const gone = asRelayError(error, this.#base);
      if (gone.code !== 'stream-missing') throw gone; // already deleted: the goal
    }
    for (const key of [...this.#producers.keys()]) if (key.startsWith(`${ownerId}/`)) this.#producers.delete(key);
  }

  async retired(ownerId: string): Promise<boolean> {
    try {
      return (await DurableStream.head({ url: this.#url(`${ownerId}${RETIRED_SUFFIX}`), backoffOptions: BACKOFF })).exists;
    } catch (error) {
      const relayError = asRelayError(error, this.#base);
      if (relayError.code === 'stream-missing') return false;
      throw relayError;
    }
  }

  async read(ownerId: string, offset: string | null): Promise<RelayBatch> {
    try {
      const res = await stream<unknown>({
        url: this.#url(ownerId),
        live: false,
        backoffOptions: BACKOFF,
        ...(offset ? { offset } : {}),
      });
      const items = await res.json();
      return { items, offset: res.offset };
    } catch (error) {
      throw asRelayError(error, this.#base);
    }
  }

  wait(ownerId: string, offset: string | null): { readonly result: Promise<RelayBatch>; cancel(): void } {
    const abort = new AbortController();
    const result = (async (): Promise<RelayBatch> => {
      try {
        const res = await stream<unknown>({
          url: this.#url(ownerId),
          live: 'long-poll',
          signal: abort.signal,
          backoffOptions: BACKOFF,
          ...(offset ? { offset } : { offset: '-1' }),
        });
        return await new Promise<RelayBatch>((resolve, reject) => {
          let done = false;
          const finish = (batch: RelayBatch) => {
            if (done) return;
            done = true;
            res.cancel();
            resolve(batch);
          };
          abort.signal.addEventListener('abort', () => finish({ items: [], offset: offset ?? '-1' }));
          res.subscribeJson((batch) => {
            // Empty batches (caught up, a long-poll timed out) keep waiting: the client polls again.
            if (batch.items.length > 0) finish({ items: batch.items, offset: batch.offset });
          });
          void res.closed.catch((error: unknown) => {
            if (!done) {
              done = true;
              reject(error);
            }
          });
        });
      } catch (error) {
        if (abort.signal.aborted) return { items: [], offset: offset ?? '-1' };
        throw asRelayError(error, this.#base);
      }
    })();
    return { result, cancel: () => abort.abort() };
  }
}
