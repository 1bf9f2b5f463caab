/**
 * The synced events: what one device tells the others, sealed per event before it reaches a relay
 * (docs/sync-spike.md, "Data mapping"). Every event has a random UUID `id` chosen by its writer (the
 * fold dedupes by it), an `hlc` timestamp (hybridClock.ts) and the writing `deviceId`.
 *
 * The schema is the contract between devices, so it is strict: an unknown kind or a malformed field
 * is rejected with a message naming the field, never folded half-understood. Browser entries turn
 * Zod's code generation off first (base/zodJitless.ts); nothing here depends on it.
 */
import { z } from 'zod';
import { newId } from '../base/ids';
import { type HybridClock, isDeviceId, isEncodedHlc, parseHlc } from './hybridClock';

const text = z.string().max(1_000_000);
const entityId = z.string().min(1).max(200);
const epochMs = z.number().int().nonnegative();

const base = {
  id: z.uuid(),
  hlc: z.string().refine(isEncodedHlc, { message: 'not a sync clock timestamp (wall-counter-device)' }),
  deviceId: z.string().refine(isDeviceId, { message: 'a device id is 1–64 letters, digits, "-" or "_"' }),
};

/** Per-conversation switches (memory use and remembering), each last-writer-wins on its own. */
export const CONVERSATION_SWITCHES = ['useMemory', 'remember'] as const;

/** What can change of a project after creation, each last-writer-wins on its own (never its memory mode). */
export const PROJECT_FIELDS = ['name', 'instructions', 'useProfile', 'archived'] as const;

export const syncEventSchema = z
  .discriminatedUnion('kind', [
    z.strictObject({ ...base, kind: z.literal('conversation.created'), conversationId: entityId, title: text, createdAt: epochMs }),
    z.strictObject({ ...base, kind: z.literal('conversation.renamed'), conversationId: entityId, title: text }),
    z.strictObject({
      ...base,
      kind: z.literal('conversation.switched'),
      conversationId: entityId,
      switch: z.enum(CONVERSATION_SWITCHES),
      on: z.boolean(),
    }),
    z.strictObject({ ...base, kind: z.literal('conversation.moved'), conversationId: entityId, projectId: entityId.nullable() }),
    z.strictObject({
      ...base,
      kind: z.literal('project.created'),
      projectId: entityId,
      name: text,
      instructions: text,
      memory: z.enum(['shared', 'project-only']),
      useProfile: z.boolean(),
      createdAt: epochMs,
    }),
    z.strictObject({
      ...base,
      kind: z.literal('project.set'),
      projectId: entityId,
      field: z.enum(PROJECT_FIELDS),
      value: z.union([text, z.boolean()]),
    }),
    z.strictObject({ ...base, kind: z.literal('project.deleted'), projectId: entityId }),
    z.strictObject({
      ...base,
      kind: z.literal('turn.appended'),
      conversationId: entityId,
      turnId: entityId,
      role: z.enum(['user', 'assistant', 'system']),
      text,
      occurredAt: epochMs,
      /** The turn shown just before it on the writing device ('' at the start): what a version's branch hangs from. */
      after: z.string().max(200).optional(),
      /** It opened a new version at its place (an edit or a regenerated answer): it competes with the other versions there. */
      version: z.literal(true).optional(),
    }),
    z.strictObject({ ...base, kind: z.literal('turn.edited'), turnId: entityId, text }),
    z.strictObject({ ...base, kind: z.literal('turn.deleted'), turnId: entityId }),
    /** An earlier version of a turn (hidden by an edit or a regenerated answer), or shown again. */
    z.strictObject({ ...base, kind: z.literal('turn.hidden'), turnId: entityId, hidden: z.boolean() }),
    z.strictObject({
      ...base,
      kind: z.literal('memory.written'),
      memoryId: entityId,
      text,
      /** A memory asked for in a message ("remember that …"): it goes when that turn is deleted, on every device. */
      fromTurnId: entityId.optional(),
      /** Why it was saved, as its history says (e.g. imported from another assistant). */
      reason: z.string().max(500).optional(),
    }),
    z.strictObject({ ...base, kind: z.literal('memory.edited'), memoryId: entityId, text }),
    z.strictObject({ ...base, kind: z.literal('memory.deleted'), memoryId: entityId }),
    z.strictObject({
      ...base,
      kind: z.literal('setting.set'),
      name: z.string().min(1).max(200),
      value: z.union([z.string().max(100_000), z.number(), z.boolean(), z.null()]),
    }),
    /** How many turns the writing device held when it uploaded its memory: the total of a joining device's progress. */
    z.strictObject({ ...base, kind: z.literal('device.checkpoint'), turns: z.number().int().nonnegative() }),
    /** The person deleted one of the model's items: named by a hash of its words (a fact's, a plan's) or its key (a profile item's). */
    z.strictObject({
      ...base,
      kind: z.literal('derived.forgotten'),
      item: z.enum(['fact', 'foresight', 'profile']),
      textHash: z.string().min(1).max(100),
    }),
    z.strictObject({
      ...base,
      kind: z.literal('derived.recorded'),
      derivedKind: z.enum(['episode', 'fact', 'plan', 'theme', 'profile']),
      /** What the record was made from: source turn ids and the generator's name and version. */
      madeFrom: z.strictObject({ turnIds: z.array(entityId).min(1), generator: z.string().min(1).max(200) }),
      payload: z.json(),
    }),
  ])
  .refine((event) => parseHlc(event.hlc).deviceId === event.deviceId, {
    message: 'the clock timestamp was issued by another device than the event names',
    path: ['hlc'],
  });

export type SyncEvent = z.infer<typeof syncEventSchema>;
export type SyncEventKind = SyncEvent['kind'];
/** An event before it is stamped: the writer adds id, hlc and deviceId (see stampEvent). */
export type SyncEventBody = SyncEvent extends infer E ? (E extends SyncEvent ? Omit<E, 'id' | 'hlc' | 'deviceId'> : never) : never;

/** Thrown for an event another device sent that this version cannot read; `code` for the status line. */
export class SyncEventError extends Error {
  readonly code = 'sync-event-invalid';
}

/** Validates one decrypted event; the error names the event id (when readable) and the bad fields. */
export function parseSyncEvent(value: unknown): SyncEvent {
  const result = syncEventSchema.safeParse(value);
  if (result.success) return result.data;
  const id = typeof value === 'object' && value !== null && 'id' in value ? String((value as { id: unknown }).id) : '(no id)';
  const fields = result.error.issues.map((issue) => `${issue.path.join('.') || 'event'}: ${issue.message}`).join('; ');
  throw new SyncEventError(`Synced event ${id} is not one this version can read — ${fields}.`);
}

/** A new local event: stamped with a fresh id and the device's next clock reading, then validated. */
export function stampEvent(body: SyncEventBody, clock: HybridClock, id: string = newId()): SyncEvent {
  return parseSyncEvent({ ...body, id, hlc: clock.tick(), deviceId: clock.deviceId });
}
