/**
 * ChatGPT data export (Settings → Data controls → Export data): conversations.json is an array of
 * conversations, each a tree of message nodes (`mapping`: id → {message, parent, children}) whose
 * visible branch ends at `current_node`. Editing a prompt or regenerating an answer adds a sibling
 * branch; only the branch the user last saw is imported.
 *
 * Kept: user and assistant messages addressed to everyone. Skipped: system and tool messages,
 * assistant messages addressed to a tool (code, browsing calls), hidden context (custom
 * instructions, model reasoning). Non-text parts (images, audio, files) become short placeholders.
 */
import type { ImportedConversation, ImportedTurn } from '../core/base/historyImport';
import { SkipEntry, asRecord, secondsToMs, text, titleOf } from './parseHelpers';

interface Node {
  readonly message?: unknown;
  readonly parent?: unknown;
  readonly children?: unknown;
}

/** Node ids from the root to `leaf`, following parent links (cycle-safe). */
function branchTo(mapping: Record<string, Node>, leaf: string): string[] {
  const path: string[] = [];
  const seen = new Set<string>();
  let id: string | null = leaf;
  while (id && mapping[id] && !seen.has(id)) {
    seen.add(id);
    path.push(id);
    const parent: unknown = mapping[id]!.parent;
    id = typeof parent === 'string' ? parent : null;
  }
  return path.reverse();
}

/** Without a usable current_node: the newest leaf (what the user most likely saw last). */
function newestLeaf(mapping: Record<string, Node>): string | null {
  let best: string | null = null;
  let bestTime = -Infinity;
  for (const [id, node] of Object.entries(mapping)) {
    if (Array.isArray(node.children) && node.children.length > 0) continue;
    const t = Number(asRecord(node.message)?.create_time ?? 0);
    if (best === null || t > bestTime) {
      best = id;
      bestTime = t;
    }
  }
  return best;
}

const HIDDEN_TYPES = new Set(['thoughts', 'reasoning_recap', 'user_editable_context', 'model_editable_context', 'system_error', 'tether_browsing_display', 'execution_output']);

function partText(part: unknown): string {
  if (typeof part === 'string') return part;
  const p = asRecord(part);
  if (!p) return '';
  const type = text(p.content_type);
  if (type === 'audio_transcription') return text(p.text);
  if (type === 'image_asset_pointer') return '[image]';
  if (type === 'audio_asset_pointer' || type === 'real_time_user_audio_video_asset_pointer') return '[audio]';
  if (type === 'video_container_asset_pointer') return '[video]';
  return type ? `[${type.replace(/_/g, ' ')}]` : '';
}

/** The visible text of a message's content, with placeholders for what is not text. */
export function chatgptContentText(content: unknown, metadata: unknown): string {
  const c = asRecord(content);
  const type = text(c?.content_type);
  let body = '';
  if (!c || HIDDEN_TYPES.has(type)) body = '';
  else if (type === 'code') body = `\`\`\`${text(c.language) === 'unknown' ? '' : text(c.language)}\n${text(c.text)}\n\`\`\``;
  else if (type === 'tether_quote') body = `[quote: ${text(c.title) || text(c.url) || 'web page'}]\n${text(c.text)}`;
  else if (Array.isArray(c.parts)) body = c.parts.map(partText).filter((s) => s.length > 0).join('\n');
  else if (typeof c.text === 'string') body = c.text;
  else if (type) body = `[${type.replace(/_/g, ' ')}]`;
  const attachments = asRecord(metadata)?.attachments;
  const files = Array.isArray(attachments) ? attachments.map((a) => `[file: ${text(asRecord(a)?.name) || 'attachment'}]`) : [];
  return [body.trim(), ...files].filter((s) => s.length > 0).join('\n');
}

export function parseChatGptConversation(raw: unknown): ImportedConversation {
  const conv = asRecord(raw);
  if (!conv) throw new SkipEntry('entries that are not conversations');
  const id = text(conv.id) || text(conv.conversation_id);
  const mapping = asRecord(conv.mapping) as Record<string, Node> | null;
  if (!id || !mapping) throw new SkipEntry('conversations without an id or message tree');
  const convTime = secondsToMs(conv.create_time);
  const createdAt = Number.isFinite(convTime) && convTime > 0 ? convTime : 0;
  const current = text(conv.current_node);
  const leaf = current && mapping[current] ? current : newestLeaf(mapping);
  const turns: ImportedTurn[] = [];
  let last = createdAt;
  for (const nodeId of leaf ? branchTo(mapping, leaf) : []) {
    const msg = asRecord(mapping[nodeId]!.message);
    if (!msg) continue;
    const role = text(asRecord(msg.author)?.role);
    if (role !== 'user' && role !== 'assistant') continue;
    const meta = asRecord(msg.metadata);
    if (meta?.is_visually_hidden_from_conversation === true) continue;
    const recipient = text(msg.recipient);
    if (recipient && recipient !== 'all') continue;
    const content = chatgptContentText(msg.content, meta);
    if (!content) continue;
    const t = secondsToMs(msg.create_time);
    // Some exported messages carry no time: keep them in order just after the previous one.
    const occurredAt = Number.isFinite(t) && t > 0 ? t : last + 1;
    last = occurredAt;
    // "Branch in new chat" copies the shared messages, ids included, into the new conversation:
    // a message id is unique only within its conversation.
    const messageId = text(msg.id) || nodeId;
    turns.push({ id: `chatgpt:${id}:${messageId}`, formerId: `chatgpt:${messageId}`, role, content, occurredAt });
  }
  return { id: `chatgpt:${id}`, title: titleOf(conv.title, turns), createdAt: createdAt || turns[0]?.occurredAt || 0, turns };
}
