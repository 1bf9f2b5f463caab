// Engine worker entry: wiring only (see src/host/EngineHost.ts).
import '../src/core/base/zodJitless'; // first: before any schema is built (see the module)
import * as Comlink from 'comlink';
import wasmUrl from '@journeyapps/wa-sqlite/dist/wa-sqlite.wasm?url';
import { EngineHost } from '../src/host/EngineHost';
import { openOpfsStore, openTemporaryStore, preloadSqlite } from '../src/storage/openOpfsStore';
import { explainOpenFailure } from '../src/storage/storageUnavailable';
import { IdbSettingsStore } from '../src/storage/idbSettingsStore';
import { modelWorkerLink } from '../src/models/embedderProviders';
import { unwrapRemote, type ModelWorkerApi } from '../src/core/protocol';
// no-inline: a data: URL would be refused by the CSP's connect-src; a file is also cached by the service worker.
import kernelUrl from '../src/wasm/int8Dot.wasm?url&no-inline';
import { fetchedVectorIndex } from '../src/wasm/vectorKernel';
import { remoteTextGenerator } from '../src/llm/remoteTextGenerator';

preloadSqlite(wasmUrl);
// One link for the worker's life: the page hands over a new port when it restarts the model worker.
const models = modelWorkerLink();
Comlink.expose(
  new EngineHost({
    openStore: (onProgress) => openOpfsStore(wasmUrl, undefined, onProgress),
    openTemporaryStore: () => openTemporaryStore(wasmUrl),
    explainOpenFailure: (err) => explainOpenFailure(err, navigator.storage, globalThis.FileSystemFileHandle?.prototype),
    settings: new IdbSettingsStore(),
    connectModels: (port, reason) => {
      models.connect(unwrapRemote<ModelWorkerApi>(Comlink.wrap(port as MessagePort)), reason);
      return models.provider;
    },
    vectorIndex: () => fetchedVectorIndex(kernelUrl),
    connectDeviceLlm: remoteTextGenerator,
  }),
);
