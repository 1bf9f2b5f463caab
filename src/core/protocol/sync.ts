/**
 * Sync between devices, end-to-end encrypted through a relay (docs/sync.md): turn it on (a new
 * recovery phrase), join with a phrase, leave, and the status the UI shows. Off by default; while
 * off nothing is contacted and nothing is written. One group of EngineApi: `engine.sync.…`.
 */

/**
 * `off`: sync is not on. `synced`: nothing waits to go up or come down. `syncing`: `pending` events
 * wait to go up, or a first download runs (`progress`). `offline`: the device has no network.
 * `relay-unreachable`: the network is there but the relay is not (down, wrong address, refused).
 */
export type SyncState = 'off' | 'synced' | 'syncing' | 'offline' | 'relay-unreachable';

export interface SyncStatus {
  readonly state: SyncState;
  /** Events of this device not yet on the relay. */
  readonly pending: number;
  /** When this device last had nothing left to send or read (epoch ms), null before that. */
  readonly lastSyncedAt: number | null;
  /** While pulling a memory in: turns held so far of the total the uploading device announced. */
  readonly progress: { readonly turns: number; readonly total: number } | null;
  readonly relayUrl: string | null;
  /** What went wrong last, in words a person can act on (null when nothing did). */
  readonly message: string | null;
  /** Another device's clock is ahead of this one's by more than a minute (order stays deterministic). */
  readonly clockSkewMs: number | null;
  /** "Also sync the endpoint key" is ticked on this device: its endpoint (address, model, key) goes to the others, sealed. */
  readonly sharesEndpoint: boolean;
}

/** The status while sync is off. */
export const SYNC_OFF: SyncStatus = {
  state: 'off',
  pending: 0,
  lastSyncedAt: null,
  progress: null,
  relayUrl: null,
  message: null,
  clockSkewMs: null,
  sharesEndpoint: false,
};

export interface SyncJoinRequest {
  readonly phrase: string;
  readonly relayUrl: string;
}

export interface SyncApi {
  /** Turns sync on for this memory: a new recovery phrase (returned once, to be written down) and the upload of what is here. */
  enable(request: { readonly relayUrl: string }): Promise<{ readonly phrase: string; readonly status: SyncStatus }>;
  /** Joins the memory behind a phrase: what the relay holds comes in, what is here goes up. A mistyped phrase is refused with its reason. */
  join(request: SyncJoinRequest): Promise<SyncStatus>;
  /**
   * "Remove my data from the relay": a new phrase (returned once), what this device holds uploaded
   * under it, and the old phrase's copy deleted on the relay; other devices must join again with
   * the new phrase. Refused while sync is off.
   */
  removeFromRelay(): Promise<{ readonly phrase: string; readonly status: SyncStatus }>;
  /**
   * "Also sync the endpoint key": on, this device's endpoint (address, model and API key) is sent,
   * sealed like everything else, and the other devices use it; off, it is no longer sent and a device
   * joining later does not get it (the relay keeps the earlier copy until "Remove my data from the
   * relay"). Refused while sync is off.
   */
  shareEndpoint(on: boolean): Promise<SyncStatus>;
  /** Stops syncing and forgets the phrase; the memory on this device stays as it is. */
  leave(): Promise<SyncStatus>;
  status(): Promise<SyncStatus>;
  /** Sends what waits and reads what arrived, now; resolves with the status after. */
  syncNow(): Promise<SyncStatus>;
  /** A hash over this device's folded sync state: equal on two devices iff they hold the same memory. */
  stateHash(): Promise<string | null>;
}
