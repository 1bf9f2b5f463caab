/**
 * A canonical serialisation and its SHA-256, so two devices can compare what they hold without
 * trusting key order or whitespace: object keys sorted by code unit, no spaces, arrays in their own
 * order (callers sort them), and only JSON values (undefined, functions and non-finite numbers are
 * refused, since they would serialise differently or not at all).
 *
 * Synchronous on purpose: the fold keys derived records by a hash of what they were made from, and a
 * fold that awaited WebCrypto per record would be slower and harder to reason about. `@noble/hashes`
 * is an audited SHA-256 (the same code `@scure/bip39` already runs for its checksum).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`Cannot hash a non-finite number (${value}).`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  throw new Error(`Cannot hash a value of type ${typeof value}.`);
}

/** Lower-case hex SHA-256 of the value's canonical serialisation. */
export function canonicalHash(value: unknown): string {
  return bytesToHex(sha256(utf8ToBytes(canonicalJson(value))));
}
