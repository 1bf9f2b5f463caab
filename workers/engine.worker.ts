// Engine worker entry: wiring only (see src/storage/EngineHost.ts).
import * as Comlink from 'comlink';
import wasmUrl from '@journeyapps/wa-sqlite/dist/wa-sqlite.wasm?url';
import { EngineHost } from '../src/storage/EngineHost';
import { openOpfsStore } from '../src/storage/openOpfsStore';

Comlink.expose(new EngineHost(() => openOpfsStore(wasmUrl)));
