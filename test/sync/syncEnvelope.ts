/**
 * Spike only (see docs/sync-spike.md): the per-event encryption a Recollect device would apply
 * before anything reaches a relay. Standard WebCrypto throughout — HKDF-SHA-256 from the recovery
 * phrase to an AES-256-GCM key and a separate owner id, a fresh 96-bit IV per event, the owner id
 * and event id bound as additional data, and the plaintext padded to a size bucket so the relay
 * learns only a coarse length. Not wired into src/ yet.
 */
const enc = new TextEncoder();
const dec = new TextDecoder();
const subtle = globalThis.crypto.subtle;

export interface SyncKeys {
  readonly ownerId: string;
  readonly key: CryptoKey;
}

/** The relay addresses a memory by this id; it is derived, so it reveals nothing of the key. */
export async function deriveSyncKeys(phrase: string): Promise<SyncKeys> {
  const normalised = phrase.normalize('NFKD').trim().toLowerCase().split(/\s+/).join(' ');
  if (normalised.split(' ').length < 12) throw new Error('A recovery phrase has at least 12 words.');
  const ikm = await subtle.importKey('raw', enc.encode(normalised), 'HKDF', false, ['deriveKey', 'deriveBits']);
  const salt = enc.encode('recollect-sync-v1');
  const ownerBits = await subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt, info: enc.encode('owner-id') }, ikm, 128);
  const key = await subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt, info: enc.encode('event-key') },
    ikm,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
  return { ownerId: Buffer.from(ownerBits).toString('hex'), key };
}

/** What a device puts on the relay: only this leaves the device. */
export interface SealedEvent {
  readonly v: 1;
  readonly id: string;
  readonly iv: string;
  readonly ct: string;
}

/** Pads to the next power of two (≥ 2 KiB) so a 1,100-character turn and a 1,900-character one look alike. */
function pad(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  let size = 2048;
  while (size < bytes.length + 4) size *= 2;
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, bytes.length);
  out.set(bytes, 4);
  return out;
}

function unpad(bytes: Uint8Array): Uint8Array {
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0);
  if (length > bytes.length - 4) throw new Error('A synced event has an impossible length.');
  return bytes.subarray(4, 4 + length);
}

export async function sealEvent(keys: SyncKeys, id: string, event: unknown): Promise<SealedEvent> {
  const iv = globalThis.crypto.getRandomValues(new Uint8Array(12));
  const additionalData = enc.encode(`${keys.ownerId}/${id}`);
  const ct = await subtle.encrypt({ name: 'AES-GCM', iv, additionalData }, keys.key, pad(enc.encode(JSON.stringify(event))));
  return { v: 1, id, iv: Buffer.from(iv).toString('base64'), ct: Buffer.from(ct).toString('base64') };
}

export async function openEvent(keys: SyncKeys, sealed: SealedEvent): Promise<unknown> {
  const additionalData = enc.encode(`${keys.ownerId}/${sealed.id}`);
  let plain: ArrayBuffer;
  try {
    plain = await subtle.decrypt(
      { name: 'AES-GCM', iv: Buffer.from(sealed.iv, 'base64'), additionalData },
      keys.key,
      Buffer.from(sealed.ct, 'base64'),
    );
  } catch {
    throw new Error(`Synced event ${sealed.id} could not be decrypted: wrong phrase or altered on the relay.`);
  }
  return JSON.parse(dec.decode(unpad(new Uint8Array(plain))));
}
