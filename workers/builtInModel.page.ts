/**
 * Page-side entry for the browser's built-in model: wiring only, like a worker entry. Chrome
 * exposes `LanguageModel` (the Prompt API) to windows, so its generator (src/llm/
 * PromptApiGenerator.ts) lives on the page and is exposed over a MessagePort that the engine
 * worker then uses like any other model on this device.
 */
import * as Comlink from 'comlink';
import {
  PromptApiGenerator,
  builtInAvailability,
  builtInContextWindow,
  downloadBuiltInModel,
  findLanguageModel,
  BUILT_IN_MODEL_ID,
} from '../src/llm/PromptApiGenerator';
import { LlmError } from '../src/llm/llmErrors';
import { resultify, type BuiltInAvailability, type TextGenerator } from '../src/core/protocol';

export { BUILT_IN_MODEL_ID };

export function builtInModelAvailability(): Promise<BuiltInAvailability> {
  return builtInAvailability(findLanguageModel());
}

/** The context window the browser's model reports, or null (see builtInContextWindow). */
export async function builtInModelWindow(): Promise<number | null> {
  const api = findLanguageModel();
  return api ? builtInContextWindow(api) : null;
}

/** Asks the browser to download its model (from a click: Chrome needs a user gesture). */
export async function startBuiltInDownload(onProgress: (fraction: number) => void): Promise<void> {
  const api = findLanguageModel();
  if (!api) throw new LlmError('LLM_NOT_CONFIGURED', 'This browser has no built-in model.');
  await downloadBuiltInModel(api, onProgress);
}

/** Exposes the built-in model on `port` (a generator that says why, when this browser has none). */
export function exposeBuiltInModel(port: MessagePort): void {
  const api = findLanguageModel();
  const generator: TextGenerator = api
    ? new PromptApiGenerator(api)
    : {
        generate: async () => {
          throw new LlmError(
            'LLM_NOT_CONFIGURED',
            'This browser has no built-in model (desktop Chrome 148 or later has one). Choose a model to download in Settings.',
          );
        },
        cancel: () => undefined,
      };
  Comlink.expose(resultify(generator), port);
}
