/**
 * Model worker: wiring only. Configures transformers.js for the app's own origin (bundled models
 * under /models/, ONNX Runtime WASM under /ort/) and exposes a ModelService over Comlink.
 */
import * as Comlink from 'comlink';
import { ModelService } from '../src/models/ModelService';
import { configureBrowserEnv } from '../src/models/transformersEnv';
import { preserveErrorCodes } from '../src/models/workerErrors';

preserveErrorCodes(Comlink.transferHandlers);
const base = import.meta.env.BASE_URL;
const platform = configureBrowserEnv({ modelBaseUrl: `${base}models/`, wasmBaseUrl: `${base}ort/` });
Comlink.expose(new ModelService({ platform }));

export type ModelWorkerApi = ModelService;
