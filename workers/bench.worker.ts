// Benchmark worker entry (bench.html only): wiring only (see src/storage/BenchEngineHost.ts).
// Its databases are `bench-*.sqlite` files in OPFS, never the app's recollect.sqlite.
import * as Comlink from 'comlink';
import wasmUrl from '@journeyapps/wa-sqlite/dist/wa-sqlite.wasm?url';
import { deleteOpfsFile } from '../src/host/BenchEngineHost';
import { ScaleBenchHost } from '../src/host/ScaleBenchHost';
import { openOpfsStore } from '../src/storage/openOpfsStore';
import { remoteEmbedderProvider, type RemoteEmbedding } from '../src/models/embedderProviders';

Comlink.expose(
  new ScaleBenchHost({
    openStore: (fileName) => openOpfsStore(wasmUrl, fileName),
    deleteStore: deleteOpfsFile,
    connectModels: (port) => remoteEmbedderProvider(Comlink.wrap<RemoteEmbedding>(port as MessagePort)),
  }),
);
