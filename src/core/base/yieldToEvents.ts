/**
 * Lets the thread's event loop run the tasks waiting in its queue (a search or a send from the
 * page, a reply from the model worker) before background work goes on with its next slice.
 *
 * Why an explicit yield: in the engine worker SQLite runs on a synchronous VFS, so awaiting a
 * statement settles as a microtask. A background loop made only of such awaits (placing every
 * imported turn into episodes, say) never hands the thread back to the event loop, and a request
 * posted from the page is not even read until the whole loop ends: 600 turns of segmentation held
 * the worker for 6.4 s on a loaded 2-core machine while a search stayed "Searching…". Awaiting
 * this between slices bounds a request's wait to one slice.
 *
 * The continuation is a macrotask, queued after whatever already waits. setTimeout(0) would do,
 * but browsers clamp it to 4 ms once timers nest five deep (one yield per turn would idle 4 ms per
 * turn), so a MessageChannel is used where there is one; Node has setImmediate (a MessageChannel
 * port there would keep the process alive).
 */

interface EventLoopHost {
  setImmediate?: (fn: () => void) => unknown;
  MessageChannel?: new () => {
    port1: { onmessage: (() => void) | null };
    port2: { postMessage(message: null): void };
  };
  setTimeout(fn: () => void, ms: number): unknown;
}

type Post = (fn: () => void) => void;

let post: Post | null = null;

function platformPost(): Post {
  const host = globalThis as unknown as EventLoopHost;
  if (typeof host.setImmediate === 'function') {
    const setImmediate = host.setImmediate;
    return (fn) => void setImmediate(fn);
  }
  if (typeof host.MessageChannel === 'function') {
    // One channel for the thread's life; messages arrive in the order posted, so a FIFO of
    // continuations matches them one to one.
    const channel = new host.MessageChannel();
    const waiting: (() => void)[] = [];
    channel.port1.onmessage = () => waiting.shift()?.();
    return (fn) => {
      waiting.push(fn);
      channel.port2.postMessage(null);
    };
  }
  return (fn) => void host.setTimeout(fn, 0);
}

/** Resolves in a later task of this thread's event loop, after the tasks already queued. */
export function yieldToEvents(): Promise<void> {
  post ??= platformPost();
  const schedule = post;
  return new Promise((resolve) => schedule(resolve));
}
