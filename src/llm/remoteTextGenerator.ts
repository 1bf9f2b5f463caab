/**
 * A TextGenerator in another worker or in the page, reached through a MessagePort (Comlink): the
 * streaming callback crosses as a proxy, errors arrive as RecollectErrors with their LLM_* code.
 *
 * A worker that dies answers nothing, so its calls would never settle: `stop(err)` (the page saw
 * the worker die, EngineHost.deviceLlmStopped) fails every call in flight, and any later one, with
 * `err`; the page then hands over a port to a new worker.
 */
import * as Comlink from 'comlink';
import { unwrapRemote, type MessagePortLike, type TextGenerator } from '../core/protocol';

export function remoteTextGenerator(port: MessagePortLike): TextGenerator & { stop(err: Error): void } {
  const api = unwrapRemote<TextGenerator>(Comlink.wrap(port as unknown as MessagePort));
  let stop!: (err: Error) => void;
  const stopped = new Promise<never>((_, reject) => (stop = reject));
  stopped.catch(() => undefined);
  return {
    generate: (request, onText) => Promise.race([api.generate(request, onText ? Comlink.proxy(onText) : undefined), stopped]),
    cancel: (requestId) => Promise.race([api.cancel(requestId), stopped]).catch(() => undefined),
    stop: (err) => stop(err),
  };
}
