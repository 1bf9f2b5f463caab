/**
 * Sync on the engine's side (docs/sync.md): this device's changes become sealed events on a relay,
 * and other devices' events become writes here, through the engine's own write paths.
 *
 * - Recording is a diff against the fold: after a local write, `note*` compares what the store
 *   now holds with what the fold (every event held) says, and stamps an event only for a
 *   difference. A write that applied a remote event finds no difference, so nothing echoes back,
 *   and a repeated note records nothing twice. Notes are queued behind applies (one serial
 *   queue), so a diff never sees a half-applied remote change.
 * - Applying (syncIngest.ts) reconciles each touched record to the fold: the later clock wins per register,
 *   tombstones win over everything (SyncFold.ts), whatever order events arrive in.
 * - Events are kept in the log (schema v17) by id: duplicated deliveries and a device's own events
 *   read back are dropped there. The log's un-uploaded rows are the outbox; a relay that lost the
 *   stream (wiped) gets every held event again, and the others dedupe.
 *
 * Off (the default) it holds nothing and contacts nothing: every note returns at once.
 */
import { RecollectError } from '../base/errors';
import type { EpisodeSynthesis } from '../synthesis/knowledge';
import type { DerivedTheme } from '../synthesis/derivedEpisode';
import type { ProfileSideUpdate } from '../synthesis/profileUpdate';
import type { ProfileHeld } from './syncProfile';
import type { Clock } from '../base/ports';
import type { Timer } from '../base/jobs';
import { HybridClock } from '../sync/hybridClock';
import { SyncFold, syncStateHash } from '../sync/SyncFold';
import { generateRecoveryPhrase, RecoveryPhraseError } from '../sync/recoveryPhrase';
import { deriveSyncKeys, sealEvent, type SyncKeys } from '../sync/syncEnvelope';
import { stampEvent, type SyncEvent, type SyncEventBody } from '../sync/syncEvents';
import { SyncRelayError, type SyncLogStore, type SyncRelay, type SyncSecretStore } from '../sync/syncPorts';
import { SYNC_OFF, type SyncStatus } from '../protocol/sync';
import { syncWritesDiff, type SyncWrites } from './syncWrites';
import { ingestItems, SYNC_BATCH } from './syncIngest';

export interface SyncServiceDeps {
  readonly log: SyncLogStore;
  readonly secrets: SyncSecretStore;
  readonly relayFor: (relayUrl: string) => SyncRelay;
  readonly writes: SyncWrites;
  readonly clock: Clock;
  readonly timer: Timer;
  readonly newId: () => string;
  /** Whether the device has a network at all (navigator.onLine); tells "offline" from "relay unreachable". */
  readonly online?: () => boolean;
  readonly onStatus: (status: SyncStatus) => void;
}

const RETIRED_PHRASE =
  'This phrase no longer opens this memory: it was removed from the relay on another device, which made a new phrase. Your memory here is unchanged; join again with the new phrase.';
const RETRY_MS = [1_000, 2_000, 5_000, 15_000, 30_000];

interface Session {
  readonly keys: SyncKeys;
  readonly deviceId: string;
  readonly relay: SyncRelay;
  readonly relayUrl: string;
  readonly fold: SyncFold;
  readonly clock: HybridClock;
  offset: string | null;
  ensured: boolean;
  stopped: boolean;
  cancelWait: (() => void) | null;
  cancelSleep: (() => void) | null;
}

const OFF = SYNC_OFF;

export class SyncService {
  readonly #d: SyncServiceDeps;
  #session: Session | null = null;
  #queue: Promise<unknown> = Promise.resolve();
  #status: SyncStatus = OFF;
  #checkpointTotal = 0;

  constructor(deps: SyncServiceDeps) {
    this.#d = deps;
  }

  get on(): boolean {
    return this.#session !== null;
  }

  /** At engine start: resumes sync when this device kept a phrase. */
  async start(): Promise<void> {
    if (this.#session) return; // already running (a restart after an import stops it first)
    try {
      const phrase = await this.#d.secrets.loadSyncPhrase();
      if (!phrase) return;
      const state = await this.#d.log.state();
      // A memory replaced by an imported file has no sync state: sync stays off until turned on again.
      if (!state.deviceId || !state.relayUrl) return;
      await this.#open(phrase, state.deviceId, state.relayUrl, state.offset);
    } catch (error) {
      // Sync never blocks the engine: the status says what is wrong.
      this.#setStatus({ ...OFF, message: `Sync could not resume: ${error instanceof Error ? error.message : String(error)}` });
    }
  }

  stop(): void {
    const s = this.#session;
    if (!s) return;
    s.stopped = true;
    s.cancelWait?.();
    s.cancelSleep?.();
    this.#session = null;
  }

  async enable(relayUrl: string): Promise<{ phrase: string; status: SyncStatus }> {
    if (this.#session) throw new RecollectError('INVALID_INPUT', 'Sync is already on. Leave it first to start over with a new phrase.');
    const phrase = generateRecoveryPhrase();
    await this.#begin(phrase, relayUrl, true);
    return { phrase, status: this.#status };
  }

  async join(phrase: string, relayUrl: string): Promise<SyncStatus> {
    if (this.#session) throw new RecollectError('INVALID_INPUT', 'Sync is already on. Leave it first to join another memory.');
    try {
      await deriveSyncKeys(phrase);
    } catch (error) {
      if (error instanceof RecoveryPhraseError) throw new RecollectError('INVALID_INPUT', error.message);
      throw error;
    }
    const { ownerId } = await deriveSyncKeys(phrase);
    let retired = false;
    try {
      retired = await this.#d.relayFor(checkRelayUrl(relayUrl)).retired(ownerId);
    } catch {
      // An unreachable relay is not a refusal: joining goes on and the status says what is wrong.
    }
    if (retired) throw new RecollectError('INVALID_INPUT', RETIRED_PHRASE);
    await this.#begin(phrase, relayUrl, false);
    return this.#status;
  }

  /**
   * "Remove my data from the relay": a new phrase (returned once), everything this device holds
   * uploaded again under the new owner, then the old owner's stream deleted on the relay, leaving a
   * marker that stops any device still on the old phrase (it must join again with the new one).
   * The deletion waits in the sync state until it succeeds, so a relay that is down now gets it
   * at the next exchange. Returns after the first exchange (the status says if it could not run).
   */
  async removeFromRelay(): Promise<{ phrase: string; status: SyncStatus }> {
    const old = this.#session;
    if (!old) throw new RecollectError('INVALID_INPUT', 'Sync is not on: this memory has nothing on a relay to remove.');
    this.stop();
    const phrase = generateRecoveryPhrase();
    await this.#serial(async () => {
      const { retiring } = await this.#d.log.state();
      // An earlier rotation whose deletion is still pending keeps its place: that owner goes first.
      if (!retiring) await this.#d.log.setState({ retiring: old.keys.ownerId });
      await this.#d.log.setState({ offset: null });
      await this.#d.log.reupload();
      await this.#d.secrets.saveSyncPhrase(phrase);
    });
    const s = await this.#open(phrase, old.deviceId, old.relayUrl, null, false);
    const status = await this.syncNow();
    if (!s.stopped) void this.#run(s);
    return { phrase, status };
  }

  /** "Also sync the endpoint key" (SyncApi.shareEndpoint). */
  async shareEndpoint(on: boolean): Promise<SyncStatus> {
    const s = this.#session;
    if (!s) throw new RecollectError('INVALID_INPUT', 'Turn sync on first: the endpoint key can only be shared with devices in sync.');
    if (typeof on !== 'boolean') throw new RecollectError('INVALID_INPUT', 'Say whether to share the endpoint key: on or off.');
    await this.#serial(async () => {
      await this.#d.log.setState({ shareEndpoint: on ? '1' : null });
      this.#setStatus({ ...this.#status, sharesEndpoint: on });
      await this.#record(s, await syncWritesDiff.endpoint(this.#d.writes, s.fold, on));
    });
    return this.syncNow();
  }

  /** The endpoint was saved here: sent again if this device shares it. */
  noteEndpoint(): void {
    if (this.#status.sharesEndpoint) this.#note((s) => syncWritesDiff.endpoint(this.#d.writes, s.fold, true));
  }

  async leave(): Promise<SyncStatus> {
    this.stop();
    await this.#serial(async () => {
      await this.#d.log.clear();
      await this.#d.secrets.saveSyncPhrase(null);
    });
    this.#setStatus(OFF);
    return this.#status;
  }

  status(): SyncStatus {
    return this.#status;
  }

  stateHash(): string | null {
    return this.#session ? syncStateHash(this.#session.fold.state()) : null;
  }

  /** Sends the outbox and reads what the relay holds after this device's offset, now. */
  async syncNow(): Promise<SyncStatus> {
    const s = this.#session;
    if (!s) return this.#status;
    try {
      await this.#serial(() => this.#exchange(s));
    } catch (error) {
      await this.#failed(s, error);
    }
    return this.#status;
  }

  // ---- notes from the write paths (no-ops while off) --------------------------------------------

  noteConversation(id: string): void {
    this.#note((s) => syncWritesDiff.conversation(this.#d.writes, s.fold, id));
  }
  noteTurns(turnIds: readonly string[]): void {
    if (turnIds.length) this.#note((s) => syncWritesDiff.turns(this.#d.writes, s.fold, turnIds));
  }
  noteTurnsDeleted(turnIds: readonly string[]): void {
    if (turnIds.length) this.#note(async (s) => syncWritesDiff.deletedTurns(s.fold, turnIds));
  }
  noteTurnsHidden(turnIds: readonly string[]): void {
    if (turnIds.length) this.#note(async (s) => syncWritesDiff.hiddenTurns(s.fold, turnIds));
  }
  noteVersionsGone(conversationId: string): void {
    this.#note((s) => syncWritesDiff.versionsGone(this.#d.writes, s.fold, conversationId));
  }
  noteMemory(id: string): void {
    this.#note((s) => syncWritesDiff.memory(this.#d.writes, s.fold, id));
  }
  /** Compares every synced conversation and hand-written memory with the store (after Forget, which changes many at once). */
  noteSweep(): void {
    this.#note((s) => syncWritesDiff.sweep(this.#d.writes, s.fold));
  }
  noteProject(id: string): void {
    this.#note((s) => syncWritesDiff.project(this.#d.writes, s.fold, id));
  }
  /** This device's model synthesised an episode: recorded for the others (or the record that came first written here). */
  noteEpisode(memcellId: string): void {
    this.#note((s) => syncWritesDiff.episode(this.#d.writes, s.fold, memcellId));
  }
  /** What another device's model made of this episode's turns, if a record for them is held (sync on). */
  async derivedEpisode(memcellId: string): Promise<EpisodeSynthesis | null> {
    const s = this.#session;
    return s ? syncWritesDiff.derivedEpisode(this.#d.writes, s.fold, memcellId) : null;
  }
  /** A theme was summarised here: recorded for the others (or the record that came first written here). */
  noteTheme(sceneId: string): void {
    this.#note((s) => syncWritesDiff.theme(this.#d.writes, s.fold, sceneId));
  }
  async derivedTheme(sceneId: string): Promise<DerivedTheme | null> {
    const s = this.#session;
    return s ? syncWritesDiff.derivedTheme(this.#d.writes, s.fold, sceneId) : null;
  }
  noteSettings(): void {
    this.#note((s) => syncWritesDiff.settings(this.#d.writes, s.fold));
  }
  /**
   * Before a profile update (sync on): the profile records held are applied here in clock order,
   * then whether the update may be skipped (syncProfile.ts profileCovered).
   */
  async derivedProfile(themes: () => Promise<readonly string[]>): Promise<ProfileHeld> {
    const s = this.#session;
    const profiles = this.#d.writes.profiles;
    if (!s || !profiles) return 'due';
    return this.#serial(async () => {
      if (s.stopped) return 'due';
      // Sync on from before profiles were synced: the profile made here goes up first.
      if (!(await profiles.store.appliedState()))
        await syncWritesDiff.profileBaseline(
          this.#d.writes,
          await this.#record(s, await syncWritesDiff.profileSnapshot(this.#d.writes, s.fold)),
        );
      await syncWritesDiff.profileApplied(this.#d.writes, s.fold);
      const here = { deviceId: s.deviceId, now: this.#d.clock.now() };
      return syncWritesDiff.profileCovered(this.#d.writes, s.fold, await themes(), here);
    });
  }
  /** This device's model updated the profile: recorded for the others (or undone, when an earlier record for the same themes wins). */
  async recordProfile(sides: readonly ProfileSideUpdate[]): Promise<void> {
    const s = this.#session;
    if (!s) return;
    try {
      await this.#serial(async () => {
        if (s.stopped) return;
        const events = await this.#record(s, await syncWritesDiff.profileRecord(this.#d.writes, s.fold, sides));
        await syncWritesDiff.profileRecorded(this.#d.writes, s.fold, events);
      });
      void this.#upload(s).catch((error) => this.#failed(s, error));
    } catch (error) {
      await this.#failed(s, error);
    }
  }

  #note(diff: (s: Session) => Promise<SyncEventBody[]>): void {
    const s = this.#session;
    if (!s) return;
    void this.#serial(async () => {
      if (s.stopped) return;
      await this.#record(s, await diff(s));
    })
      .then(() => this.#upload(s))
      .catch((error) => this.#failed(s, error));
  }

  // ---- inside ---------------------------------------------------------------------------------

  /** `own`: this device starts the memory (enable), so its settings are the memory's; a joining device adopts the memory's. */
  async #begin(phrase: string, relayUrl: string, own: boolean): Promise<void> {
    const url = checkRelayUrl(relayUrl);
    const deviceId = this.#d.newId();
    await this.#d.log.clear();
    await this.#d.log.setState({ deviceId, relayUrl: url, offset: null });
    await this.#d.secrets.saveSyncPhrase(phrase);
    const s = await this.#open(phrase, deviceId, url, null, false);
    // What this device already holds goes up: a checkpoint first (the total a joining device shows), then the log.
    await this.#serial(async () => {
      const turns = await this.#d.writes.turnCount();
      await this.#record(s, [{ kind: 'device.checkpoint', turns }]);
      const events = await this.#record(s, await syncWritesDiff.everything(this.#d.writes, s.fold, { settings: own }));
      // The profile uploaded (a snapshot, or none) is all this device has applied of profile records.
      await syncWritesDiff.profileBaseline(this.#d.writes, events);
    });
    void this.#run(s);
  }

  async #open(phrase: string, deviceId: string, relayUrl: string, offset: string | null, run = true): Promise<Session> {
    const keys = await deriveSyncKeys(phrase);
    this.#checkpointTotal = 0;
    const clock = new HybridClock(deviceId, this.#d.clock);
    const fold = new SyncFold();
    const held = await this.#d.log.all();
    fold.add(held);
    const state = await this.#d.log.state();
    for (const hlc of [state.hlc, held.at(-1)?.hlc]) if (hlc) clock.receive(hlc);
    await this.#d.log.setState({ ownerId: keys.ownerId });
    const s: Session = {
      keys,
      deviceId,
      relay: this.#d.relayFor(relayUrl),
      relayUrl,
      fold,
      clock,
      offset,
      ensured: false,
      stopped: false,
      cancelWait: null,
      cancelSleep: null,
    };
    this.#session = s;
    this.#setStatus({
      ...OFF,
      state: 'syncing',
      relayUrl,
      pending: await this.#d.log.outboxCount(),
      lastSyncedAt: state.lastSyncedAt,
      sharesEndpoint: state.shareEndpoint === '1',
    });
    if (run) void this.#run(s);
    return s;
  }

  /** The loop: exchange, then wait for the relay to have more; on failure, retry with growing pauses. */
  async #run(s: Session): Promise<void> {
    let failures = 0;
    while (!s.stopped) {
      try {
        await this.#serial(() => this.#exchange(s));
        failures = 0;
        const wait = s.relay.wait(s.keys.ownerId, s.offset);
        s.cancelWait = wait.cancel;
        const from = s.offset;
        const batch = await wait.result;
        s.cancelWait = null;
        if (s.stopped) return;
        if (batch.items.length) await this.#serial(() => this.#ingest(s, batch.items, from, batch.offset));
      } catch (error) {
        s.cancelWait = null;
        if (s.stopped) return;
        await this.#failed(s, error);
        await this.#sleep(s, RETRY_MS[Math.min(failures, RETRY_MS.length - 1)]!);
        failures += 1;
      }
    }
  }

  async #exchange(s: Session): Promise<void> {
    if (s.stopped) return;
    await this.#upload(s, true);
    const batch = await this.#relayCall(s, () => s.relay.read(s.keys.ownerId, s.offset));
    await this.#ingest(s, batch.items, s.offset, batch.offset);
    const pending = await this.#d.log.outboxCount();
    if (pending === 0) await this.#retirePending(s);
    if (pending === 0) {
      const now = this.#d.clock.now();
      await this.#d.log.setState({ lastSyncedAt: now });
      this.#setStatus({ ...this.#status, state: 'synced', pending, progress: null, message: null, lastSyncedAt: now });
    } else this.#setStatus({ ...this.#status, state: 'syncing', pending });
  }

  /** Runs a relay call; a stream the relay no longer has (wiped) is created again and everything held goes up again. */
  async #relayCall<T>(s: Session, call: () => Promise<T>): Promise<T> {
    if (!s.ensured) {
      if (await s.relay.retired(s.keys.ownerId)) return this.#movedAway(s);
      await s.relay.ensure(s.keys.ownerId);
      s.ensured = true;
    }
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof SyncRelayError) || error.code !== 'stream-missing') throw error;
      // Missing: retired by another device (stop), or a wiped relay (refill it).
      if (await s.relay.retired(s.keys.ownerId)) return this.#movedAway(s);
      await s.relay.ensure(s.keys.ownerId);
      s.offset = null;
      await this.#d.log.setState({ offset: null });
      await this.#d.log.reupload();
      await this.#sendOutbox(s);
      return call();
    }
  }

  /** Deletes the owner this device moved away from, once everything is up under the new one. */
  async #retirePending(s: Session): Promise<void> {
    const { retiring } = await this.#d.log.state();
    if (!retiring || retiring === s.keys.ownerId) return;
    await s.relay.retire(retiring);
    await this.#d.log.setState({ retiring: null });
  }

  /**
   * Another device removed this memory from the relay under this phrase: sync stops here, as
   * leaving does (the memory on this device stays), and the status says to join with the new phrase.
   */
  async #movedAway(s: Session): Promise<never> {
    s.stopped = true;
    s.cancelWait?.();
    if (this.#session === s) this.#session = null;
    await this.#d.log.clear();
    await this.#d.secrets.saveSyncPhrase(null);
    this.#setStatus({ ...OFF, message: RETIRED_PHRASE });
    throw new SyncRelayError('relay-refused', RETIRED_PHRASE);
  }

  /** Uploads the outbox; `serialised`: the caller already runs in the serial queue. */
  #upload(s: Session, serialised = false): Promise<void> {
    const run = () => this.#relayCall(s, () => this.#sendOutbox(s));
    return serialised ? run() : this.#serial(run);
  }

  async #sendOutbox(s: Session): Promise<void> {
    for (;;) {
      if (s.stopped) return;
      const events = await this.#d.log.outbox(SYNC_BATCH);
      if (!events.length) return;
      const sealed = await Promise.all(events.map((e) => sealEvent(s.keys, e)));
      await s.relay.append(s.keys.ownerId, s.deviceId, sealed);
      await this.#d.log.markUploaded(events.map((e) => e.id));
      this.#setStatus({ ...this.#status, pending: await this.#d.log.outboxCount() });
    }
  }

  /** Applies what the relay sent after `from` (syncIngest.ts); moves the offset on only from where it was. */
  async #ingest(s: Session, items: readonly unknown[], from: string | null, next: string): Promise<void> {
    const got = await ingestItems(
      {
        keys: s.keys,
        fold: s.fold,
        clock: s.clock,
        log: this.#d.log,
        writes: this.#d.writes,
        applied: () => {
          if (this.#checkpointTotal > 0)
            this.#setStatus({ ...this.#status, state: 'syncing', progress: { turns: s.fold.liveTurns, total: this.#checkpointTotal } });
        },
      },
      items,
      (turns) => (this.#checkpointTotal = Math.max(this.#checkpointTotal, turns)),
    );
    await this.#forgetOldTitles(s, got.fresh);
    if (s.offset === from) s.offset = next;
    await this.#d.log.setState({ offset: s.offset, hlc: s.clock.current() });
    const message = got.unreadable
      ? `${got.unreadable} synced item(s) could not be opened with this phrase and were skipped.`
      : this.#status.message;
    this.#setStatus({ ...this.#status, clockSkewMs: got.skewMs ?? this.#status.clockSkewMs, message });
  }

  async #record(s: Session, bodies: readonly SyncEventBody[]): Promise<SyncEvent[]> {
    if (!bodies.length) return [];
    const events = bodies.map((b) => stampEvent(b, s.clock));
    await this.#d.log.add(events, 'local');
    s.fold.add(events);
    for (const e of events) if (e.kind === 'turn.deleted') await this.#d.log.forgetText('turn', e.turnId);
    for (const e of events) if (e.kind === 'memory.deleted') await this.#d.log.forgetText('memory', e.memoryId);
    await this.#forgetOldTitles(s, events);
    await this.#d.log.setState({ hlc: s.clock.current() });
    this.#setStatus({ ...this.#status, state: 'syncing', pending: await this.#d.log.outboxCount() });
    return events;
  }

  /** After renames: the titles they replaced leave the log (SyncLogStore.forgetOldTitles). */
  async #forgetOldTitles(s: Session, events: readonly SyncEvent[]): Promise<void> {
    for (const id of new Set(events.flatMap((e) => (e.kind === 'conversation.renamed' ? [e.conversationId] : [])))) {
      const winner = s.fold.titleHlc(id);
      if (winner) await this.#d.log.forgetOldTitles(id, winner);
    }
  }

  async #failed(s: Session, error: unknown): Promise<void> {
    if (s.stopped) return;
    const pending = await this.#d.log.outboxCount().catch(() => this.#status.pending);
    const relay = error instanceof SyncRelayError;
    const offline = relay && error.code === 'relay-unreachable' && this.#d.online?.() === false;
    const state = offline ? 'offline' : relay ? 'relay-unreachable' : this.#status.state;
    const message = offline
      ? 'This device is offline; changes wait here and go up when it is back.'
      : error instanceof Error
        ? error.message
        : String(error);
    this.#setStatus({ ...this.#status, state, pending, message });
  }

  #sleep(s: Session, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = this.#d.timer(() => {
        s.cancelSleep = null;
        resolve();
      }, ms);
      s.cancelSleep = () => {
        t.cancel();
        resolve();
      };
    });
  }

  #serial<T>(run: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(run, run);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  #setStatus(status: SyncStatus): void {
    this.#status = status;
    this.#d.onStatus(status);
  }
}

/** The relay's base address (src/core has no URL type: checked by shape, scheme and host required). */
function checkRelayUrl(input: unknown): string {
  const text = typeof input === 'string' ? input.trim().replace(/\/+$/, '') : '';
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text))
    throw new RecollectError('INVALID_INPUT', 'Enter the relay address, such as http://127.0.0.1:4437.');
  if (!/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/i.test(text))
    throw new RecollectError('INVALID_INPUT', 'A relay address starts with http:// or https:// and names a host.');
  return text;
}
