// Engine worker entry: wiring only (see src/host/EngineHost.ts).
import * as Comlink from 'comlink';
import wasmUrl from '@journeyapps/wa-sqlite/dist/wa-sqlite.wasm?url';
import { EngineHost } from '../src/host/EngineHost';
import { openOpfsStore } from '../src/storage/openOpfsStore';
import { IdbSettingsStore } from '../src/storage/idbSettingsStore';
import { remoteEmbedderProvider } from '../src/models/embedderProviders';
import { unwrapRemote, type ModelWorkerApi } from '../src/core/protocol';

Comlink.expose(
  new EngineHost({
    openStore: () => openOpfsStore(wasmUrl),
    settings: new IdbSettingsStore(),
    connectModels: (port) => remoteEmbedderProvider(unwrapRemote<ModelWorkerApi>(Comlink.wrap(port as MessagePort))),
  }),
);
