/**
 * The sidebar's search over conversation titles: every word of the query must appear in the title,
 * case- and width-insensitively (NFKC folds full-width Latin and half-width kana). Words are split
 * at spaces only, and matched as substrings, so Chinese or Japanese typed without spaces finds a
 * title that holds it anywhere ("天气" in "北京的天气怎么样").
 */
function fold(text: string): string {
  return text.normalize('NFKC').toLocaleLowerCase();
}

/** A test for titles; an empty query matches every title. */
export function titleMatcher(query: string): (title: string) => boolean {
  const words = fold(query).split(/\s+/u).filter(Boolean);
  return (title) => {
    const t = fold(title);
    return words.every((w) => t.includes(w));
  };
}
