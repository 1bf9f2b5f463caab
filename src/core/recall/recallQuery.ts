/**
 * The part of a message that recall searches with. A pasted document asked about ("Summarise
 * this: …", "… what do you think?") names what it asks at its start or its end; the rest only
 * adds query words, and query analysis is not linear in them: chrono-node's end-of-period refiner
 * matches a `$`-anchored pattern against the text before every date it finds, so a 900,000-character
 * message spent 8 of its 10 seconds of recall there (Node, 2-core machine). Recall therefore reads
 * the first and last RECALL_QUERY_CHARS / 2 characters; the model still receives the whole message.
 */

/** Characters of a message recall reads: far above a question, a few paragraphs of a paste. */
export const RECALL_QUERY_CHARS = 2_000;

/** `text` cut to its head and tail at word boundaries when longer than `max`; else unchanged. */
export function recallQuery(text: string, max = RECALL_QUERY_CHARS): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  let head = text.slice(0, half);
  let tail = text.slice(text.length - half);
  // At a space when there is one near the cut (a cut word is a word recall would not find).
  const lastSpace = head.search(/\s\S*$/);
  if (lastSpace > half * 0.8) head = head.slice(0, lastSpace);
  const firstSpace = tail.search(/\s/);
  if (firstSpace >= 0 && firstSpace < half * 0.2) tail = tail.slice(firstSpace + 1);
  // Never half of a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  if (/^[\uDC00-\uDFFF]/.test(tail)) tail = tail.slice(1);
  return `${head}\n…\n${tail}`;
}
