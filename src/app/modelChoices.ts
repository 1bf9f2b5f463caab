/**
 * Choices about models that belong to this browser rather than to the memory: which reranker
 * reorders results, and (for tests and people behind a mirror) where downloads come from. Kept in
 * localStorage like the device preference and re-applied to the model worker when the page starts.
 */
import type { ModelWorkerApi, Unwrapped } from '../core/protocol';

const RERANKER_KEY = 'recollect.reranker';
/** A mirror of the Hugging Face Hub in `<repo>/resolve/main/<file>` layout; absent = the Hub. */
export const MODEL_HUB_KEY = 'recollect.model-hub';

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null; // storage disabled: defaults apply
  }
}

function write(key: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // Not kept across reloads; the choice still applies to this page.
  }
}

export const readReranker = (): string | null => read(RERANKER_KEY);
export const readModelHub = (): string | null => read(MODEL_HUB_KEY);
export const saveReranker = (id: string | null): void => write(RERANKER_KEY, id);

/**
 * Applies the saved choices to a fresh model worker. The hub goes first (it decides the cache keys
 * downloads are found under). A saved reranker that no longer loads (its download was evicted) is
 * forgotten, so it is not retried on every start; the Models panel shows why.
 */
export async function applyModelChoices(models: Pick<Unwrapped<ModelWorkerApi>, 'setModelHub' | 'loadReranker'>): Promise<void> {
  const hub = read(MODEL_HUB_KEY);
  if (hub) await models.setModelHub(hub).catch(() => undefined);
  const reranker = readReranker();
  if (reranker) {
    await models.loadReranker(reranker).catch(() => saveReranker(null));
  }
}
