/**
 * Device-LLM worker: wiring only. Runs the language model chosen under Settings → "This device"
 * (src/models/DeviceLlmService.ts) in its own thread, so generation never blocks the engine or the
 * page; exposes it to the page and, through a port the page hands over, to the engine worker.
 */
import '../src/core/base/zodJitless'; // first: before any schema is built (see the module)
import * as Comlink from 'comlink';
import { answerLifelines } from '../src/host/lifeline';
import { DeviceLlmService } from '../src/models/DeviceLlmService';
import { browserDeviceLlmPlatform } from '../src/models/deviceLlmPlatform';
import { configureBrowserEnv } from '../src/models/transformersEnv';
import { DEVICE_LLM_PORT_MESSAGE, resultify } from '../src/core/protocol';

const base = import.meta.env.BASE_URL;
configureBrowserEnv({ modelBaseUrl: `${base}models/`, wasmBaseUrl: `${base}ort/` });
const service = resultify(new DeviceLlmService(browserDeviceLlmPlatform()));
Comlink.expose(service);
answerLifelines(self);
self.addEventListener('message', (e: MessageEvent<{ type?: string; port?: MessagePort }>) => {
  if (e.data?.type === DEVICE_LLM_PORT_MESSAGE && e.data.port) Comlink.expose(service, e.data.port);
});
