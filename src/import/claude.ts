/**
 * Claude data export (Settings → Privacy → Export data): conversations.json is an array of
 * conversations `{uuid, name, created_at, chat_messages: [{uuid, sender: human|assistant, text,
 * content: [{type, text, …}], created_at, attachments, files}]}`; messages are already the branch
 * the user saw, in order.
 *
 * Kept: text blocks of human and assistant messages (or the flat `text` when there are no blocks).
 * Skipped: thinking and tool results. Tool calls, images and files become short placeholders.
 */
import type { ImportedConversation, ImportedTurn } from '../core/base/historyImport';
import { SkipEntry, asRecord, text, titleOf, toMs } from './parseHelpers';

function blockText(block: unknown): string {
  const b = asRecord(block);
  if (!b) return '';
  const type = text(b.type);
  if (type === 'text') return text(b.text);
  if (type === 'tool_use') return `[tool: ${text(b.name) || 'call'}]`;
  if (type === 'image') return '[image]';
  if (type === 'document') return '[document]';
  return ''; // thinking, tool_result, redacted blocks: not part of what was said
}

function fileNames(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.map((f) => `[file: ${text(asRecord(f)?.file_name) || 'attachment'}]`);
}

export function claudeMessageText(msg: Record<string, unknown>): string {
  const blocks = Array.isArray(msg.content) ? msg.content.map(blockText).filter((s) => s.trim().length > 0) : [];
  const body = blocks.length > 0 ? blocks.join('\n\n') : text(msg.text);
  return [body.trim(), ...fileNames(msg.attachments), ...fileNames(msg.files)].filter((s) => s.length > 0).join('\n');
}

export function parseClaudeConversation(raw: unknown): ImportedConversation {
  const conv = asRecord(raw);
  const id = text(conv?.uuid);
  if (!conv || !id || !Array.isArray(conv.chat_messages)) throw new SkipEntry('conversations without an id or messages');
  const created = toMs(conv.created_at);
  const turns: ImportedTurn[] = [];
  let last = Number.isFinite(created) ? created : 0;
  conv.chat_messages.forEach((m, i) => {
    const msg = asRecord(m);
    if (!msg) return;
    const sender = text(msg.sender);
    const role = sender === 'human' || sender === 'user' ? 'user' : sender === 'assistant' ? 'assistant' : null;
    if (!role) return;
    const content = claudeMessageText(msg);
    if (!content) return;
    const t = toMs(msg.created_at);
    const occurredAt = Number.isFinite(t) ? t : last + 1;
    last = occurredAt;
    turns.push({ id: `claude:${text(msg.uuid) || `${id}:${i}`}`, role, content, occurredAt });
  });
  return { id: `claude:${id}`, title: titleOf(conv.name, turns), createdAt: Number.isFinite(created) ? created : turns[0]?.occurredAt ?? 0, turns };
}
