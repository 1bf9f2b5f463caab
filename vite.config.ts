import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

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

export default defineConfig({
  plugins: [react(), dropUnusedHeavyAssets()],
  worker: { format: 'es', plugins: () => [dropUnusedHeavyAssets()] },
  optimizeDeps: { exclude: ['@journeyapps/wa-sqlite'] },
  build: {
    target: 'es2022',
    sourcemap: true,
    // bench.html is the headless benchmark page (bench/); it shares the app's workers.
    rollupOptions: { input: { main: 'index.html', bench: 'bench.html' } },
  },
  preview: { host: '127.0.0.1', port: 4173 },
  server: { host: '127.0.0.1' },
});
