/**
 * Conversation titles: a new conversation is "New conversation" until its first message is sent,
 * then it takes its title from that message (first line, cut at a word near 48 characters). When an
 * endpoint is set, the engine later asks it for a better one (engine/conversationTitles.ts).
 */
export const UNTITLED = 'New conversation';

const MAX = 48;

export function titleFrom(text: string): string {
  const line = text.trim().split('\n')[0]!.replace(/\s+/g, ' ').trim();
  if (line.length <= MAX) return line || UNTITLED;
  const cut = line.slice(0, MAX);
  const space = cut.lastIndexOf(' ');
  return `${(space > MAX / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:!?-]+$/, '')}…`;
}
