/**
 * One conversation too big to hold (a JSON entry of hundreds of MB, 120,000 turns) is read in two
 * passes over its bytes instead of being parsed whole.
 *
 * First pass (as the file streams by): only what choosing the visible branch needs — each
 * message's id and parent link, the Canvas or artifact writes, the top-level fields. The branch
 * cannot be chosen earlier: a ChatGPT export writes `current_node` after the `mapping`, and the
 * newest leaf is known only at the end. Second pass (the file read again up to that entry): the
 * branch's messages become turns as they stream and are yielded in parts, so the first turns are
 * stored seconds after the first pass, and memory holds one part, never the entry.
 */
import type { ImportedConversation, ImportedProject, ImportedTurn } from '../core/base/historyImport';
import { JsonEntryStream, type EntryPieces, type MessageCollection } from './jsonEntryStream';
import {
  ChatGptTurns,
  branchTo,
  canvasWriteOf,
  chatgptHeader,
  chatgptProjectOf,
  newestLeaf,
  nodeLink,
  replayCanvas,
  type CanvasWrite,
  type NodeLink,
} from './chatgpt';
import {
  ClaudeTurns,
  artifactWritesOf,
  claudeProjectRef,
  messageLink,
  replayArtifacts,
  visibleBranch,
  type ArtifactWrite,
  type MessageLink,
} from './claude';
import { SkipEntry, asRecord, text, titleOf, toMs } from './parseHelpers';

/** A part of a streamed conversation holds up to this many turns or characters of text. */
const PART_TURNS = 1_000;
const PART_CHARS = 1_000_000;

/** The first pass over a huge entry: what choosing its branch needs, and the top-level fields. */
export class EntrySkeleton implements EntryPieces {
  readonly fields: Record<string, unknown> = {};
  found: MessageCollection | null = null;
  /** A piece failed to parse: the entry is skipped as malformed (as a whole-entry parse would). */
  damaged = false;
  /** ChatGPT: node id → link, and the Canvas writes by node id. */
  readonly nodes = new Map<string, NodeLink>();
  readonly canvas = new Map<string, CanvasWrite>();
  /** Claude: the messages that are objects, their positions in `chat_messages`, and artifact writes by position. */
  readonly messages: MessageLink[] = [];
  readonly positions: number[] = [];
  readonly artifacts = new Map<number, ArtifactWrite[]>();
  #count = 0;

  field(key: string, source: string): void {
    try {
      this.fields[key] = JSON.parse(source);
    } catch {
      this.damaged = true;
    }
  }

  collection(name: MessageCollection): void {
    this.found = name;
  }

  member(key: string | null, source: string): void {
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch {
      this.damaged = true;
      return;
    }
    if (this.found === 'mapping') {
      if (key === null) return;
      this.nodes.set(key, nodeLink(value));
      const write = canvasWriteOf(asRecord(value)?.message);
      if (write) this.canvas.set(key, write);
      return;
    }
    const position = this.#count++;
    const msg = asRecord(value);
    if (!msg) return;
    this.messages.push(messageLink(msg));
    this.positions.push(position);
    const writes = artifactWritesOf(msg);
    if (writes.length > 0) this.artifacts.set(position, writes);
  }

  /** The entry as the format detector sees it: its fields, with the collection left empty. */
  stub(): Record<string, unknown> {
    if (this.found === 'mapping') return { ...this.fields, mapping: {} };
    if (this.found === 'chat_messages') return { ...this.fields, chat_messages: [] };
    return this.fields;
  }
}

/** The second pass's recipe: which members are on the branch (and where), and how they become turns. */
interface StreamPlan {
  readonly id: string;
  readonly title: unknown;
  readonly project: ImportedProject | undefined;
  /** The conversation's own time (NaN or 0 when it has none: then its first turn's). */
  readonly created: number;
  /** Branch position of a member: ChatGPT by node id, Claude by position in `chat_messages`. */
  position(key: string | null, index: number): number | undefined;
  readonly length: number;
  add(position: number, key: string | null, value: unknown): ImportedTurn | null;
  end(): ImportedTurn | null;
}

function chatgptPlan(s: EntrySkeleton): StreamPlan {
  const { id, createdAt } = chatgptHeader(s.fields);
  const has = (nodeId: string) => s.nodes.has(nodeId);
  const current = text(s.fields.current_node);
  const leaf = current && has(current) ? current : newestLeaf(s.nodes);
  const branch = leaf ? branchTo((nodeId) => s.nodes.get(nodeId)?.parent, has, leaf) : [];
  const at = new Map(branch.map((nodeId, i) => [nodeId, i]));
  const builder = new ChatGptTurns(
    id,
    createdAt,
    replayCanvas(branch, (nodeId) => s.canvas.get(nodeId)),
  );
  s.nodes.clear();
  s.canvas.clear();
  return {
    id: `chatgpt:${id}`,
    title: s.fields.title,
    project: chatgptProjectOf(s.fields),
    created: createdAt,
    length: branch.length,
    position: (key) => (key === null ? undefined : at.get(key)),
    add: (_, key, value) => builder.add(key!, asRecord(value)?.message),
    end: () => builder.end(),
  };
}

function claudePlan(s: EntrySkeleton): StreamPlan {
  const id = text(s.fields.uuid);
  if (!id) throw new SkipEntry('conversations without an id or messages');
  const created = toMs(s.fields.created_at);
  const branch = visibleBranch(s.fields.current_leaf_message_uuid, s.messages).map((i) => s.positions[i]!);
  const at = new Map(branch.map((position, i) => [position, i]));
  const builder = new ClaudeTurns(
    id,
    created,
    replayArtifacts(branch, (position) => s.artifacts.get(position)),
  );
  return {
    id: `claude:${id}`,
    title: s.fields.name,
    project: claudeProjectRef(s.fields),
    created,
    length: branch.length,
    position: (_, index) => at.get(index),
    add: (i, _, value) => builder.add(i, asRecord(value) ?? {}),
    end: () => null,
  };
}

/** The plan for a skeleton's conversation; SkipEntry when it has no id. */
export function planStream(s: EntrySkeleton): StreamPlan {
  return s.found === 'mapping' ? chatgptPlan(s) : claudePlan(s);
}

export interface ConversationPart {
  readonly conversation: ImportedConversation;
  readonly first: boolean;
  readonly last: boolean;
}

/**
 * The second pass: the entry's text (as it streams again) → its branch's turns, in parts. Members
 * that come out of branch order wait until the ones before them have come.
 */
export async function* streamConversation(plan: StreamPlan, entryText: AsyncIterable<string>): AsyncGenerator<ConversationPart> {
  const arrived: { key: string | null; index: number; source: string }[] = [];
  let count = 0;
  const reader = new JsonEntryStream({
    field: () => undefined,
    collection: () => undefined,
    member: (key, source) => arrived.push({ key, index: count++, source }),
  });
  const waiting = new Map<number, { key: string | null; source: string }>();
  let next = 0;
  let pending: ImportedTurn[] = [];
  let chars = 0;
  let head: { title: string; createdAt: number } | null = null;
  let first = true;
  const take = (position: number, key: string | null, source: string) => {
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch {
      return; // parsed in the first pass; only a file changed in between lands here
    }
    const turn = plan.add(position, key, value);
    if (turn) {
      pending.push(turn);
      chars += turn.content.length;
    }
  };
  const part = (last: boolean): ConversationPart => {
    head ??= {
      title: titleOf(plan.title, pending),
      createdAt: Number.isFinite(plan.created) && plan.created > 0 ? plan.created : (pending[0]?.occurredAt ?? 0),
    };
    const out = { conversation: { id: plan.id, ...head, turns: pending, ...(plan.project ? { project: plan.project } : {}) }, first, last };
    first = false;
    pending = [];
    chars = 0;
    return out;
  };
  for await (const piece of entryText) {
    reader.push(piece);
    for (const m of arrived) {
      const position = plan.position(m.key, m.index);
      if (position === undefined || position < next) continue;
      if (position > next) {
        waiting.set(position, m);
        continue;
      }
      take(position, m.key, m.source);
      next++;
      for (let w = waiting.get(next); w; w = waiting.get(next)) {
        waiting.delete(next);
        take(next, w.key, w.source);
        next++;
      }
    }
    arrived.length = 0;
    if (pending.length >= PART_TURNS || chars >= PART_CHARS) yield part(false);
    if (reader.done) break;
  }
  for (const position of [...waiting.keys()].sort((a, b) => a - b))
    take(position, waiting.get(position)!.key, waiting.get(position)!.source);
  const images = plan.end();
  if (images) pending.push(images);
  yield part(true);
}
