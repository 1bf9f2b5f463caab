/**
 * The speaker names recall looks for in a question, as the read path asks for them while a history
 * import may be storing turns.
 *
 * Reading the names groups every stored turn by speaker (no index serves it); the store keeps the
 * answer until the memory changes, and during an import it changes with every batch, so each recall
 * scanned the whole growing table again: 110–560 ms of a recall at 5,000–15,000 long turns on a
 * loaded 2-core machine, longer than everything else the recall did, and synchronous, so the
 * question's embedding (a reply from the model worker) waited behind it too. While an import runs,
 * the list read last is used again; the first recall after the import reads it afresh. A name that
 * first appears in the import's later turns is therefore recognised in questions once the import
 * has ended; the turns themselves are found by their words at once, as always.
 */
export function speakersDuringImport(read: () => Promise<readonly string[]>, importing: () => boolean): () => Promise<readonly string[]> {
  let last: readonly string[] | null = null;
  return async () => {
    if (last && importing()) return last;
    last = await read();
    return last;
  };
}
