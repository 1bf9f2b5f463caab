// Probes the built app in WebKitGTK through its WebDriver (webkit2gtk-driver): does the memory open,
// and which platform features are there. A finding-gathering script, not a test (docs/browsers.md).
// Usage: npm run build && node scripts/webkit-probe.mjs
import { spawn } from 'node:child_process';
import { preview } from 'vite';

const DRIVER_PORT = 4455;
const server = await preview({ logLevel: 'warn', preview: { host: '127.0.0.1', port: 0 } });
const app = `http://127.0.0.1:${server.httpServer.address().port}/`;
const driver = spawn('/usr/bin/WebKitWebDriver', [`--port=${DRIVER_PORT}`], { stdio: 'inherit' });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
await sleep(1000);

async function wd(method, path, body) {
  const res = await fetch(`http://127.0.0.1:${DRIVER_PORT}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  });
  const json = await res.json();
  if (json.value?.error) throw new Error(`${json.value.error}: ${json.value.message}`);
  return json.value;
}

try {
  const { sessionId } = await wd('POST', '/session', {
    capabilities: {
      alwaysMatch: {
        'webkitgtk:browserOptions': {
          binary: '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
          args: ['--automation', ...(process.env.WEBKIT_FEATURES ? [`--features=${process.env.WEBKIT_FEATURES}`] : [])],
        },
      },
    },
  });
  const s = `/session/${sessionId}`;
  const run = (script) => wd('POST', `${s}/execute/async`, { script, args: [] });
  await wd('POST', `${s}/url`, { url: app });
  const features = await run(`const done = arguments[0]; (async () => {
    const out = { ua: navigator.userAgent, secure: isSecureContext, serviceWorker: 'serviceWorker' in navigator, gpu: 'gpu' in navigator,
      languageModel: 'LanguageModel' in self, locks: !!navigator.locks, getDirectory: typeof navigator.storage?.getDirectory,
      syncAccessHandleInPage: typeof globalThis.FileSystemFileHandle?.prototype.createSyncAccessHandle,
      wasmSimd: WebAssembly.validate(new Uint8Array([0,97,115,109,1,0,0,0,1,5,1,96,0,1,123,3,2,1,0,10,10,1,8,0,65,0,253,15,253,98,11])) };
    try { const root = await navigator.storage.getDirectory(); await root.getFileHandle('probe.txt', { create: true }); out.opfs = 'ok'; } catch (e) { out.opfs = e.name + ': ' + e.message; }
    try { out.persisted = await navigator.storage.persisted(); } catch (e) { out.persisted = String(e); }
    done(out); })();`);
  console.log('features', features);
  for (let i = 0; i < 30; i++) {
    const state = await run(
      `arguments[0]({ overlay: document.querySelector('.overlay')?.innerText ?? null, status: document.querySelector('[data-testid="status"]')?.innerText ?? null, firstRun: !!document.querySelector('[data-testid="first-run"]'), sw: navigator.serviceWorker?.controller ? 'controlling' : 'not controlling' })`,
    );
    if (state.status || (state.overlay && !state.overlay.startsWith('Opening'))) {
      console.log('app after', i, 's', state);
      break;
    }
    if (i === 29) console.log('app after 30 s', state);
    await sleep(1000);
  }
  // Where the memory cannot open, the temporary session (SQLite in memory) shows whether the rest
  // runs: module workers, WASM, storing and searching.
  const offered = await run(
    `const b = [...document.querySelectorAll('button')].find((x) => x.textContent.trim() === 'Use a temporary session'); if (b) b.click(); arguments[0](!!b)`,
  );
  if (offered) {
    await sleep(3000);
    console.log(
      'after Use a temporary session',
      await run(
        `arguments[0]({ banner: document.querySelector('[data-testid="temporary-session"]')?.innerText ?? null, overlay: document.querySelector('.overlay')?.innerText ?? null, status: document.querySelector('[data-testid="status"]')?.innerText ?? null })`,
      ),
    );
    await run(
      `[...document.querySelectorAll('button')].find((x) => x.textContent.trim() === '+ New conversation')?.click(); arguments[0]()`,
    );
    await sleep(1500);
    const box = await wd('POST', `${s}/element`, { using: 'css selector', value: 'textarea[aria-label="Message"]' });
    const id = box['element-6066-11e4-a52e-4f735466cecf'];
    if (!id) throw new Error(`no message box: ${JSON.stringify(box)}`);
    await wd('POST', `${s}/element/${id}/value`, { text: 'The spare key is under the blue flowerpot.\uE007' });
    await sleep(3000);
    const search = await wd('POST', `${s}/element`, { using: 'css selector', value: 'input[aria-label="Search memory"]' });
    await wd('POST', `${s}/element/${search['element-6066-11e4-a52e-4f735466cecf']}/value`, { text: 'flowerpot' });
    await sleep(3000);
    console.log(
      'temporary session',
      await run(
        `arguments[0]({ banner: document.querySelector('[data-testid="temporary-session"]')?.innerText ?? null, overlay: document.querySelector('.overlay')?.innerText ?? null, count: document.querySelector('[data-testid="message-count"]')?.innerText ?? null, hits: [...document.querySelectorAll('[data-testid="search-hit"]')].map((h) => h.innerText), semantic: document.querySelector('.search-results')?.innerText?.slice(0, 400) ?? null, notices: document.querySelector('.notices')?.innerText ?? null })`,
      ),
    );
  }
  await wd('DELETE', s);
} finally {
  driver.kill();
  await server.close();
}
