/**
 * Receiving in sync (SyncService): what the relay sent after this device's offset is opened with
 * the memory's keys, deduplicated against the log, folded, and applied through the engine's write
 * paths (syncWrites.ts), batch by batch.
 *
 * Each batch is applied first and only then kept in the log: a tab killed (or a write failing)
 * between the two leaves the events unheld, the offset stays, and the next read brings them again
 * (applying is idempotent). Kept first, they would be skipped as held and never applied.
 */
import type { HybridClock } from '../sync/hybridClock';
import type { SyncFold } from '../sync/SyncFold';
import { openEvent, type SyncKeys } from '../sync/syncEnvelope';
import type { SyncEvent } from '../sync/syncEvents';
import type { SyncLogStore } from '../sync/syncPorts';
import { syncWritesDiff, type SyncWrites } from './syncWrites';

/** Events applied and logged per step (and sent per relay append). */
export const SYNC_BATCH = 200;

export interface IngestTarget {
  readonly keys: SyncKeys;
  readonly fold: SyncFold;
  readonly clock: HybridClock;
  readonly log: SyncLogStore;
  readonly writes: SyncWrites;
  /** After each applied batch (a joining device's progress). */
  readonly applied: () => void;
}

export interface Ingested {
  /** The events new to this device, oldest clock first. */
  readonly fresh: readonly SyncEvent[];
  /** Items that did not open with this phrase (another memory's, or altered). */
  readonly unreadable: number;
  /** How far the furthest-ahead remote clock was past this device's, when beyond the limit. */
  readonly skewMs: number | null;
}

/** `onCheckpoint`: the largest turn total a device announced (device.checkpoint), before anything is applied. */
export async function ingestItems(t: IngestTarget, items: readonly unknown[], onCheckpoint: (turns: number) => void): Promise<Ingested> {
  const opened: SyncEvent[] = [];
  let unreadable = 0;
  for (const item of items) {
    try {
      opened.push(await openEvent(t.keys, item));
    } catch {
      unreadable += 1;
    }
  }
  // Not held yet (by id; a duplicated delivery may repeat one within the batch too), oldest clock first.
  const held = await t.log.held(opened.map((e) => e.id));
  const fresh = [...new Map(opened.filter((e) => !held.has(e.id)).map((e) => [e.id, e])).values()].sort((a, b) =>
    a.hlc < b.hlc ? -1 : a.hlc > b.hlc ? 1 : 0,
  );
  let skewMs: number | null = null;
  let checkpoint = 0;
  for (const e of fresh) {
    const ahead = t.clock.receive(e.hlc);
    if (ahead) skewMs = ahead.aheadMs;
    if (e.kind === 'device.checkpoint') checkpoint = Math.max(checkpoint, e.turns);
  }
  if (checkpoint) onCheckpoint(checkpoint);
  t.fold.add(fresh);
  for (let i = 0; i < fresh.length; i += SYNC_BATCH) {
    const batch = fresh.slice(i, i + SYNC_BATCH);
    await syncWritesDiff.apply(t.writes, t.fold, batch, (kind, id) => t.log.forgetText(kind, id));
    await t.log.add(batch, 'remote');
    // A turn or memory deleted before its words reached this log: the words go from the log too.
    for (const e of batch) {
      if ((e.kind === 'turn.appended' || e.kind === 'turn.edited') && t.fold.turn(e.turnId) === 'deleted')
        await t.log.forgetText('turn', e.turnId);
      if ((e.kind === 'memory.written' || e.kind === 'memory.edited') && t.fold.memory(e.memoryId) === 'deleted')
        await t.log.forgetText('memory', e.memoryId);
    }
    t.applied();
  }
  return { fresh, unreadable, skewMs };
}
