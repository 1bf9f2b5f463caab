/**
 * A TextGenerator in another worker or in the page, reached through a MessagePort (Comlink): the
 * streaming callback crosses as a proxy, errors arrive as RecollectErrors with their LLM_* code.
 */
import * as Comlink from 'comlink';
import { unwrapRemote, type MessagePortLike, type TextGenerator } from '../core/protocol';

export function remoteTextGenerator(port: MessagePortLike): TextGenerator {
  const api = unwrapRemote<TextGenerator>(Comlink.wrap(port as unknown as MessagePort));
  return {
    generate: (request, onText) => api.generate(request, onText ? Comlink.proxy(onText) : undefined),
    cancel: (requestId) => api.cancel(requestId),
  };
}
