import type { RetrievalSource } from '../../src/core/recall/Retriever';

/**
 * Every method of a retrieval source bound to it, in a plain object, so a test can override or
 * record some of them (a class with private fields cannot be its prototype).
 */
export function boundSource(source: RetrievalSource): RetrievalSource {
  const s = source as unknown as Record<string, (...a: unknown[]) => unknown>;
  const names: (keyof RetrievalSource)[] = [
    'size',
    'turnIndexCurrent',
    'ownWords',
    'termStats',
    'contextWindows',
    'contextLinks',
    'lexical',
    'vector',
    'turns',
    'facts',
    'neighbours',
  ];
  return Object.fromEntries(names.map((n) => [n, s[n]!.bind(source)])) as unknown as RetrievalSource;
}
