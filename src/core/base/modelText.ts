/**
 * A model's output made storable. Small models on this device (byte-level BPE, decoded token by
 * token) often write bytes that are not UTF-8, or end a piece in the middle of a multi-byte
 * character: the decoder turns each such sequence into U+FFFD. They also emit the odd control
 * byte. A user's message with many of these is refused as binary (limits.ts looksBinary), which
 * made such an answer fail to store and the whole answer was lost. Model text is cleaned instead:
 * the broken characters are dropped and counted. Only the model's words are touched — the user's
 * own messages are validated, never rewritten.
 */

// U+FFFD; C0 controls and DEL except tab, newline and carriage return; unpaired surrogates.
// Matching control bytes is the point here.
const BROKEN =
  // eslint-disable-next-line no-control-regex
  /\uFFFD|[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// For streamed pieces: a surrogate pair may be split between two pieces, so only the rest.
// eslint-disable-next-line no-control-regex
const BROKEN_IN_PIECE = /\uFFFD|[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;

export interface CleanedModelText {
  readonly text: string;
  /** How many broken characters were dropped. */
  readonly dropped: number;
}

/** The whole of a model's reply without its broken characters. */
export function cleanModelText(text: string): CleanedModelText {
  let dropped = 0;
  const cleaned = text.replace(BROKEN, () => {
    dropped++;
    return '';
  });
  return { text: cleaned, dropped };
}

/** One streamed piece, cleaned the same way (a split surrogate pair is left for the whole reply). */
export function cleanModelPiece(piece: string): string {
  return piece.replace(BROKEN_IN_PIECE, '');
}
