/**
 * What the QR codes seen by the camera or found in a picture say about joining sync: the recovery
 * phrase one of them holds, checked by the same rules as a typed phrase
 * (core/sync/recoveryPhrase.ts), or why none can be used. A code that holds anything else (a web
 * address, a Wi-Fi login, eleven words) is refused, never half-used.
 */
import { checkRecoveryPhrase, RecoveryPhraseError } from '../../core/sync/recoveryPhrase';

export type QrPhrase =
  | { readonly kind: 'phrase'; readonly phrase: string }
  /** At least one code, none a recovery phrase. */
  | { readonly kind: 'not-a-phrase' }
  | { readonly kind: 'no-code' };

/** The first of `texts` (decoded QR codes) that is a recovery phrase, normalised; else why not. */
export function phraseFromCodes(texts: readonly string[]): QrPhrase {
  if (texts.length === 0) return { kind: 'no-code' };
  for (const text of texts) {
    try {
      return { kind: 'phrase', phrase: checkRecoveryPhrase(text) };
    } catch (e) {
      if (!(e instanceof RecoveryPhraseError)) throw e;
    }
  }
  return { kind: 'not-a-phrase' };
}
