/**
 * Titles by the endpoint: after a conversation's first exchange, when an endpoint is set, one small
 * call ('title' stage, counted in token accounting like every call) asks for a short title. The
 * title taken from the first message stays when the call fails, returns nothing usable, or the
 * user renamed the conversation meanwhile; a conversation is titled this way once. A title made
 * from turns deleted while the call ran is dropped (deleting them remade the title already).
 */
import { cleanModelText } from '../base/modelText';
import type { Llm } from '../base/ports';
import type { Conversation, MessageWindow, MessageWindowRequest } from '../base/types';

export const TITLE_STAGE = 'title';
const TITLE_MAX_TOKENS = 24;
const TITLE_MAX_CHARS = 60;
/** Enough of each turn to see what the conversation is about. */
const EXCERPT_CHARS = 1_500;
/**
 * Turns read to decide whether this was the first exchange: a longer conversation is not titled
 * (reading it whole after every answer cost seconds at 100,000 turns).
 */
const TITLE_WINDOW = 40;

const TITLE_SYSTEM =
  'You name conversations. Reply with a short title for this conversation: at most six words, no quotes, no full stop, nothing else.';

export interface TitleDeps {
  readonly llm: Llm | null;
  readonly getConversation: (id: string) => Promise<Conversation | null>;
  readonly messageWindow: (conversationId: string, request: MessageWindowRequest) => Promise<MessageWindow>;
}

/** The model's reply as a title: first line, no "Title:" label, quotes or trailing stop; null when empty. */
export function cleanTitleReply(reply: string): string | null {
  const line =
    cleanModelText(reply)
      .text.trim()
      .split('\n')
      .find((l) => l.trim()) ?? '';
  const t = line
    .replace(/^\s*(title\s*:\s*)/i, '')
    .replace(/^[\s"'“”‘’*#]+|[\s"'“”‘’*.]+$/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (!t) return null;
  return t.length <= TITLE_MAX_CHARS ? t : `${t.slice(0, TITLE_MAX_CHARS - 1).trimEnd()}…`;
}

/**
 * The endpoint's title for the conversation if this was its first exchange and nobody but Recollect
 * titled it; null otherwise (the caller stores it, recording that the endpoint gave it).
 */
export async function titleByEndpoint(deps: TitleDeps, conversationId: string): Promise<string | null> {
  if (!deps.llm) return null;
  const window = await deps.messageWindow(conversationId, { limit: TITLE_WINDOW });
  if (window.total > window.messages.length) return null;
  const turns = window.messages;
  const first = turns.find((t) => t.role === 'user');
  const answer = turns.find((t) => t.role === 'assistant');
  if (!first || !answer || turns.filter((t) => t.role === 'assistant').length !== 1) return null;
  const conversation = await deps.getConversation(conversationId);
  // Only a title Recollect gave (none yet, or the first message's): never overwrite the user's own.
  if (!conversation || (conversation.titledBy !== 'none' && conversation.titledBy !== 'message')) return null;
  let reply: string;
  try {
    reply = (
      await deps.llm.complete({
        stage: TITLE_STAGE,
        maxTokens: TITLE_MAX_TOKENS,
        temperature: 0,
        messages: [
          { role: 'system', content: TITLE_SYSTEM },
          {
            role: 'user',
            content: `User: ${first.content.slice(0, EXCERPT_CHARS)}\n\nAssistant: ${answer.content.slice(0, EXCERPT_CHARS)}`,
          },
        ],
      })
    ).text;
  } catch {
    return null; // the first message's title stays
  }
  const title = cleanTitleReply(reply);
  if (!title) return null;
  const now = await deps.getConversation(conversationId);
  if (!now || now.titledBy === 'user') return null; // the user renamed it while we asked
  // A turn it was made from was deleted while we asked: the title may quote it (deletedTitles.ts).
  const after = await deps.messageWindow(conversationId, { limit: TITLE_WINDOW });
  if (!after.messages.some((t) => t.id === first.id) || !after.messages.some((t) => t.id === answer.id)) return null;
  return title;
}
