// Benchmark worker entry (bench.html only): wiring only (see bench/host/BenchEngineHost.ts).
// Its databases are `bench-*.sqlite` files in OPFS, never the app's recollect.sqlite.
import '../../src/core/base/zodJitless'; // first: before any schema is built (see the module)
import * as Comlink from 'comlink';
import wasmUrl from '@journeyapps/wa-sqlite/dist/wa-sqlite.wasm?url';
import { deleteOpfsFile } from '../host/BenchEngineHost';
import { ScaleBenchHost } from '../host/ScaleBenchHost';
import { openOpfsStore, preloadSqlite } from '../../src/storage/openOpfsStore';
import { remoteEmbedderProvider } from '../../src/models/embedderProviders';
import { resultify, unwrapRemote, type ModelWorkerApi } from '../../src/core/protocol';
// no-inline: a data: URL would be refused by the CSP's connect-src; a file is also cached by the service worker.
import kernelUrl from '../../src/wasm/int8Dot.wasm?url&no-inline';
import { fetchedVectorIndex } from '../../src/wasm/vectorKernel';

preloadSqlite(wasmUrl);
Comlink.expose(
  resultify(
    new ScaleBenchHost({
      openStore: (fileName) => openOpfsStore(wasmUrl, fileName),
      deleteStore: deleteOpfsFile,
      connectModels: (port) => remoteEmbedderProvider(unwrapRemote<ModelWorkerApi>(Comlink.wrap(port as MessagePort))),
      vectorIndex: () => fetchedVectorIndex(kernelUrl),
    }),
  ),
);
