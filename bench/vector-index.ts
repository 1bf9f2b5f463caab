/**
 * Vector index benchmark:
 *   npm run bench -- vectors [--runtime node|browser] [--n 100000] [--dim 384] [--queries 200] [--k 100] [--out report.json]
 * Top-k latency p50/p95 of the WASM SIMD int8 index (alone, and with exact rescoring as
 * SemanticIndex does), its top-10 agreement with exact search, and its vector memory, each next
 * to the JS float32 brute force measured in the same run. The browser runtime bundles
 * bench/vectorIndexPage.ts with Vite and runs it in headless Debian Chromium on a localhost page.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { build } from 'vite';
import { jsVectorIndex } from '../src/core/capture/vectorIndex';
import { KERNEL_PATH, nodeVectorIndex } from '../src/wasm/nodeVectorKernel';
import { CHROMIUM_ARGS, chromiumExecutable } from '../e2e/browser';
import { runVectorBench, type VectorBenchOptions, type VectorBenchResult, type VectorIndexResult } from './vectorIndexRun';
import { parseVectorsArgs, type VectorsArgs } from './cliArgs';

export const VECTORS_USAGE =
  'usage: npm run bench -- vectors [--runtime node|browser] [--n 100000] [--dim 384] [--queries 200] [--k 100] [--out report.json]';

type Report = VectorBenchResult & { runtime: string; fallbackReason: string | null };

async function runBrowser(options: VectorBenchOptions, progress: (line: string) => void): Promise<Report> {
  progress('bundling bench/vectorIndexPage.ts');
  const outDir = await mkdtemp(join(tmpdir(), 'recollect-vector-bench-'));
  await build({
    configFile: false,
    logLevel: 'error',
    build: {
      outDir,
      emptyOutDir: true,
      lib: {
        entry: join(import.meta.dirname, 'vectorIndexPage.ts'),
        formats: ['iife'],
        name: 'recollectVectorBenchPage',
        fileName: () => 'page.js',
      },
    },
  });
  const script = await readFile(join(outDir, 'page.js'), 'utf8');
  await rm(outDir, { recursive: true, force: true });
  // A localhost page (not about:blank) so the run sees the origin's usual capabilities.
  const server = createServer((req, res) => {
    if (req.url === '/page.js') res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
    else
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<!doctype html><title>vector bench</title><script src="/page.js"></script>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const executablePath = chromiumExecutable();
  const browser = await chromium.launch({ ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    page.on('pageerror', (e) => process.stderr.write(`[page error] ${e.message}\n`));
    await page.exposeFunction('recollectBenchProgress', (line: string) => progress(`browser: ${line}`));
    await page.goto(`http://127.0.0.1:${port}/`);
    const kernel = (await readFile(KERNEL_PATH)).toString('base64');
    const result = await page.evaluate(
      ([k, o]) =>
        (
          globalThis as unknown as {
            recollectVectorBench(k: string, o: VectorBenchOptions): Promise<VectorBenchResult & { fallbackReason: string | null }>;
          }
        ).recollectVectorBench(k, o),
      [kernel, options] as const,
    );
    return { runtime: 'browser', ...result };
  } finally {
    await browser.close();
    server.close();
  }
}

function row(r: VectorIndexResult, base: VectorIndexResult): string {
  const f = (x: number) => x.toFixed(2);
  const resc = r.rescoredLatencyMs ? `${f(r.rescoredLatencyMs.p50)} / ${f(r.rescoredLatencyMs.p95)}` : '—';
  const agreement = `${(r.top10Agreement * 100).toFixed(1)}%${r.top10AgreementRescored !== null ? ` (${(r.top10AgreementRescored * 100).toFixed(1)}% rescored)` : ''}`;
  return `| ${r.kind} | ${f(r.latencyMs.p50)} / ${f(r.latencyMs.p95)} | ${resc} | ${(base.latencyMs.p50 / r.latencyMs.p50).toFixed(1)}× | ${agreement} | ${(r.vectorBytes / 1e6).toFixed(1)} MB (${(r.vectorBytes / base.vectorBytes).toFixed(3)}) | ${(r.buildMs / 1000).toFixed(2)} s |`;
}

export function vectorSummary(report: Report): string {
  const o = report.options;
  return [
    `Vector index, ${report.runtime}: ${o.n.toLocaleString('en')} × ${o.dim} random unit vectors, top-${o.k}, ${o.queries} queries after ${o.warmup} warm-up${report.fallbackReason ? ` — WASM unavailable: ${report.fallbackReason}` : ''}`,
    '',
    `| index | top-${o.k} p50 / p95 ms | + exact rescoring p50 / p95 ms | p50 speed-up vs JS | top-10 agreement | vector memory (vs float32) | build |`,
    '|---|---|---|---|---|---|---|',
    row(report.baseline, report.baseline),
    ...report.candidates.map((c) => row(c, report.baseline)),
  ].join('\n');
}

export async function vectorsCommand(argv: string[]): Promise<void> {
  let parsed: VectorsArgs;
  try {
    parsed = parseVectorsArgs(argv);
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err));
  }
  const { runtime, out, n, dim, queries, k } = parsed;
  const options = { n, dim, queries, k, warmup: 20, seed: 1 };
  const started = performance.now();
  const progress = (line: string) => process.stderr.write(`${((performance.now() - started) / 1000).toFixed(0)}s ${line}\n`);
  let report: Report;
  if (runtime === 'browser') report = await runBrowser(options, progress);
  else {
    const choice = await nodeVectorIndex();
    report = {
      runtime: 'node',
      fallbackReason: choice.fallbackReason,
      ...runVectorBench({ baseline: jsVectorIndex, candidates: [choice.factory] }, options, progress),
    };
  }
  process.stdout.write(`${vectorSummary(report)}\n`);
  if (out) {
    await writeFile(out, `${JSON.stringify(report, null, 2)}\n`);
    await writeFile(out.replace(/\.json$/, '') + '.md', `${vectorSummary(report)}\n`);
    process.stdout.write(`wrote ${out}\n`);
  }
}

function fail(message: string): never {
  process.stderr.write(`${message}\n${VECTORS_USAGE}\n`);
  process.exit(2);
}
