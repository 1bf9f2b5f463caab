/**
 * A network cable between one device and the relay, for sync tests that need devices cut off from
 * each other: unplugged, every relay call fails as an unreachable relay would, and a long-poll
 * already waiting when it was unplugged brings nothing (it fails when it answers).
 */
import { SyncRelayError, type SyncRelay } from '../../src/core/sync/syncPorts';

export class RelayCable {
  plugged = true;
  /** Relay calls made through this cable, plugged or not. */
  calls = 0;
  wrap(relay: SyncRelay): SyncRelay {
    const check = () => {
      this.calls += 1;
      if (!this.plugged) throw new SyncRelayError('relay-unreachable', 'The relay cannot be reached (cable unplugged).');
    };
    return {
      ensure: async (o) => (check(), relay.ensure(o)),
      append: async (o, p, items) => (check(), relay.append(o, p, items)),
      read: async (o, offset) => (check(), relay.read(o, offset)),
      retire: async (o) => (check(), relay.retire(o)),
      retired: async (o) => (check(), relay.retired(o)),
      wait: (o, offset) => {
        try {
          check();
        } catch (error) {
          return { result: Promise.reject(error), cancel: () => undefined };
        }
        const waiting = relay.wait(o, offset);
        return { result: waiting.result.then((batch) => (check(), batch)), cancel: () => waiting.cancel() };
      },
    };
  }
}
