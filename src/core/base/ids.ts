/** Random ids for new records: crypto.randomUUID, present in every target (browsers, workers, Node ≥ 19). */
export function newId(): string {
  return (globalThis as unknown as { crypto: { randomUUID(): string } }).crypto.randomUUID();
}
