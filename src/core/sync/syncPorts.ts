/**
 * What the sync service needs from outside src/core, as small interfaces (docs/sync.md):
 *
 * - `SyncLogStore`: the device's event log (storage/syncRepo.ts, schema v17): every synced event it
 *   holds by id, its own un-uploaded ones forming the outbox, and the sync state.
 * - `SyncRelay`: the relay's ordered, append-only stream per owner (relay/durableStreamsRelay.ts over
 *   Durable Streams). It sees only sealed envelopes.
 * - `SyncSecretStore`: where the recovery phrase is kept — the device's settings, never the memory
 *   database, so an exported `.sqlite` file never carries it.
 */
import type { SealedEvent } from './syncEnvelope';
import type { SyncEvent } from './syncEvents';

export type SyncOrigin = 'local' | 'remote';

/** The sync state kept in the database (never the phrase). */
export interface SyncStateRecord {
  readonly deviceId: string | null;
  readonly ownerId: string | null;
  readonly relayUrl: string | null;
  /** The relay offset read up to; null: from the start. */
  readonly offset: string | null;
  /** The clock's last reading, so a restarted device never issues an earlier timestamp. */
  readonly hlc: string | null;
  /** When this device last had nothing left to send or read (epoch ms). */
  readonly lastSyncedAt: number | null;
  /**
   * The owner this device moved away from ("Remove my data from the relay") whose stream is still to
   * be deleted on the relay: kept until the deletion succeeds, so a relay that was down at the time,
   * or a closed tab, does not leave the old copy behind for good.
   */
  readonly retiring: string | null;
  /** '1' while "also sync the endpoint key" is ticked on this device. */
  readonly shareEndpoint: string | null;
}

export interface SyncLogStore {
  /** Stores the events not held yet (by id) and returns those, in the order given. */
  add(events: readonly SyncEvent[], origin: SyncOrigin): Promise<SyncEvent[]>;
  /** Every event held, oldest clock first (the fold is rebuilt from it at start). */
  all(): Promise<SyncEvent[]>;
  /** The outbox: events not yet on the relay, oldest clock first. */
  outbox(limit: number): Promise<SyncEvent[]>;
  outboxCount(): Promise<number>;
  markUploaded(ids: readonly string[]): Promise<void>;
  /** Which of these event ids the log holds. */
  held(ids: readonly string[]): Promise<Set<string>>;
  /** The relay lost its copy: every event held goes up again (others dedupe by id). Returns how many. */
  reupload(): Promise<number>;
  /** Deleted means gone: blanks the text of a turn's (or memory's) events, keeping that they existed. */
  forgetText(kind: 'turn' | 'memory', id: string): Promise<void>;
  /**
   * A conversation's titles older than the rename that now wins (`beforeHlc`) can never show again:
   * they are blanked, so a title Forget redacted does not stay in the log.
   */
  forgetOldTitles(conversationId: string, beforeHlc: string): Promise<void>;
  state(): Promise<SyncStateRecord>;
  setState(patch: Partial<SyncStateRecord>): Promise<void>;
  /** Leaving sync: the log and the state go; the memory itself stays. */
  clear(): Promise<void>;
}

/** Why the relay could not be used; `code` picks the status line. */
export class SyncRelayError extends Error {
  constructor(
    readonly code: 'relay-unreachable' | 'stream-missing' | 'relay-refused',
    message: string,
  ) {
    super(message);
  }
}

export interface RelayBatch {
  readonly items: readonly unknown[];
  /** Where the next read starts. */
  readonly offset: string;
}

export interface SyncRelay {
  /** Creates the owner's stream if it is not there (idempotent). */
  ensure(ownerId: string): Promise<void>;
  /** Appends sealed events through an idempotent producer (a retried request is stored once). */
  append(ownerId: string, producerId: string, items: readonly SealedEvent[]): Promise<void>;
  /** Everything after `offset` (null: from the start) up to now; does not wait. */
  read(ownerId: string, offset: string | null): Promise<RelayBatch>;
  /** Waits (long-poll, polling again after each timeout) until something arrives after `offset`; `cancel` ends the wait with no items. */
  wait(ownerId: string, offset: string | null): { readonly result: Promise<RelayBatch>; cancel(): void };
  /**
   * Deletes the owner's stream (its ciphertext) and leaves an empty marker saying the memory moved to
   * another owner, so a device still holding the old phrase stops instead of taking a missing stream
   * for a wiped relay and uploading everything again. Idempotent.
   */
  retire(ownerId: string): Promise<void>;
  /** Whether the owner's stream was retired (its marker is there). */
  retired(ownerId: string): Promise<boolean>;
}

export interface SyncSecretStore {
  loadSyncPhrase(): Promise<string | null>;
  saveSyncPhrase(phrase: string | null): Promise<void>;
}
