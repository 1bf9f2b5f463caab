/**
 * The crash benchmark's hands on the built app (bench/crash.ts): a persistent Chromium profile,
 * the three ways to kill, and calls to the page's engine worker.
 *
 * The app ships no test hook, so the harness injects an init script that records the workers the
 * page starts and sends Comlink's own wire messages ({ id, type: 'APPLY', path: ['engine', m] })
 * to the current 'recollect-engine' worker — the same EngineApi the UI calls through
 * src/app/engineClient.ts, answered with the same `Result` values. Comlink routes each answer by
 * its id, so the app's own calls on that worker are untouched. An engine call acknowledges what it
 * wrote exactly when the app's would: when its promise resolves.
 */
import { chromium, type BrowserContext, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { CHROMIUM_ARGS, chromiumExecutable } from '../e2e/browser';
import type { EngineApi, ModelWorkerApi } from '../src/core/protocol';

export type KillMode = 'renderer' | 'engine-worker' | 'browser';
export const KILL_MODES: readonly KillMode[] = ['renderer', 'engine-worker', 'browser'];

/** The catalog embedder the embedder-switch trials switch to, served from the bundled model's files. */
export const SECOND_EMBEDDER = 'Xenova/all-MiniLM-L6-v2';

const PAGE_HOOKS = `(() => {
  const Base = window.Worker;
  window.__crashWorkers = [];
  window.Worker = class extends Base {
    constructor(url, options) { super(url, options); window.__crashWorkers.push({ name: options && options.name, worker: this, dead: false, pending: new Set() }); }
  };
  let next = 0;
  window.__crashCall = (method, args, models) => new Promise((resolve) => {
    const rec = window.__crashWorkers.filter((w) => w.name === (models ? 'recollect-models' : 'recollect-engine') && !w.dead).at(-1);
    if (!rec) return resolve({ ok: false, error: { code: 'NO_ENGINE', message: 'no engine worker' } });
    const id = 'crash-bench-' + (next++) + '-' + Math.random().toString(16).slice(2);
    // A terminated worker never answers: its calls fail when the harness kills it.
    const abandon = () => resolve({ ok: false, error: { code: 'ENGINE_KILLED', message: 'the engine worker was killed' } });
    rec.pending.add(abandon);
    const onMessage = (event) => {
      if (!event.data || event.data.id !== id) return;
      rec.pending.delete(abandon);
      rec.worker.removeEventListener('message', onMessage);
      const data = event.data;
      if (data.type === 'RAW') resolve(data.value);
      else resolve({ ok: false, error: { code: 'THROWN', message: String(data.value && data.value.value && data.value.value.message) } });
    };
    rec.worker.addEventListener('message', onMessage);
    rec.worker.postMessage({ id, type: 'APPLY', path: models ? [method] : ['engine', ...method.split('.')], argumentList: args.map((value) => ({ type: 'RAW', value })) });
  });
  // The engine worker's I/O hook (armSwapKill) says here where it holds the worker for the kill.
  window.__crashIoHit = null;
  new BroadcastChannel('recollect-crash-bench').onmessage = (event) => { window.__crashIoHit = event.data; };
  window.__crashFile = (name, text) => new File([text], name, { type: 'application/json' });
  window.__crashToBase64 = (bytes) => { let s = ''; for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000)); return btoa(s); };
  window.__crashFromBase64 = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
})();`;

type CallResult = { ok: true; value: unknown } | { ok: false; error: { code: string; message: string } };

export class EngineCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

/** An engine method as '<group>.<method>' (e.g. 'conversations.list'): a misspelt one does not compile. */
export type EngineCallName = { [G in keyof EngineApi]: `${G}.${keyof EngineApi[G] & string}` }[keyof EngineApi];

/** One EngineApi call in the page (or one model-worker call); resolves with its value once the worker has answered. */
export async function engineCall<T>(page: Page, method: EngineCallName, args?: readonly unknown[]): Promise<T>;
export async function engineCall<T>(
  page: Page,
  method: keyof ModelWorkerApi & string,
  args: readonly unknown[],
  worker: 'models',
): Promise<T>;
export async function engineCall<T>(
  page: Page,
  method: string,
  args: readonly unknown[] = [],
  worker: 'engine' | 'models' = 'engine',
): Promise<T> {
  const result = await page.evaluate(
    ([m, a, models]) =>
      (window as unknown as { __crashCall(m: string, a: readonly unknown[], models: boolean): Promise<CallResult> }).__crashCall(
        m,
        a,
        models,
      ),
    [method, [...args], worker === 'models'] as const,
  );
  if (!result.ok) throw new EngineCallError(result.error.code, result.error.message);
  return result.value as T;
}

export async function launch(profile: string, appUrl: string): Promise<BrowserContext> {
  const executablePath = chromiumExecutable();
  const context = await chromium.launchPersistentContext(profile, {
    ...(executablePath ? { executablePath } : {}),
    args: CHROMIUM_ARGS,
    acceptDownloads: true,
  });
  await context.addInitScript(PAGE_HOOKS);
  // Stand in for the Hugging Face Hub (as e2e/models.spec.ts does): the second embedder's files are
  // the bundled model's, so an embedder switch runs the real download and re-embedding offline.
  await context.route(/^https:\/\/huggingface\.co\/Xenova\/all-MiniLM-L6-v2\/resolve\/main\/(.+)$/, async (route) => {
    const file = new URL(route.request().url()).pathname.split('/resolve/main/')[1]!;
    const local = await context.request.get(new URL(`models/recollect/glove-100d-sif/${file}`, appUrl).href).catch(() => null);
    if (!local?.ok()) return route.fulfill({ status: 404, body: 'not found' });
    return route.fulfill({
      status: 200,
      body: await local.body(),
      headers: { 'content-type': 'application/octet-stream', 'access-control-allow-origin': '*' },
    });
  });
  return context;
}

/** The Chromium main process started for `profile` (only ours: matched by its profile directory). */
function browserPid(profile: string): number | null {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  for (const line of out.split('\n')) {
    if (line.includes(`--user-data-dir=${profile}`) && !line.includes('--type=')) return Number(line.trim().split(/\s+/)[0]);
  }
  return null;
}

export async function kill(mode: KillMode, context: BrowserContext, page: Page, profile: string): Promise<void> {
  if (mode === 'renderer') {
    const cdp = await context.newCDPSession(page);
    void cdp.send('Page.crash').catch(() => undefined);
  } else if (mode === 'engine-worker') {
    await page.evaluate(() => {
      const all = (window as unknown as { __crashWorkers: { name?: string; worker: Worker; dead: boolean; pending: Set<() => void> }[] })
        .__crashWorkers;
      const rec = all.filter((w) => w.name === 'recollect-engine' && !w.dead).at(-1);
      if (rec) {
        rec.dead = true;
        rec.worker.terminate();
        for (const abandon of rec.pending) abandon();
      }
    });
  } else {
    const pid = browserPid(profile);
    if (pid) process.kill(pid, 'SIGKILL');
  }
}

/** Opens the app and waits until its engine owns the database and answers. */
export async function openApp(context: BrowserContext, url: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url);
  await page.getByTestId('status').waitFor({ timeout: 120_000 });
  for (let attempt = 0; ; attempt++) {
    try {
      await engineCall(page, 'data.stats');
      return page;
    } catch (err) {
      // DB_BUSY until the app's acquire() has opened the database in this worker.
      if (attempt > 600) throw err;
      await page.waitForTimeout(200);
    }
  }
}

/**
 * Where the engine worker was held for a kill inside the memory swap: the target write (the kill
 * lands before it), the writes and flushes (fsyncs) its OPFS files had had since the hook was armed.
 */
export interface SwapHit {
  readonly target: number;
  readonly writes: number;
  readonly flushes: number;
}

/**
 * The engine worker's hands on its own storage: wraps `FileSystemSyncAccessHandle.write` and
 * `flush` (what the OPFS VFS calls for every page it writes and every sync) to count them. Once
 * armed with a target, the target-th write after arming posts where it is (BroadcastChannel, to the
 * page) and holds the worker there — a busy wait of up to 20 s — so the kill ordered meanwhile ends
 * the worker at exactly that point of the write sequence. Nothing else changes: every write is
 * passed through unaltered.
 */
const IO_HOOK = () => {
  type IoState = { writes: number; armed: { target: number; writes: number; flushes: number } | null };
  const g = self as unknown as { __crashIo?: IoState };
  if (g.__crashIo !== undefined) return;
  const io: IoState = { writes: 0, armed: null };
  g.__crashIo = io;
  const proto = (self as unknown as { FileSystemSyncAccessHandle: { prototype: { write(...a: unknown[]): number; flush(): void } } })
    .FileSystemSyncAccessHandle.prototype;
  const write = proto.write;
  const flush = proto.flush;
  const channel = new BroadcastChannel('recollect-crash-bench');
  proto.write = function (this: unknown, ...args: unknown[]) {
    io.writes++;
    const armed = io.armed;
    if (armed && ++armed.writes === armed.target) {
      io.armed = null;
      channel.postMessage({ target: armed.target, writes: armed.writes - 1, flushes: armed.flushes });
      const until = performance.now() + 20_000;
      while (performance.now() < until) {
        /* held for the kill */
      }
    }
    return write.apply(this, args);
  };
  proto.flush = function (this: unknown) {
    if (io.armed) io.armed.flushes++;
    return flush.apply(this);
  };
};

function engineWorker(page: Page) {
  const worker = page
    .workers()
    .filter((w) => w.url().includes('engine.worker'))
    .at(-1);
  if (!worker) throw new Error('no engine worker');
  return worker;
}

/** Installs the I/O hook and waits until the engine has written nothing for a second (background work after the last append), at most 15 s. */
export async function waitForQuietStorage(page: Page): Promise<void> {
  const worker = engineWorker(page);
  await worker.evaluate(IO_HOOK);
  const writes = () => worker.evaluate(() => (self as unknown as { __crashIo: { writes: number } }).__crashIo.writes);
  let last = await writes();
  let quiet = 0;
  for (const until = Date.now() + 15_000; quiet < 4 && Date.now() < until;) {
    await page.waitForTimeout(250);
    const now = await writes();
    quiet = now === last ? quiet + 1 : 0;
    last = now;
  }
}

/** Arms the hook: the `target`-th OPFS write from now holds the engine worker for the kill. */
export async function armSwapKill(page: Page, target: number): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as { __crashIoHit: unknown }).__crashIoHit = null;
  });
  await engineWorker(page).evaluate((t) => {
    (self as unknown as { __crashIo: { armed: unknown } }).__crashIo.armed = { target: t, writes: 0, flushes: 0 };
  }, target);
}

/** Where the armed hook holds the engine worker, once it does. */
export function swapHit(page: Page): Promise<SwapHit | null> {
  return page.evaluate(() => (window as unknown as { __crashIoHit: SwapHit | null }).__crashIoHit);
}

/** The memory as the Export button would write it, read into Node. */
export async function exportMemory(page: Page): Promise<Uint8Array> {
  const b64 = await page.evaluate(async () => {
    const w = window as unknown as { __crashCall(m: string, a: unknown[]): Promise<CallResult>; __crashToBase64(b: Uint8Array): string };
    const r = await w.__crashCall('data.exportDatabase', []);
    if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
    return w.__crashToBase64(r.value as Uint8Array);
  });
  return new Uint8Array(Buffer.from(b64, 'base64'));
}
