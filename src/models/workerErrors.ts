/**
 * Comlink's default "throw" handler serialises an Error as {message, name, stack} only, so a
 * RecollectError's `code` and `detail` would be lost crossing the worker boundary. This handler
 * adds them; Comlink's default deserialiser on the other side uses Object.assign, so the caller
 * receives an Error with `code`/`detail` (and name "RecollectError") without any change there.
 */
import type { transferHandlers as ComlinkTransferHandlers } from 'comlink';
import { toErrorInfo } from '../core/base/errors';

export function preserveErrorCodes(handlers: typeof ComlinkTransferHandlers): void {
  const original = handlers.get('throw');
  if (!original) return;
  handlers.set('throw', {
    canHandle: original.canHandle,
    deserialize: original.deserialize,
    serialize(thrown: unknown) {
      const value = (thrown as { value?: unknown }).value;
      if (!(value instanceof Error)) return original.serialize(thrown);
      const info = toErrorInfo(value);
      return [{ isError: true, value: { ...info, name: value.name, stack: value.stack } }, []];
    },
  });
}
