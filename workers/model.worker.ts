/**
 * Model worker: wiring only. Configures transformers.js for the app's own origin (bundled models
 * under /models/, ONNX Runtime WASM under /ort/) and exposes a ModelService over Comlink, to the
 * page and, through a port the page hands over, to the engine worker.
 */
import '../src/core/base/zodJitless'; // first: before any schema is built (see the module)
import * as Comlink from 'comlink';
import { answerLifelines } from '../src/host/lifeline';
import { ModelService } from '../src/models/ModelService';
import { configureBrowserEnv } from '../src/models/transformersEnv';
import { MODEL_PORT_MESSAGE, MODEL_RESTART_MESSAGE, resultify } from '../src/core/protocol';

const base = import.meta.env.BASE_URL;
const platform = configureBrowserEnv({ modelBaseUrl: `${base}models/`, wasmBaseUrl: `${base}ort/` });
// Asked once the failed call has answered (a macrotask after its rejection), so the caller hears why first.
let restartAsked = false;
const onRuntimeBroken = () => {
  if (restartAsked) return;
  restartAsked = true;
  setTimeout(() => self.postMessage({ type: MODEL_RESTART_MESSAGE }), 0);
};
const service = resultify(new ModelService({ platform, onRuntimeBroken }));
Comlink.expose(service);
answerLifelines(self);
self.addEventListener('message', (e: MessageEvent<{ type?: string; port?: MessagePort }>) => {
  if (e.data?.type === MODEL_PORT_MESSAGE && e.data.port) Comlink.expose(service, e.data.port);
});
