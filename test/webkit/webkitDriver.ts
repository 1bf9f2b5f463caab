/**
 * Drives WebKitGTK (Debian's webkit2gtk-driver) over W3C WebDriver classic with plain fetch calls,
 * against the built app served by `vite preview` (the same server and CSP as the other runs).
 *
 * The browser is test/webkit/webkit-browser.py, not MiniBrowser: MiniBrowser's automation sessions
 * keep website data in an ephemeral store, where OPFS has no directory at all (getDirectory()
 * rejects with UnknownError), and WebKitGTK ships the Storage and File System APIs switched off
 * (Safari has them on). That small browser keeps its data in a temp folder and turns them on.
 * WebKitGTK needs a display: the npm script runs under `xvfb-run`. Console messages reach us as
 * the browser's stdout ("CONSOLE JS ERROR …"), which the driver passes through.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { preview, type PreviewServer } from 'vite';

export const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER_PATH ?? '/usr/bin/WebKitWebDriver';
const BROWSER = resolve('test/webkit/webkit-browser.py');
const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';

/** What is missing for a WebKit run here ('' when nothing is). */
function missing(): string {
  if (!existsSync(WEBKIT_DRIVER)) return `${WEBKIT_DRIVER} is not installed (apt-get install -y webkit2gtk-driver)`;
  const gi = spawnSync('/usr/bin/python3', ['-c', "import gi; gi.require_version('WebKit2', '4.1'); gi.require_version('Gtk', '3.0')"]);
  if (gi.status !== 0) return "WebKitGTK's Python bindings are not installed (apt-get install -y python3-gi gir1.2-webkit2-4.1)";
  if (!process.env.DISPLAY && !process.env.WAYLAND_DISPLAY)
    return 'there is no display (run it through `xvfb-run -a`, as `npm run test:webkit` does; apt-get install -y xvfb)';
  return '';
}

/** Whether the WebKit run can happen here: a failure under CI, a loud skip elsewhere. */
let warned = false;
export function webkitAvailable(): boolean {
  const why = missing();
  if (!why) return true;
  const message = `WebKit smoke run: ${why}.`;
  if (process.env.CI && process.env.CI !== 'false') throw new Error(`${message} Under CI this is a failure.`);
  if (!warned) console.warn(`\n${'!'.repeat(100)}\n!! SKIPPED — ${message}\n${'!'.repeat(100)}\n`);
  warned = true;
  return false;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

export interface WebKitSession {
  readonly baseUrl: string;
  /** Lines the browser wrote to its console at level error since the session started. */
  readonly consoleErrors: string[];
  /** Runs `body` (a function body; `arguments` are `args`) in the page and returns its value. */
  execute<T>(body: string, ...args: unknown[]): Promise<T>;
  /** Like execute, but awaits the promise `body` returns. */
  executeAsync<T>(body: string, ...args: unknown[]): Promise<T>;
  /** Waits until `body` returns something truthy in the page; returns it. */
  until<T>(body: string, what: string, timeout?: number): Promise<T>;
  go(url: string): Promise<void>;
  /** Types `text` into the element at `css` with real key events (`\uE007` is Enter). */
  type(css: string, text: string): Promise<void>;
  /** Empties the field at `css` (WebDriver's Element Clear: the page hears an input event). */
  clear(css: string): Promise<void>;
  /** Clicks the visible button whose text is `label`, once it shows. */
  clickButton(label: string): Promise<void>;
  /** Stops serving the app (the origin goes offline; the browser keeps running). */
  stopServer(): Promise<void>;
  close(): Promise<void>;
}

export async function startWebKit(): Promise<WebKitSession> {
  if (!existsSync('dist/index.html')) throw new Error('dist/ is missing: run `npm run build` first.');
  const server: PreviewServer = await preview({ logLevel: 'warn', preview: { host: '127.0.0.1', port: 0, strictPort: false } });
  const address = server.httpServer.address();
  if (!address || typeof address === 'string') throw new Error('vite preview did not listen on a port');
  const dataDir = await mkdtemp(join(tmpdir(), 'recollect-webkit-'));
  const port = await freePort();
  const consoleErrors: string[] = [];
  const driver: ChildProcess = spawn(WEBKIT_DRIVER, [`--port=${port}`, '--host=127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const listen = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (/^CONSOLE \S+ ERROR/.test(line)) consoleErrors.push(line);
  };
  driver.stdout!.on('data', listen);
  driver.stderr!.on('data', listen);
  const base = `http://127.0.0.1:${port}`;

  async function wd<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as { value: T & { error?: string; message?: string } };
    if (json.value?.error) throw new Error(`WebDriver ${method} ${path}: ${json.value.error}: ${json.value.message}`);
    return json.value;
  }
  for (let i = 0; ; i++) {
    try {
      await wd('GET', '/status');
      break;
    } catch (err) {
      if (i > 50) throw new Error(`WebKitWebDriver did not start on port ${port}`, { cause: err });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const { sessionId } = await wd<{ sessionId: string }>('POST', '/session', {
    capabilities: { alwaysMatch: { 'webkitgtk:browserOptions': { binary: BROWSER, args: ['--automation', `--data-dir=${dataDir}`] } } },
  });
  const s = `/session/${sessionId}`;
  let serverClosed = false;

  const execute = <T>(body: string, ...args: unknown[]) => wd<T>('POST', `${s}/execute/sync`, { script: body, args });
  const executeAsync = <T>(body: string, ...args: unknown[]) =>
    wd<T>('POST', `${s}/execute/async`, {
      script: `const done = arguments[arguments.length - 1]; Promise.resolve((async () => { ${body} })(...arguments)).then(done, (e) => done({ __error: String(e) }));`,
      args,
    });

  async function until<T>(body: string, what: string, timeout = 30_000): Promise<T> {
    const start = Date.now();
    for (;;) {
      const value = await execute<T>(body);
      if (value) return value;
      if (Date.now() - start > timeout) {
        const shown = await execute<string>(
          "return document.querySelector('.overlay')?.innerText ?? document.body.innerText.slice(0, 300)",
        );
        throw new Error(`timed out waiting for ${what}; the page shows: ${shown}`);
      }
      await new Promise((r) => setTimeout(r, 150));
    }
  }

  return {
    baseUrl: `http://127.0.0.1:${address.port}/`,
    consoleErrors,
    execute,
    executeAsync,
    until,
    go: async (url) => {
      await wd('POST', `${s}/url`, { url });
    },
    async type(css, text) {
      await until(`return !!document.querySelector(${JSON.stringify(css)})`, css);
      const el = await wd<Record<string, string>>('POST', `${s}/element`, { using: 'css selector', value: css });
      await wd('POST', `${s}/element/${el[ELEMENT]}/value`, { text });
    },
    async clear(css) {
      const el = await wd<Record<string, string>>('POST', `${s}/element`, { using: 'css selector', value: css });
      await wd('POST', `${s}/element/${el[ELEMENT]}/clear`, {});
    },
    async clickButton(label) {
      const find = `return [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === ${JSON.stringify(label)} && !b.disabled && b.offsetParent !== null) ?? null`;
      await until(find, `the button "${label}"`);
      const el = await execute<Record<string, string>>(find);
      await wd('POST', `${s}/element/${el[ELEMENT]}/click`, {});
    },
    async stopServer() {
      if (!serverClosed) await server.close();
      serverClosed = true;
    },
    async close() {
      await wd('DELETE', s).catch(() => undefined);
      driver.kill();
      if (!serverClosed) await server.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
