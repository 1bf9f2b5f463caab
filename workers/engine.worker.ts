// Engine worker entry: wiring only (see src/host/EngineHost.ts).
import * as Comlink from 'comlink';
import wasmUrl from '@journeyapps/wa-sqlite/dist/wa-sqlite.wasm?url';
import { EngineHost } from '../src/host/EngineHost';
import { openOpfsStore, preloadSqlite } from '../src/storage/openOpfsStore';
import { IdbSettingsStore } from '../src/storage/idbSettingsStore';
import { remoteEmbedderProvider } from '../src/models/embedderProviders';
import { unwrapRemote, type ModelWorkerApi } from '../src/core/protocol';
// no-inline: a data: URL would be refused by the CSP's connect-src; a file is also cached by the service worker.
import kernelUrl from '../src/wasm/int8Dot.wasm?url&no-inline';
import { fetchedVectorIndex } from '../src/wasm/vectorKernel';
import { remoteTextGenerator } from '../src/llm/remoteTextGenerator';

preloadSqlite(wasmUrl);
Comlink.expose(
  new EngineHost({
    openStore: (onProgress) => openOpfsStore(wasmUrl, undefined, onProgress),
    settings: new IdbSettingsStore(),
    connectModels: (port) => remoteEmbedderProvider(unwrapRemote<ModelWorkerApi>(Comlink.wrap(port as MessagePort))),
    vectorIndex: () => fetchedVectorIndex(kernelUrl),
    connectDeviceLlm: remoteTextGenerator,
  }),
);
