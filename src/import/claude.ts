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
import type { ImportedConversation, ImportedProject, ImportedTurn } from '../core/base/historyImport';
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
  const blocks = Array.isArray(msg.content)
    ? msg.content.map((b, i) => blockText(b, docs, `${key}:${i}`)).filter((s) => s.trim().length > 0)
    : [];
  const body = blocks.length > 0 ? blocks.join('\n\n') : text(msg.text);
  // An attachment that is also listed in `files` is named once.
  const attached = attachmentText(msg.attachments);
  const files = fileNames(msg.files).filter((f) => !attached.some((a) => a.startsWith(f)));
  return [body.trim(), ...attached, ...files].filter((s) => s.length > 0).join('\n');
}

/** What choosing the branch needs of a message. */
export interface MessageLink {
  readonly uuid: string;
  readonly parent: unknown;
  readonly createdAt: unknown;
}

export function messageLink(msg: Record<string, unknown>): MessageLink {
  return { uuid: text(msg.uuid), parent: msg.parent_message_uuid, createdAt: msg.created_at };
}

/**
 * Positions (in `links`) of the messages of the branch the user last saw: from the newest message
 * (or the export's current leaf) back through `parent_message_uuid`. Without parent links, all
 * messages in order.
 */
export function visibleBranch(currentLeaf: unknown, links: readonly MessageLink[]): number[] {
  const all = links.map((_, i) => i);
  if (links.length === 0 || !links.every((m) => typeof m.parent === 'string' && m.uuid)) return all;
  const byId = new Map(links.map((m, i) => [m.uuid, i]));
  let leaf = byId.get(text(currentLeaf));
  if (leaf === undefined) {
    let bestTime = -Infinity;
    for (const i of all) {
      const t = toMs(links[i]!.createdAt);
      if (leaf === undefined || (Number.isFinite(t) ? t : bestTime) >= bestTime) {
        leaf = i;
        if (Number.isFinite(t)) bestTime = t;
      }
    }
  }
  const path: number[] = [];
  const seen = new Set<string>();
  for (let m = leaf; m !== undefined && !seen.has(links[m]!.uuid); m = byId.get(text(links[m]!.parent))) {
    seen.add(links[m]!.uuid);
    path.push(m);
  }
  return path.reverse();
}

/** An artifact write in block `block` of a message. */
export interface ArtifactWrite {
  readonly block: number;
  readonly id: string;
  readonly title: string;
  readonly write: DocumentWrite;
}

export function artifactWritesOf(msg: Record<string, unknown>): ArtifactWrite[] {
  if (!Array.isArray(msg.content)) return [];
  const out: ArtifactWrite[] = [];
  msg.content.forEach((block, k) => {
    const b = asRecord(block);
    const input = asRecord(b?.input);
    if (text(b?.type) !== 'tool_use' || text(b?.name) !== 'artifacts' || !input) return;
    const write = artifactWrite(input);
    if (write) out.push({ block: k, id: text(input.id) || 'artifact', title: text(input.title), write });
  });
  return out;
}

/** Replays every artifact write of the branch (in order): each document's final text goes where it was last written. */
export function replayArtifacts(branch: readonly number[], writesAt: (index: number) => readonly ArtifactWrite[] | undefined): DocumentLog {
  const docs = new DocumentLog();
  branch.forEach((index, i) => {
    for (const w of writesAt(index) ?? []) docs.write(w.id, w.title, w.write, `${i}:${w.block}`);
  });
  return docs;
}

/** The turns of the branch, message by message in branch order (shared with the streamed reader of a huge entry). */
export class ClaudeTurns {
  readonly #conversationId: string;
  readonly #docs: DocumentLog;
  #last: number;

  constructor(conversationId: string, created: number, docs: DocumentLog) {
    this.#conversationId = conversationId;
    this.#docs = docs;
    this.#last = Number.isFinite(created) ? created : 0;
  }

  /** The turn the message at branch position `i` adds, if any. */
  add(i: number, msg: Record<string, unknown>): ImportedTurn | null {
    const sender = text(msg.sender);
    const role = sender === 'human' || sender === 'user' ? 'user' : sender === 'assistant' ? 'assistant' : null;
    if (!role) return null;
    const content = claudeMessageText(msg, this.#docs, String(i));
    if (!content) return null;
    const t = toMs(msg.created_at);
    const occurredAt = Number.isFinite(t) ? t : this.#last + 1;
    this.#last = occurredAt;
    return { id: `claude:${text(msg.uuid) || `${this.#conversationId}:${i}`}`, role, content, occurredAt };
  }
}

/**
 * A project from the export's projects.json (an array) or projects/<uuid>.json (one each):
 * `{uuid, name, description, is_private, is_starter_project, prompt_template, created_at,
 * updated_at, creator, docs: [{uuid, filename, content, created_at}]}`. The name and the
 * instructions (`prompt_template`) are kept; knowledge docs are not imported. The example project
 * every account starts with (`is_starter_project`) is left out. SkipEntry when it is not a project.
 */
export function parseClaudeProject(raw: unknown): ImportedProject {
  const p = asRecord(raw);
  const uuid = text(p?.uuid);
  if (!p || !uuid) throw new SkipEntry('projects without an id');
  if (p.is_starter_project === true) throw new SkipEntry("Claude's example project (not imported)");
  const instructions = text(p.prompt_template).trim();
  return {
    sourceId: `claude:project:${uuid}`,
    name: text(p.name).trim() || `Claude project ${uuid.slice(0, 8)}`,
    ...(instructions ? { instructions } : {}),
  };
}

/**
 * The project a conversation names, if it names one. Claude exports up to mid-2026 carry no link
 * from a conversation to its project (no `project_uuid`); a `project_uuid` or `project: {uuid, name}`
 * is used when present.
 */
export function claudeProjectRef(conv: Record<string, unknown>): ImportedProject | undefined {
  const nested = asRecord(conv.project);
  const uuid = text(conv.project_uuid) || text(nested?.uuid);
  if (!uuid) return undefined;
  return { sourceId: `claude:project:${uuid}`, name: text(nested?.name).trim() || `Claude project ${uuid.slice(0, 8)}` };
}

export function parseClaudeConversation(raw: unknown): ImportedConversation {
  const conv = asRecord(raw);
  const id = text(conv?.uuid);
  if (!conv || !id || !Array.isArray(conv.chat_messages)) throw new SkipEntry('conversations without an id or messages');
  const created = toMs(conv.created_at);
  const all = conv.chat_messages.map(asRecord).filter((m): m is Record<string, unknown> => m !== null);
  const branch = visibleBranch(conv.current_leaf_message_uuid, all.map(messageLink));
  const docs = replayArtifacts(branch, (index) => artifactWritesOf(all[index]!));
  const builder = new ClaudeTurns(id, created, docs);
  const turns: ImportedTurn[] = [];
  branch.forEach((index, i) => {
    const turn = builder.add(i, all[index]!);
    if (turn) turns.push(turn);
  });
  const project = claudeProjectRef(conv);
  return {
    id: `claude:${id}`,
    title: titleOf(conv.name, turns),
    createdAt: Number.isFinite(created) ? created : (turns[0]?.occurredAt ?? 0),
    turns,
    ...(project ? { project } : {}),
  };
}
