/**
 * ChatGPT data export (Settings → Data controls → Export data): conversations.json is an array of
 * conversations, each a tree of message nodes (`mapping`: id → {message, parent, children}) whose
 * visible branch ends at `current_node`. Editing a prompt or regenerating an answer adds a sibling
 * branch; only the branch the user last saw is imported.
 *
 * Kept: user and assistant messages addressed to everyone; the final text of each Canvas
 * document (its create and update writes replayed) once, as an assistant turn at its last write,
 * marked `[document: Name]`; an `[image]` for each image a tool generated, in the answer that
 * follows. Skipped: system and other tool messages, assistant messages addressed to a tool (code,
 * browsing calls), hidden context (custom instructions, model reasoning). Non-text parts (images,
 * audio, files) become short placeholders, one per upload; citation markup is removed.
 *
 * 2026 exports may split conversations.json into conversations-000.json, -001.json… (readHistory
 * reads every member).
 */
import type { ImportedConversation, ImportedProject, ImportedTurn } from '../core/base/historyImport';
import { SkipEntry, asRecord, secondsToMs, text, titleOf } from './parseHelpers';
import { DocumentLog, type DocumentWrite } from './documents';
import { stripChatGptMarkup } from '../core/base/chatgptMarkup';

export interface Node {
  readonly message?: unknown;
  readonly parent?: unknown;
  readonly children?: unknown;
}

/** Node ids from the root to `leaf`, following parent links (cycle-safe). */
export function branchTo(parentOf: (id: string) => unknown, has: (id: string) => boolean, leaf: string): string[] {
  const path: string[] = [];
  const seen = new Set<string>();
  let id: string | null = leaf;
  while (id && has(id) && !seen.has(id)) {
    seen.add(id);
    path.push(id);
    const parent: unknown = parentOf(id);
    id = typeof parent === 'string' ? parent : null;
  }
  return path.reverse();
}

/** What choosing the branch needs of a node: its parent, whether it is a leaf, and its time. */
export interface NodeLink {
  readonly parent: unknown;
  readonly leaf: boolean;
  readonly time: number;
}

export function nodeLink(value: unknown): NodeLink {
  const node = asRecord(value) ?? {};
  return {
    parent: node.parent,
    leaf: !(Array.isArray(node.children) && node.children.length > 0),
    time: Number(asRecord(node.message)?.create_time ?? 0),
  };
}

/** Without a usable current_node: the newest leaf (what the user most likely saw last). */
export function newestLeaf(nodes: Iterable<readonly [string, NodeLink]>): string | null {
  let best: string | null = null;
  let bestTime = -Infinity;
  for (const [id, node] of nodes) {
    if (!node.leaf) continue;
    if (best === null || node.time > bestTime) {
      best = id;
      bestTime = node.time;
    }
  }
  return best;
}

const HIDDEN_TYPES = new Set([
  'thoughts',
  'reasoning_recap',
  'user_editable_context',
  'model_editable_context',
  'system_error',
  'tether_browsing_display',
  'execution_output',
]);

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

/** ChatGPT's private-use citation and entity markup (core/base/chatgptMarkup), stripped as turns are read. */
export { stripChatGptMarkup as stripCitations } from '../core/base/chatgptMarkup';

const IMAGE_FILE = /\.(png|jpe?g|gif|webp|heic|bmp|tiff?)$/i;

/** The visible text of a message's content, with placeholders for what is not text. */
export function chatgptContentText(content: unknown, metadata: unknown): string {
  const c = asRecord(content);
  const type = text(c?.content_type);
  let body = '';
  let images = 0;
  if (!c || HIDDEN_TYPES.has(type)) body = '';
  else if (type === 'code') body = `\`\`\`${text(c.language) === 'unknown' ? '' : text(c.language)}\n${text(c.text)}\n\`\`\``;
  else if (type === 'tether_quote') body = `[quote: ${text(c.title) || text(c.url) || 'web page'}]\n${text(c.text)}`;
  else if (Array.isArray(c.parts)) {
    const parts = c.parts.map(partText).filter((s) => s.length > 0);
    images = parts.filter((s) => s === '[image]').length;
    body = parts.join('\n');
  } else if (typeof c.text === 'string') body = c.text;
  else if (type) body = `[${type.replace(/_/g, ' ')}]`;
  const attachments = asRecord(metadata)?.attachments;
  const files: string[] = [];
  // An uploaded image is both a part of the message and an attachment: one placeholder, not two.
  for (const a of Array.isArray(attachments) ? attachments : []) {
    const r = asRecord(a);
    const name = text(r?.name);
    if (images > 0 && (text(r?.mime_type).startsWith('image/') || IMAGE_FILE.test(name))) {
      images--;
      continue;
    }
    files.push(`[file: ${name || 'attachment'}]`);
  }
  return [stripChatGptMarkup(body).trim(), ...files].filter((s) => s.length > 0).join('\n');
}

/** A Canvas write: the document it creates or patches (the write is a JSON message to the canmore tool). */
export interface CanvasWrite {
  readonly create: boolean;
  readonly title: string;
  readonly writes: readonly DocumentWrite[];
}

/** The Canvas write an assistant message carries, or null. */
export function canvasWriteOf(message: unknown): CanvasWrite | null {
  const msg = asRecord(message);
  if (!msg || text(asRecord(msg.author)?.role) !== 'assistant') return null;
  const recipient = text(msg.recipient);
  if (recipient !== 'canmore.create_textdoc' && recipient !== 'canmore.update_textdoc') return null;
  const c = asRecord(msg.content);
  const raw = typeof c?.text === 'string' ? c.text : Array.isArray(c?.parts) ? c.parts.filter((p) => typeof p === 'string').join('') : '';
  let json: Record<string, unknown> | null;
  try {
    json = asRecord(JSON.parse(raw));
  } catch {
    return null;
  }
  if (!json) return null;
  if (recipient === 'canmore.create_textdoc')
    return { create: true, title: text(json.name), writes: [{ kind: 'set', text: text(json.content) }] };
  const updates = Array.isArray(json.updates) ? json.updates.map(asRecord).filter((u): u is Record<string, unknown> => u !== null) : [];
  return {
    create: false,
    title: '',
    writes: updates.map((u) => ({ kind: 'pattern', pattern: text(u.pattern), replace: text(u.replacement), all: u.multiple === true })),
  };
}

/** Canvas documents: every write on the branch is replayed; the final text is stored once, at the last write. */
export function replayCanvas(branch: readonly string[], writeAt: (nodeId: string) => CanvasWrite | null | undefined): DocumentLog {
  const docs = new DocumentLog();
  let canvas = 0;
  for (const nodeId of branch) {
    const w = writeAt(nodeId);
    if (!w) continue;
    if (w.create) canvas++;
    for (const write of w.writes) docs.write(`canvas-${canvas}`, w.title, write, nodeId);
  }
  return docs;
}

/** Images a tool made (DALL·E, image generation): tool messages whose parts are image pointers. */
function generatedImages(msg: Record<string, unknown>): number {
  const parts = asRecord(msg.content)?.parts;
  return Array.isArray(parts) ? parts.filter((p) => text(asRecord(p)?.content_type) === 'image_asset_pointer').length : 0;
}

/**
 * The turns of a visible branch, built node by node in branch order (the whole-entry parser and
 * the streamed reader of a huge entry share it): times, Canvas documents, tool images.
 */
export class ChatGptTurns {
  readonly #conversationId: string;
  readonly #docs: DocumentLog;
  #last: number;
  #pendingImages = 0;
  #lastNode = '';

  constructor(conversationId: string, createdAt: number, docs: DocumentLog) {
    this.#conversationId = conversationId;
    this.#docs = docs;
    this.#last = createdAt;
  }

  /** The turn node `nodeId` of the branch adds, if any. */
  add(nodeId: string, message: unknown): ImportedTurn | null {
    this.#lastNode = nodeId;
    const msg = asRecord(message);
    if (!msg) return null;
    const role = text(asRecord(msg.author)?.role);
    if (role === 'tool') {
      this.#pendingImages += generatedImages(msg);
      return null;
    }
    if (role !== 'user' && role !== 'assistant') return null;
    const meta = asRecord(msg.metadata);
    if (meta?.is_visually_hidden_from_conversation === true) return null;
    const recipient = text(msg.recipient);
    if (recipient && recipient !== 'all') {
      const documents = this.#docs.finalAt(nodeId);
      return documents.length > 0 ? this.#turn(nodeId, msg, 'assistant', documents.join('\n\n')) : null;
    }
    let content = chatgptContentText(msg.content, meta);
    if (role === 'assistant' && this.#pendingImages > 0) {
      content = [Array.from({ length: this.#pendingImages }, () => '[image]').join('\n'), content].filter((s) => s).join('\n');
      this.#pendingImages = 0;
    }
    return content ? this.#turn(nodeId, msg, role, content) : null;
  }

  /** Images made at the very end (no answer after them) are a turn of their own. */
  end(): ImportedTurn | null {
    if (this.#pendingImages === 0) return null;
    return this.#turn(
      `${this.#lastNode}:images`,
      { create_time: Number.NaN },
      'assistant',
      Array.from({ length: this.#pendingImages }, () => '[image]').join('\n'),
    );
  }

  #turn(nodeId: string, msg: Record<string, unknown>, role: 'user' | 'assistant', content: string): ImportedTurn {
    const t = secondsToMs(msg.create_time);
    // Some exported messages carry no time: keep them in order just after the previous one.
    const occurredAt = Number.isFinite(t) && t > 0 ? t : this.#last + 1;
    this.#last = occurredAt;
    // "Branch in new chat" copies the shared messages, ids included, into the new conversation:
    // a message id is unique only within its conversation.
    const messageId = text(msg.id) || nodeId;
    return { id: `chatgpt:${this.#conversationId}:${messageId}`, formerId: `chatgpt:${messageId}`, role, content, occurredAt };
  }
}

/**
 * The ChatGPT project a conversation is in. A project chat carries its project's id as `gizmo_id`
 * (`g-p-` and 32 hex digits; `gizmo_type` "snorlax", and the same id as `conversation_template_id`);
 * a custom GPT's chat has a `g-` id without the `p-`, and is not a project. The export holds no
 * project names, so the project is named from its id ("ChatGPT project 685bb5"), to be renamed.
 */
export function chatgptProjectOf(conv: Record<string, unknown>): ImportedProject | undefined {
  const id = [conv.gizmo_id, conv.conversation_template_id].map(text).find((g) => g.startsWith('g-p-'));
  if (!id) return undefined;
  const tail = id.slice(4);
  return { sourceId: `chatgpt:${id}`, name: `ChatGPT project ${tail.match(/^[0-9a-f]{6}/i)?.[0] ?? (tail.slice(0, 12) || id)}` };
}

/** The conversation's id and creation time from its top-level fields; SkipEntry without an id. */
export function chatgptHeader(conv: Record<string, unknown>): { id: string; createdAt: number } {
  const id = text(conv.id) || text(conv.conversation_id);
  if (!id) throw new SkipEntry('conversations without an id or message tree');
  const convTime = secondsToMs(conv.create_time);
  return { id, createdAt: Number.isFinite(convTime) && convTime > 0 ? convTime : 0 };
}

export function parseChatGptConversation(raw: unknown): ImportedConversation {
  const conv = asRecord(raw);
  if (!conv) throw new SkipEntry('entries that are not conversations');
  const mapping = asRecord(conv.mapping) as Record<string, Node> | null;
  if (!mapping) throw new SkipEntry('conversations without an id or message tree');
  const { id, createdAt } = chatgptHeader(conv);
  const has = (nodeId: string) => Object.hasOwn(mapping, nodeId) && asRecord(mapping[nodeId]) !== null;
  const current = text(conv.current_node);
  const leaf = current && has(current) ? current : newestLeaf(Object.entries(mapping).map(([k, node]) => [k, nodeLink(node)] as const));
  const branch = leaf ? branchTo((nodeId) => mapping[nodeId]!.parent, has, leaf) : [];
  const docs = replayCanvas(branch, (nodeId) => canvasWriteOf(mapping[nodeId]!.message));
  const builder = new ChatGptTurns(id, createdAt, docs);
  const turns: ImportedTurn[] = [];
  for (const nodeId of branch) {
    const turn = builder.add(nodeId, mapping[nodeId]!.message);
    if (turn) turns.push(turn);
  }
  const images = builder.end();
  if (images) turns.push(images);
  const project = chatgptProjectOf(conv);
  return {
    id: `chatgpt:${id}`,
    title: titleOf(conv.title, turns),
    createdAt: createdAt || turns[0]?.occurredAt || 0,
    turns,
    ...(project ? { project } : {}),
  };
}
