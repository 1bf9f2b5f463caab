/**
 * Conversation titles: a new conversation is "New conversation" until its first message is sent,
 * then it takes its title from that message (first line, cut at a word near 48 characters). When an
 * endpoint is set, the engine later asks it for a better one (engine/conversationTitles.ts).
 * Deleting a turn such a title was made from remakes it from what remains (titleAfterDeletion).
 */
import type { TitleSource } from './types';

export const UNTITLED = 'New conversation';

const MAX = 48;

const TITLE_SOURCES: readonly TitleSource[] = ['none', 'message', 'endpoint', 'user'];

/**
 * Who titled a conversation, from the source stored with it. Conversations from before titles were
 * tracked have none recorded: a title other than the placeholder then counts as the user's.
 */
export function titleSourceOf(stored: unknown, title: string): { readonly titledBy: TitleSource; readonly recorded: boolean } {
  const recorded = TITLE_SOURCES.find((s) => s === stored);
  return recorded ? { titledBy: recorded, recorded: true } : { titledBy: title === UNTITLED ? 'none' : 'user', recorded: false };
}

export function titleFrom(text: string): string {
  const line = text.trim().split('\n')[0]!.replace(/\s+/g, ' ').trim();
  if (line.length <= MAX) return line || UNTITLED;
  const cut = line.slice(0, MAX);
  const space = cut.lastIndexOf(' ');
  return `${(space > MAX / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:!?-]+$/, '')}…`;
}

/** A deleted turn, as far as titles care. */
export interface TitleTurn {
  readonly role: string;
  readonly seq: number;
  readonly content: string;
}

/** What a conversation keeps after a deletion, as far as titles care: its first turn of each role. */
export interface RemainingTurns {
  readonly firstUser: TitleTurn | null;
  readonly firstAssistantSeq: number | null;
}

/**
 * The title a conversation takes after `deleted` turns left it, or null when its title stays.
 * An automatic title was made from turns that are still the first of their role, since turns are
 * only ever appended: the first message's title from the first user turn, the endpoint's from that
 * turn and the first answer (conversationTitles.ts reads no other). When one of those went, the
 * title may quote it, so it is remade from the first remaining user turn without asking the
 * endpoint again — or is the placeholder, so the next message titles it. A title the person typed
 * stays, except a title stored before sources were recorded (`recorded` false) that is exactly the
 * deleted first message's title: that one was made from it, not typed.
 */
export function titleAfterDeletion(
  current: { readonly title: string; readonly titledBy: TitleSource; readonly recorded: boolean },
  deleted: readonly TitleTurn[],
  remaining: RemainingTurns,
): { readonly title: string; readonly titledBy: Extract<TitleSource, 'none' | 'message'> } | null {
  const wasFirst = (t: TitleTurn, remainingSeq: number | null | undefined) => remainingSeq == null || t.seq < remainingSeq;
  const firstUserWent = deleted.filter((t) => t.role === 'user' && wasFirst(t, remaining.firstUser?.seq));
  const firstAnswerWent = deleted.some((t) => t.role === 'assistant' && wasFirst(t, remaining.firstAssistantSeq));
  let madeFromDeleted: boolean;
  switch (current.titledBy) {
    case 'message':
      madeFromDeleted = firstUserWent.length > 0;
      break;
    case 'endpoint':
      madeFromDeleted = firstUserWent.length > 0 || firstAnswerWent;
      break;
    case 'user':
      madeFromDeleted = !current.recorded && firstUserWent.some((t) => titleFrom(t.content) === current.title);
      break;
    case 'none':
      madeFromDeleted = false;
      break;
  }
  if (!madeFromDeleted) return null;
  return remaining.firstUser
    ? { title: titleFrom(remaining.firstUser.content), titledBy: 'message' }
    : { title: UNTITLED, titledBy: 'none' };
}
