/**
 * Browser-only measurements of the scale benchmark (bench/scale.ts), taken from outside the page:
 * - the benchmark worker's heap, through the Chrome DevTools Protocol (a dedicated worker has no
 *   `performance.memory`): Runtime.getHeapUsage in the worker's own target, JS heap plus the
 *   array buffers and WebAssembly memories it holds (SQLite's heap, the vector index);
 * - the cold open: a NEW page on the same origin (so the same OPFS) loads bench.html with
 *   `?coldOpen=<file>`, starts fresh workers, opens the existing database and searches once; the
 *   page reports the time from its navigation start to that first result.
 */
import type { CDPSession, Page } from '@playwright/test';
import type { ScaleQuestionInput } from './host/benchProtocol';

interface AttachedTarget {
  readonly sessionId: string;
  readonly targetInfo: { readonly type: string; readonly url: string };
}

/** Sends one CDP command to a child target over the page session (non-flattened protocol). */
async function sendToTarget<T>(cdp: CDPSession, sessionId: string, method: string): Promise<T> {
  const id = Math.floor(Math.random() * 1e9);
  const reply = new Promise<T>((resolve, reject) => {
    const onMessage = (e: { sessionId?: string; message: string }) => {
      const m = JSON.parse(e.message) as { id?: number; result?: T; error?: { message: string } };
      if (m.id !== id) return;
      cdp.off('Target.receivedMessageFromTarget', onMessage);
      if (m.error) reject(new Error(`${method}: ${m.error.message}`));
      else resolve(m.result as T);
    };
    cdp.on('Target.receivedMessageFromTarget', onMessage);
  });
  await cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method }) });
  return reply;
}

/** Heap of the page's dedicated worker whose script URL contains `urlPart` (bytes). */
export async function workerHeapBytes(page: Page, urlPart: string): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const targets: AttachedTarget[] = [];
    cdp.on('Target.attachedToTarget', (e: AttachedTarget) => targets.push(e));
    await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
    for (let i = 0; i < 50 && !targets.some((t) => t.targetInfo.url.includes(urlPart)); i++) await new Promise((r) => setTimeout(r, 100));
    const target = targets.find((t) => t.targetInfo.type === 'worker' && t.targetInfo.url.includes(urlPart));
    if (!target)
      throw new Error(`No worker whose URL contains "${urlPart}" (saw ${targets.map((t) => t.targetInfo.url).join(', ') || 'none'}).`);
    await sendToTarget(cdp, target.sessionId, 'HeapProfiler.collectGarbage').catch(() => undefined);
    const usage = await sendToTarget<{ usedSize: number; backingStorageSize?: number }>(cdp, target.sessionId, 'Runtime.getHeapUsage');
    return usage.usedSize + (usage.backingStorageSize ?? 0);
  } finally {
    await cdp.detach();
  }
}

export interface ColdOpenTiming {
  /** Navigation start of the new page to its first search result. */
  readonly navigationToResultMs: number;
  /** Inside its worker: opening the file and starting the engine, then the first recall. */
  readonly openMs: number;
  readonly firstRecallMs: number;
  /** Each phase's end, ms from the new page's navigation start (see ColdOpenResult.phases). */
  readonly phases: ColdOpenPhases | null;
  readonly firstUsedVectors: boolean | null;
  readonly secondUsedVectors: boolean | null;
}

export interface ColdOpenPhases {
  /** The page loaded, its workers started, SQLite compiled, the model port connected. */
  readonly workerReady: number;
  readonly fileOpen: number;
  readonly engineStarted: number;
  readonly speakersRead: number;
  readonly firstResult: number;
  readonly vectorsReady: number;
  readonly secondResult: number;
}

/** A new page's cold open of `fileName` (the file must be closed by its current owner). */
export async function measureColdOpen(page: Page, fileName: string, question: ScaleQuestionInput): Promise<ColdOpenTiming> {
  const cold = await page.context().newPage();
  try {
    const url = new URL('bench.html', page.url());
    url.searchParams.set('coldOpen', fileName);
    url.searchParams.set('q', question.text);
    url.searchParams.set('at', String(question.askedAt));
    await cold.goto(url.href);
    const handle = await cold.waitForFunction(() => window.recollectColdOpen, undefined, { timeout: 300_000 });
    const result = (await handle.jsonValue())!;
    if ('error' in result) throw new Error(`cold open failed: ${result.error}`);
    if (result.turns === 0) throw new Error('cold open found an empty database');
    const origin = await cold.evaluate(() => performance.timeOrigin);
    const p = result.phases;
    const phases = p
      ? {
          workerReady: p.askedAt - origin,
          fileOpen: p.fileOpenAt - origin,
          engineStarted: p.engineStartedAt - origin,
          speakersRead: (p.speakersAt ?? Number.NaN) - origin,
          firstResult: p.firstResultAt - origin,
          vectorsReady: p.vectorsReadyAt - origin,
          secondResult: p.secondResultAt - origin,
        }
      : null;
    return {
      navigationToResultMs: result.navigationToResultMs,
      openMs: result.openMs,
      firstRecallMs: result.firstRecallMs,
      phases,
      firstUsedVectors: result.firstUsedVectors ?? null,
      secondUsedVectors: result.secondUsedVectors ?? null,
    };
  } finally {
    await cold.close();
  }
}

/** One line: each phase's end from navigation, and whether each search used vectors. */
export function describeColdOpen(t: ColdOpenTiming): string {
  const p = t.phases;
  if (!p) return 'no phases';
  const f = (x: number) => Math.round(x).toLocaleString('en');
  return (
    `phases from navigation: workers ready ${f(p.workerReady)}, file open ${f(p.fileOpen)}, engine started ${f(p.engineStarted)}, speakers read ${f(p.speakersRead)}, ` +
    `first result ${f(p.firstResult)} (${t.firstUsedVectors ? 'with' : 'without'} vectors), vectors ready ${f(p.vectorsReady)}, ` +
    `second result ${f(p.secondResult)} (${t.secondUsedVectors ? 'with' : 'without'} vectors) ms`
  );
}
