// Engine worker entry: wiring only (see src/storage/EngineHost.ts).
import * as Comlink from 'comlink';
import wasmUrl from '@journeyapps/wa-sqlite/dist/wa-sqlite.wasm?url';
import { EngineHost } from '../src/storage/EngineHost';
import { openOpfsStore } from '../src/storage/openOpfsStore';
import { remoteEmbedderProvider, type RemoteEmbedding } from '../src/models/embedderProviders';

Comlink.expose(
  new EngineHost({
    openStore: () => openOpfsStore(wasmUrl),
    connectModels: (port) => remoteEmbedderProvider(Comlink.wrap<RemoteEmbedding>(port as MessagePort)),
  }),
);
