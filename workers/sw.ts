/// <reference lib="webworker" />
/**
 * Service worker (built by vite-plugin-pwa, strategy injectManifest, into dist/sw.js): precaches
 * the app shell, the wa-sqlite and onnxruntime WASM and the bundled offline model, so Recollect
 * opens and works with no network after one visit. Downloaded models are not touched here: they
 * live in transformers.js's own Cache API entry.
 *
 * Invariants: a new version waits until the page asks it to take over (message SKIP_WAITING, sent
 * when the user clicks "reload" in the update banner) — it never activates under an open chat.
 * Only GET and HEAD requests for precached URLs are answered; everything else (the LLM endpoint,
 * model downloads, bench.html) goes to the network untouched.
 */
import '../src/core/base/zodJitless'; // first: before any schema is built (see the module)
import { clientsClaim } from 'workbox-core';
import { cleanupOutdatedCaches, getCacheKeyForURL, matchPrecache, precacheAndRoute } from 'workbox-precaching';
import { registerRoute } from 'workbox-routing';

declare const self: ServiceWorkerGlobalScope & typeof globalThis;

self.addEventListener('message', (event) => {
  if ((event.data as { type?: string } | null)?.type === 'SKIP_WAITING') void self.skipWaiting();
});

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
// The first install takes control of the open page at once, so it is offline-capable without a
// reload. Updates still wait for SKIP_WAITING above.
clientsClaim();

// The model worker checks that the bundled model's files exist with HEAD requests
// (src/models/transformersEnv.ts). Workbox routes only GET and the Cache API stores only GET, so
// answer HEAD from the precached GET response's status and headers — offline included.
registerRoute(
  ({ url, request }) => request.method === 'HEAD' && url.origin === self.location.origin && getCacheKeyForURL(url.href) !== undefined,
  async ({ request }) => {
    const cached = await matchPrecache(request.url);
    return cached ? new Response(null, { status: cached.status, statusText: cached.statusText, headers: cached.headers }) : fetch(request);
  },
  'HEAD',
);
