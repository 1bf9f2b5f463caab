/**
 * The few platform pieces the sync envelope needs — WebCrypto, UTF-8 and base64 — typed here
 * because src/core compiles without DOM or Node types (it must run in a worker, a page and Node
 * alike). All of them are globals in every target: browsers, workers and Node ≥ 20.
 */

export interface CryptoKeyHandle {
  readonly type: string;
}

interface Subtle {
  importKey(format: 'raw', key: Uint8Array, algorithm: 'HKDF', extractable: false, usages: string[]): Promise<CryptoKeyHandle>;
  deriveBits(algorithm: HkdfParams, key: CryptoKeyHandle, length: number): Promise<ArrayBuffer>;
  deriveKey(
    algorithm: HkdfParams,
    key: CryptoKeyHandle,
    derived: { name: 'AES-GCM'; length: 256 },
    extractable: false,
    usages: string[],
  ): Promise<CryptoKeyHandle>;
  encrypt(algorithm: AesGcmParams, key: CryptoKeyHandle, data: Uint8Array): Promise<ArrayBuffer>;
  decrypt(algorithm: AesGcmParams, key: CryptoKeyHandle, data: Uint8Array): Promise<ArrayBuffer>;
}

interface HkdfParams {
  name: 'HKDF';
  hash: 'SHA-256';
  salt: Uint8Array;
  info: Uint8Array;
}

interface AesGcmParams {
  name: 'AES-GCM';
  iv: Uint8Array;
  additionalData: Uint8Array;
}

interface Platform {
  crypto: { subtle: Subtle; getRandomValues<T extends Uint8Array>(array: T): T };
  TextEncoder: new () => { encode(text: string): Uint8Array };
  TextDecoder: new (label?: string, options?: { fatal?: boolean }) => { decode(bytes: Uint8Array): string };
  btoa(binary: string): string;
  atob(base64: string): string;
}

const platform = globalThis as unknown as Platform;

export const subtle = (): Subtle => platform.crypto.subtle;

export function randomBytes(length: number): Uint8Array {
  return platform.crypto.getRandomValues(new Uint8Array(length));
}

export const utf8 = (text: string): Uint8Array => new platform.TextEncoder().encode(text);

/** Strict UTF-8 decoding: invalid bytes throw instead of turning into U+FFFD. */
export const fromUtf8 = (bytes: Uint8Array): string => new platform.TextDecoder('utf-8', { fatal: true }).decode(bytes);

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return platform.btoa(binary);
}

/** Throws on anything that is not standard base64. */
export function fromBase64(text: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) throw new Error('not base64');
  const binary = platform.atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) out[i] = binary.charCodeAt(i);
  return out;
}

export const toHex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
