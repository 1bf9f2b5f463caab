/**
 * How an episode is named and described to a person. Most episodes of a large memory have no
 * title until synthesis writes one (54% of one daily-use memory were "Untitled episode"), so the
 * name falls back to the start of its narrative, then to its first turn's words. The states the
 * code calls raw, queued, synthesised and failed are said in plain words.
 */
import type { MemCellStatus } from '../base/types';

/** Longest fallback name, in characters, before it is cut at a word with "…". */
const NAME_CHARS = 70;

/** Text as a one-line name: Markdown marks and line breaks out, cut at a word. */
export function firstWords(text: string, max = NAME_CHARS): string {
  const plain = text
    .replace(/```[\s\S]*?(```|$)/g, ' ') // code blocks say little about what the episode is
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[#>*_`~|]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (plain.length <= max) return plain;
  const cut = plain.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.–—-]+$/, '')}…`;
}

export interface Nameable {
  readonly title: string | null;
  readonly narrative?: string | null;
  /** The first words of the episode's first turn (MemCellSummary.opening). */
  readonly opening?: string | null;
}

/** The episode's title, or a name from its narrative or first turn. */
export function episodeName(cell: Nameable): string {
  const title = cell.title?.trim();
  if (title) return title;
  for (const text of [cell.narrative, cell.opening]) {
    const name = text ? firstWords(text) : '';
    if (name) return name;
  }
  return 'An episode with no words left';
}

/** Where the episode stands, in plain words (never "raw (open)"). */
export function episodeState(status: MemCellStatus, open = false): string {
  if (open) return 'still growing: new messages join it';
  switch (status) {
    case 'raw':
      return 'not summarised yet';
    case 'queued':
      return 'waiting to be summarised';
    case 'synthesised':
      return 'summarised';
    case 'failed':
      return 'summarising failed';
  }
}

/** A plan's state and origin in plain words (never "active · date-parser"). */
export function planState(status: 'active' | 'expired' | 'dismissed', source: 'llm' | 'date-parser' | 'user'): string {
  const state = status === 'active' ? 'ahead or under way' : status === 'expired' ? 'past' : 'dismissed';
  const from = source === 'user' ? 'written by you' : source === 'date-parser' ? 'from a date you mentioned' : 'from a conversation';
  return `${state} · ${from}`;
}
