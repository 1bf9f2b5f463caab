/**
 * What a device puts on a relay: one sealed envelope per synced event (docs/sync-spike.md,
 * "Encryption"). Standard WebCrypto throughout:
 *
 * - HKDF-SHA-256 over the normalised recovery phrase (salt `recollect-sync-v1`) gives two outputs
 *   with distinct `info`: a 128-bit owner id (the stream name; it reveals nothing of the key) and a
 *   non-extractable AES-256-GCM event key.
 * - Each event gets a fresh random 96-bit IV; the additional data is `ownerId/eventId`, so an
 *   envelope cannot be replayed under another event id or into another memory.
 * - The plaintext is length-prefixed and padded to the next power of two (at least 2 KiB), so the
 *   relay learns a size bucket, not a length.
 *
 * Opening checks everything a person could get wrong or a relay could alter, and says which.
 */
import { checkRecoveryPhrase } from './recoveryPhrase';
import { parseSyncEvent, type SyncEvent } from './syncEvents';
import { type CryptoKeyHandle, fromBase64, fromUtf8, randomBytes, subtle, toBase64, toHex, utf8 } from './webCrypto';

export interface SyncKeys {
  readonly ownerId: string;
  readonly key: CryptoKeyHandle;
}

/** Only this leaves the device. */
export interface SealedEvent {
  readonly v: 1;
  readonly id: string;
  readonly iv: string;
  readonly ct: string;
}

export const MIN_PADDED_BYTES = 2048;

/** Why an envelope could not be opened; `code` for the sync status, the message for a person. */
export class SyncEnvelopeError extends Error {
  constructor(
    readonly code: 'envelope-malformed' | 'envelope-undecryptable',
    message: string,
  ) {
    super(message);
  }
}

/** Derives the owner id and event key; throws RecoveryPhraseError for a phrase that is not one. */
export async function deriveSyncKeys(phrase: string): Promise<SyncKeys> {
  const normalised = checkRecoveryPhrase(phrase);
  const ikm = await subtle().importKey('raw', utf8(normalised), 'HKDF', false, ['deriveKey', 'deriveBits']);
  const salt = utf8('recollect-sync-v1');
  const ownerBits = await subtle().deriveBits({ name: 'HKDF', hash: 'SHA-256', salt, info: utf8('owner-id') }, ikm, 128);
  const key = await subtle().deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt, info: utf8('event-key') },
    ikm,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
  return { ownerId: toHex(new Uint8Array(ownerBits)), key };
}

/** The size a plaintext of `length` bytes is padded to (4-byte length prefix included). */
export function paddedSize(length: number): number {
  let size = MIN_PADDED_BYTES;
  while (size < length + 4) size *= 2;
  return size;
}

function pad(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(paddedSize(bytes.length));
  new DataView(out.buffer).setUint32(0, bytes.length);
  out.set(bytes, 4);
  return out;
}

function unpad(id: string, bytes: Uint8Array): Uint8Array {
  const length = bytes.length >= 4 ? new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0) : -1;
  if (length < 0 || length > bytes.length - 4)
    throw new SyncEnvelopeError('envelope-malformed', `Synced event ${id} has an impossible length.`);
  return bytes.subarray(4, 4 + length);
}

export async function sealEvent(keys: SyncKeys, event: SyncEvent): Promise<SealedEvent> {
  const iv = randomBytes(12);
  const additionalData = utf8(`${keys.ownerId}/${event.id}`);
  const ct = await subtle().encrypt({ name: 'AES-GCM', iv, additionalData }, keys.key, pad(utf8(JSON.stringify(event))));
  return { v: 1, id: event.id, iv: toBase64(iv), ct: toBase64(new Uint8Array(ct)) };
}

function readEnvelope(value: unknown): SealedEvent {
  const v = value as Partial<Record<keyof SealedEvent, unknown>> | null;
  const id = typeof v?.id === 'string' ? v.id : '(no id)';
  if (typeof v !== 'object' || v === null || v.v !== 1 || typeof v.id !== 'string' || typeof v.iv !== 'string' || typeof v.ct !== 'string')
    throw new SyncEnvelopeError('envelope-malformed', `Synced item ${id} is not a version-1 sealed event (v, id, iv, ct).`);
  return v as SealedEvent;
}

/** Opens and validates one envelope; the event inside must carry the envelope's id. */
export async function openEvent(keys: SyncKeys, value: unknown): Promise<SyncEvent> {
  const sealed = readEnvelope(value);
  let iv: Uint8Array;
  let ct: Uint8Array;
  try {
    iv = fromBase64(sealed.iv);
    ct = fromBase64(sealed.ct);
  } catch {
    throw new SyncEnvelopeError('envelope-malformed', `Synced event ${sealed.id} is not valid base64.`);
  }
  let plain: ArrayBuffer;
  try {
    plain = await subtle().decrypt({ name: 'AES-GCM', iv, additionalData: utf8(`${keys.ownerId}/${sealed.id}`) }, keys.key, ct);
  } catch {
    throw new SyncEnvelopeError(
      'envelope-undecryptable',
      `Synced event ${sealed.id} could not be decrypted: it was sealed with another recovery phrase, or altered on the relay.`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(fromUtf8(unpad(sealed.id, new Uint8Array(plain))));
  } catch (error) {
    if (error instanceof SyncEnvelopeError) throw error;
    throw new SyncEnvelopeError('envelope-malformed', `Synced event ${sealed.id} decrypted to something that is not JSON.`);
  }
  const event = parseSyncEvent(parsed);
  if (event.id !== sealed.id)
    throw new SyncEnvelopeError('envelope-malformed', `Synced event ${sealed.id} holds event ${event.id}: the envelope was relabelled.`);
  return event;
}
