/// <reference types="vite-plugin-pwa/vanillajs" />
/**
 * Registers the service worker (workers/sw.ts) and tracks whether a new version is waiting, as a
 * tiny external store the update banner reads with useSyncExternalStore.
 *
 * Invariants: the page never reloads on its own. A new version waits until the user clicks
 * "reload" in this tab; only then is it told to take over, and only this tab reloads when it does.
 * Another tab that sees the new version take over (because the user reloaded elsewhere) keeps its
 * state and offers the reload instead. Database migrations run in the engine worker on open, so the
 * reloaded version upgrades the memory file itself.
 */
import { registerSW } from 'virtual:pwa-register';

export type UpdateState =
  | { readonly kind: 'current' }
  /** A new version is installed and waiting for the user's go-ahead. */
  | { readonly kind: 'available' }
  /** The user asked for it; waiting for the new version to take over, then this tab reloads. */
  | { readonly kind: 'applying' }
  /** Another tab activated the new version; this page still runs the old code until reloaded. */
  | { readonly kind: 'activated-elsewhere' };

export interface ServiceWorkerUpdates {
  getState(): UpdateState;
  subscribe(listener: () => void): () => void;
  /** Lets the waiting version take over; this tab reloads once it controls the page. */
  applyUpdate(): void;
  /** Reloads now (used after another tab activated the new version). */
  reload(): void;
}

/** How often an open tab asks the server for a new version (the browser also checks on navigation). */
const UPDATE_CHECK_MS = 60 * 60 * 1000;

export function registerServiceWorker(): ServiceWorkerUpdates {
  let state: UpdateState = { kind: 'current' };
  const listeners = new Set<() => void>();
  const set = (next: UpdateState) => {
    state = next;
    for (const l of listeners) l();
  };
  let reloading = false;
  const reloadOnce = () => {
    if (reloading) return;
    reloading = true;
    window.location.reload();
  };

  // A new version took control of this page. Watched here rather than through registerSW's
  // onNeedReload: workbox-window reports that only when the page was already controlled when it
  // registered, so a first-visit tab that later finds an update would never reload.
  let controlled = navigator.serviceWorker.controller !== null;
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    const wasControlled = controlled;
    controlled = true;
    if (!wasControlled) return; // the first install claiming this page (workers/sw.ts)
    if (state.kind === 'applying') reloadOnce();
    else set({ kind: 'activated-elsewhere' });
  });

  registerSW({
    immediate: true,
    // workbox-window can report the same waiting worker again shortly after it was found (its
    // "waiting" event comes on a timer); once the user asked for the update, that must not take
    // the tab back to "available", or the takeover would be mistaken for another tab's.
    onNeedRefresh: () => {
      if (state.kind !== 'applying') set({ kind: 'available' });
    },
    onNeedReload: () => undefined, // handled by the controllerchange listener above; never reload unasked
    onRegisteredSW(_url, registration) {
      if (!registration) return;
      // Offline checks just fail; a long-lived tab still learns about deployments.
      setInterval(() => void (navigator.onLine && registration.update().catch(() => undefined)), UPDATE_CHECK_MS);
    },
    onRegisterError: (error: unknown) => console.error('Recollect: service worker registration failed; offline use is unavailable.', error),
  });

  return {
    getState: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    applyUpdate() {
      set({ kind: 'applying' });
      void (async () => {
        // Told directly, and watched directly: the page reloads when this page's controller changes
        // (above) or when the waiting version reports itself activated, whichever is seen first —
        // a missed controllerchange must not leave the tab at "Reloading…" on the old version.
        const waiting = (await navigator.serviceWorker.getRegistration())?.waiting;
        if (!waiting) {
          reloadOnce(); // it already took over
          return;
        }
        waiting.addEventListener('statechange', () => {
          if (waiting.state === 'activated') reloadOnce();
        });
        waiting.postMessage({ type: 'SKIP_WAITING' });
      })();
    },
    reload: reloadOnce,
  };
}

/** Where service workers are unavailable (dev server, insecure origins, old browsers). */
export const noServiceWorker: ServiceWorkerUpdates = {
  getState: () => ({ kind: 'current' }),
  subscribe: () => () => undefined,
  applyUpdate: () => undefined,
  reload: () => window.location.reload(),
};
