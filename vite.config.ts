import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { VitePWA } from 'vite-plugin-pwa';

/**
 * Inside workers, these packages resolve to their DOM-free build: decode-named-character-reference
 * (under the Markdown parser) has a "browser" build that decodes entities through `document`, which
 * a worker does not have: the Markdown worker failed with "document is not defined", and the engine
 * worker (markdownText.ts turns search snippets into plain words there) died at start-up. Node's
 * resolution picks the build with its own entity table.
 */
function domFreeInWorkers(): Plugin {
  const require = createRequire(import.meta.url);
  const plain = new Map(['decode-named-character-reference'].map((name) => [name, require.resolve(name)]));
  return { name: 'recollect:dom-free-in-workers', enforce: 'pre', resolveId: (source) => plain.get(source) ?? null };
}

/**
 * The sync relay client (@durable-streams/client) queues its appends with fastq, whose `drained()`
 * (awaited by every flush) waits one turn with `process.nextTick` — Node only: in a browser or
 * worker it throws "process is not defined", so every upload from the engine worker failed and the
 * status said "relay unreachable" although the Node tests passed. That one call becomes
 * `queueMicrotask`, which runs the callback at the same point (after the current task's code).
 */
function browserFastq(): Plugin {
  return {
    name: 'recollect:browser-fastq',
    transform(code, id) {
      if (!/[\\/]fastq[\\/]queue\.js$/.test(id)) return null;
      if (!code.includes('process.nextTick('))
        throw new Error('fastq changed: process.nextTick is gone; check browserFastq in vite.config.ts');
      return { code: code.replace('process.nextTick(', 'queueMicrotask('), map: null };
    },
  };
}

/**
 * onnxruntime-web references its WASM with `new URL(..., import.meta.url)`, so Vite emits a hashed
 * 27 MB copy into assets/ that is never requested: transformers.js is pointed at /ort/ (served
 * from public/, see scripts/prepare-assets.mjs). Drop that copy, and the fp32 offline model, which
 * only Node tooling reads (the browser loads model_quantized.onnx).
 */
function dropUnusedHeavyAssets(): Plugin {
  let outDir = 'dist';
  return {
    name: 'recollect:drop-unused-heavy-assets',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    generateBundle(_options, bundle) {
      for (const name of Object.keys(bundle)) if (/^assets\/ort-wasm[^/]*\.(wasm|mjs)$/.test(name)) delete bundle[name];
    },
    closeBundle() {
      rmSync(join(outDir, 'models/recollect/glove-100d-sif/onnx/model.onnx'), { force: true });
    },
  };
}

/**
 * Content-Security-Policy of the built app. Scripts and workers come only from the app's origin
 * ('wasm-unsafe-eval' lets wa-sqlite and onnxruntime compile their WASM; no 'unsafe-eval', no inline
 * scripts). blob: is needed because transformers.js 4.3.1 fetches onnxruntime's WASM factory from
 * /ort/ and imports it through a blob: URL after patching a Node check; only code already running
 * in this origin can mint such a URL, so it admits no third-party script. connect-src cannot name the user's LLM endpoint — it is chosen at run time in a static
 * app — so it allows the origin, any HTTPS host (hosted endpoints, the Hugging Face Hub and its CDN
 * hosts for explicit model downloads) and plain HTTP only on this machine (Ollama, LM Studio,
 * llama.cpp, vLLM on localhost). A plain-HTTP endpoint on another machine must be added here.
 * Delivered twice: as a <meta> in index.html (works on any static host, covers the page) and as a
 * response header from `vite preview` (also covers the workers, whose fetches a page's <meta>
 * policy does not govern: a worker takes its policy from its own script's response). Not applied
 * in `vite dev`, whose React Refresh preamble is an inline script and whose HMR uses ws:.
 * Only directives every target browser knows: an unknown one is a console error (WebKit).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval' blob:",
  "worker-src 'self'",
  "connect-src 'self' https: http://localhost:* http://127.0.0.1:*",
  "img-src 'self' data: blob:",
  "style-src 'self'",
  "font-src 'self'",
  // No manifest-src: default-src already limits the manifest to 'self', and WebKit does not know
  // the directive: WebKitGTK 2.50 logged a console error for it on every load (header and <meta>).
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

/** Adds the policy as a <meta> to the built index.html (see CONTENT_SECURITY_POLICY). */
function contentSecurityPolicyMeta(): Plugin {
  return {
    name: 'recollect:csp-meta',
    apply: 'build',
    transformIndexHtml(html, ctx) {
      if (ctx.path !== '/index.html') return html;
      const meta = `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY.replaceAll('"', '&quot;')}" />`;
      // Right after the charset, so the policy applies before any element that loads something.
      return html.replace(/(<meta charset="UTF-8" \/>)/, `$1\n    ${meta}`);
    },
  };
}

/**
 * Installable, offline PWA (DESIGN §1, §9): workers/sw.ts precaches the app shell, the WASM under
 * assets/ and ort/ and the bundled model; the update prompt lives in src/app/serviceWorkerUpdates.ts.
 */
function progressiveWebApp() {
  return VitePWA({
    strategies: 'injectManifest',
    srcDir: 'workers',
    filename: 'sw.ts',
    registerType: 'prompt',
    injectRegister: false, // registered from src/app/main.tsx
    manifest: {
      id: '/',
      name: 'Recollect',
      short_name: 'Recollect',
      description: 'A private chat whose long-term memory lives in your browser.',
      start_url: '/',
      scope: '/',
      display: 'standalone',
      theme_color: '#3856d8',
      background_color: '#f7f7f5',
      icons: [
        { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
        { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
        { src: '/icons/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
      ],
    },
    // The glob below already lists every icon; listing them again would duplicate precache entries.
    includeAssets: [],
    includeManifestIcons: false,
    injectManifest: {
      // A classic (IIFE) service worker: with the default 'es' format vite-plugin-pwa builds it with
      // rollup's `inlineDynamicImports`, which Vite 8 reports as deprecated on every build. sw.ts
      // has only static imports, and a classic worker registers in every browser.
      rollupFormat: 'iife',
      // bin, txt: the bundled model's lookup table and vocabulary (static/), what the first vectors need.
      globPatterns: ['**/*.{html,js,mjs,css,wasm,onnx,json,svg,png,woff2,webmanifest,bin,txt}'],
      globIgnores: [
        // The headless benchmark page is not part of the installed app.
        'bench.html',
        'assets/bench-*',
        'assets/bench.worker-*',
        // Only Node tooling reads the fp32 model (removed by dropUnusedHeavyAssets, maybe after this runs).
        'models/**/onnx/model.onnx',
        'models/**/build-info.json',
        '**/*.map',
      ],
      // ort-wasm-simd-threaded.asyncify.wasm is ≈27 MB; the default 2 MiB limit fails the build.
      maximumFileSizeToCacheInBytes: 40 * 1024 * 1024,
    },
    devOptions: { enabled: false },
  });
}

export default defineConfig({
  plugins: [react(), browserFastq(), dropUnusedHeavyAssets(), contentSecurityPolicyMeta(), progressiveWebApp()],
  worker: { format: 'es', plugins: () => [domFreeInWorkers(), browserFastq(), dropUnusedHeavyAssets()] },
  optimizeDeps: { exclude: ['@journeyapps/wa-sqlite'] },
  build: {
    target: 'es2022',
    sourcemap: true,
    // Every chunk is precached by the service worker and read from disk after the first visit,
    // which is dominated by the 27 MB ONNX runtime; the biggest chunks are the workers and the
    // tokenizer table (≈ 1 MB). Splitting them would not make the app start sooner.
    chunkSizeWarningLimit: 1_100,
    // bench.html is the headless benchmark page (bench/); it shares the app's workers.
    rollupOptions: { input: { main: 'index.html', bench: 'bench.html' } },
  },
  preview: { host: '127.0.0.1', port: 4173, headers: { 'Content-Security-Policy': CONTENT_SECURITY_POLICY } },
  server: { host: '127.0.0.1' },
});
