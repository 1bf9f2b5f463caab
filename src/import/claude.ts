/**
 * Claude data export (Settings → Privacy → Export data): conversations.json is an array of
 * conversations `{uuid, name, created_at, updated_at, chat_messages: [{uuid, parent_message_uuid,
 * sender: human|assistant, text, content: [{type, text, …}], created_at, attachments, files}]}`.
 *
 * Since 2025 an edited prompt or a retried answer adds a sibling message (`parent_message_uuid`)
 * and every branch is listed flat; only the branch ending at the newest message is imported —
 * the conversation as the user last saw it. Older exports (no parent links) are one branch.
 *
 * Kept: text blocks of human and assistant messages (or the flat `text` when there are no
 * blocks); the final text of each artifact (document) at its last write; the extracted text of
 * attachments (a long paste arrives as a `paste.txt` attachment: the user's own words).
 * Skipped: thinking and tool results. Other tool calls, images and files become placeholders.
 */
import type { ImportedConversation, ImportedTurn } from '../core/base/historyImport';
import { SkipEntry, asRecord, text, titleOf, toMs } from './parseHelpers';
import { DocumentLog, type DocumentWrite } from './documents';

function artifactWrite(input: Record<string, unknown>): DocumentWrite | null {
  const command = text(input.command);
  if (command === 'update') return { kind: 'replace', find: text(input.old_str), replace: text(input.new_str) };
  if (command === 'create' || command === 'rewrite' || typeof input.content === 'string') return { kind: 'set', text: text(input.content) };
  return null;
}

function blockText(block: unknown, docs: DocumentLog, at: string): string {
  const b = asRecord(block);
  if (!b) return '';
  const type = text(b.type);
  if (type === 'text') return text(b.text);
  if (type === 'tool_use') {
    const input = asRecord(b.input);
    if (text(b.name) === 'artifacts' && input) return docs.finalAt(at).join('\n\n') || `[document: ${text(input.title) || 'Untitled'}]`;
    return `[tool: ${text(b.name) || 'call'}]`;
  }
  if (type === 'image') return '[image]';
  if (type === 'document') return '[document]';
  return ''; // thinking, tool_result, redacted blocks: not part of what was said
}

/** Attachments: the name, and the text Claude extracted from them (a pasted text is one of them). */
function attachmentText(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.map((f) => {
    const a = asRecord(f);
    const name = text(a?.file_name) || 'attachment';
    const extracted = text(a?.extracted_content).trim();
    return extracted ? `[file: ${name}]\n${extracted}` : `[file: ${name}]`;
  });
}

function fileNames(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.map((f) => `[file: ${text(asRecord(f)?.file_name) || 'attachment'}]`);
}

export function claudeMessageText(msg: Record<string, unknown>, docs = new DocumentLog(), key = ''): string {
  const blocks = Array.isArray(msg.content) ? msg.content.map((b, i) => blockText(b, docs, `${key}:${i}`)).filter((s) => s.trim().length > 0) : [];
  const body = blocks.length > 0 ? blocks.join('\n\n') : text(msg.text);
  // An attachment that is also listed in `files` is named once.
  const attached = attachmentText(msg.attachments);
  const files = fileNames(msg.files).filter((f) => !attached.some((a) => a.startsWith(f)));
  return [body.trim(), ...attached, ...files].filter((s) => s.length > 0).join('\n');
}

/**
 * The messages of the branch the user last saw: from the newest message (or the export's
 * current leaf) back through `parent_message_uuid`. Without parent links, all messages in order.
 */
function visibleBranch(conv: Record<string, unknown>, messages: Record<string, unknown>[]): Record<string, unknown>[] {
  if (messages.length === 0 || !messages.every((m) => typeof m.parent_message_uuid === 'string' && text(m.uuid))) return messages;
  const byId = new Map(messages.map((m) => [text(m.uuid), m]));
  let leaf = byId.get(text(conv.current_leaf_message_uuid));
  if (!leaf) {
    let bestTime = -Infinity;
    for (const m of messages) {
      const t = toMs(m.created_at);
      if (!leaf || (Number.isFinite(t) ? t : bestTime) >= bestTime) {
        leaf = m;
        if (Number.isFinite(t)) bestTime = t;
      }
    }
  }
  const path: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  for (let m = leaf; m && !seen.has(text(m.uuid)); m = byId.get(text(m.parent_message_uuid))) {
    seen.add(text(m.uuid));
    path.push(m);
  }
  return path.reverse();
}

export function parseClaudeConversation(raw: unknown): ImportedConversation {
  const conv = asRecord(raw);
  const id = text(conv?.uuid);
  if (!conv || !id || !Array.isArray(conv.chat_messages)) throw new SkipEntry('conversations without an id or messages');
  const created = toMs(conv.created_at);
  const messages = visibleBranch(conv, conv.chat_messages.map(asRecord).filter((m): m is Record<string, unknown> => m !== null));
  // Replay every artifact write first: each document's final text goes where it was last written.
  const docs = new DocumentLog();
  messages.forEach((msg, i) => {
    if (!Array.isArray(msg.content)) return;
    msg.content.forEach((block, k) => {
      const b = asRecord(block);
      const input = asRecord(b?.input);
      if (text(b?.type) !== 'tool_use' || text(b?.name) !== 'artifacts' || !input) return;
      const write = artifactWrite(input);
      if (write) docs.write(text(input.id) || 'artifact', text(input.title), write, `${i}:${k}`);
    });
  });
  const turns: ImportedTurn[] = [];
  let last = Number.isFinite(created) ? created : 0;
  messages.forEach((msg, i) => {
    const sender = text(msg.sender);
    const role = sender === 'human' || sender === 'user' ? 'user' : sender === 'assistant' ? 'assistant' : null;
    if (!role) return;
    const content = claudeMessageText(msg, docs, String(i));
    if (!content) return;
    const t = toMs(msg.created_at);
    const occurredAt = Number.isFinite(t) ? t : last + 1;
    last = occurredAt;
    turns.push({ id: `claude:${text(msg.uuid) || `${id}:${i}`}`, role, content, occurredAt });
  });
  return { id: `claude:${id}`, title: titleOf(conv.name, turns), createdAt: Number.isFinite(created) ? created : turns[0]?.occurredAt ?? 0, turns };
}
