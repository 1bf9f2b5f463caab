/**
 * The HistoryReader the engine imports through: streams a file (a .zip export, a JSON array, or
 * a text transcript), recognises its format when asked to, and yields one conversation at a time
 * (and, from a Claude export zip, the projects its projects.json or projects/<uuid>.json list).
 * Runs in the engine worker in the app and in Node for the command line — the same code.
 *
 * Invariants: no whole-file parse (JSON is split element by element, zips inflate as they
 * stream); an entry that fails to parse is skipped and counted; a file cut off mid-entry yields
 * everything before the cut and counts the cut entry; repeated conversations (LongMemEval shares
 * sessions between questions) are yielded once.
 */
import type {
  HistoryFormat,
  HistoryItem,
  HistoryReadOptions,
  HistoryReader,
  HistoryFile,
  ImportedConversation,
} from '../core/base/historyImport';
import { RecollectError } from '../core/base/errors';
import { fileChunks, isZip, zipEntries } from './byteStreams';
import { JsonArraySplitter, type ElementSink } from './jsonArraySplitter';
import { JsonEntryStream } from './jsonEntryStream';
import { EntrySkeleton, planStream, streamConversation } from './hugeEntry';
import { parseChatGptConversation } from './chatgpt';
import { parseClaudeConversation, parseClaudeProject } from './claude';
import { parseLocomoSample, parseLongMemEvalQuestion } from './benchmarkCorpora';
import { TranscriptParser } from './transcript';
import { SkipEntry, asRecord } from './parseHelpers';

type JsonFormat = Exclude<HistoryFormat, 'text'>;

const PARSERS: Record<JsonFormat, (raw: unknown, index: number) => ImportedConversation[]> = {
  chatgpt: (raw) => [parseChatGptConversation(raw)],
  claude: (raw) => [parseClaudeConversation(raw)],
  locomo: parseLocomoSample,
  longmemeval: parseLongMemEvalQuestion,
};

/** The format of a JSON entry, from the fields each format is known by. */
export function detectJsonFormat(entry: unknown): JsonFormat | null {
  const e = asRecord(entry);
  if (!e) return null;
  if ('mapping' in e) return 'chatgpt';
  if ('chat_messages' in e) return 'claude';
  if ('haystack_sessions' in e) return 'longmemeval';
  if ('conversation' in e && ('sample_id' in e || 'qa' in e)) return 'locomo';
  return null;
}

const REPEATED = 'repeated conversations (same id; stored once)';

const FORMAT_NAMES: Record<HistoryFormat, string> = {
  chatgpt: 'a ChatGPT export',
  claude: 'a Claude export',
  locomo: 'a LoCoMo file',
  longmemeval: 'a LongMemEval file',
  text: 'a transcript',
};

const NOT_HISTORY = 'This file is not a ChatGPT or Claude export, LoCoMo or LongMemEval data, or a transcript.';
/** Unrecognisable entries at the start of a JSON array before the file is refused as not a history. */
const MAX_UNRECOGNISED_LEAD = 20;

/** Members of an export .zip that hold the conversations (ChatGPT and Claude both use this name). */
const CONVERSATIONS_MEMBER = /(^|\/)conversations(-\d+)?\.json$/i;
/** Claude's projects: one projects.json array, or (later exports) one projects/<uuid>.json per project. */
const PROJECTS_MEMBER = /(^|\/)projects(\.json|\/[^/]+\.json)$/i;

async function* prepend(first: Uint8Array, rest: AsyncIterator<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield first;
  for (let r = await rest.next(); !r.done; r = await rest.next()) yield r.value;
}

/**
 * An entry (one conversation) longer than this many characters is not parsed whole: it is read in
 * two passes and its turns come in parts (hugeEntry). Below it, JSON.parse of the entry is faster.
 */
export const HUGE_ENTRY_CHARS = 16_000_000;

export interface ReaderOptions {
  readonly hugeEntryChars?: number;
}

/** A HistoryReader; `hugeEntryChars` lets tests reach the streamed path with small files. */
export function historyReader(reader: ReaderOptions = {}): HistoryReader {
  return (file, options) => read(file, options, reader.hugeEntryChars ?? HUGE_ENTRY_CHARS);
}

export const readHistory: HistoryReader = historyReader();

async function* read(file: HistoryFile, options: HistoryReadOptions, hugeEntryChars: number): AsyncGenerator<HistoryItem> {
  const chunks = fileChunks(file, options);
  const first = await chunks.next();
  if (first.done) {
    if (options.cancelled?.()) return;
    throw new RecollectError('INVALID_INPUT', 'The file is empty.');
  }
  const bytes = prepend(first.value, chunks);
  const zip = isZip(first.value);
  const name = file.name ?? '';
  const textByName = /\.(txt|md|markdown)$/i.test(name);
  const leading = zip
    ? ''
    : (new TextDecoder()
        .decode(first.value.subarray(0, 64))
        .replace(/^\uFEFF/, '')
        .trimStart()[0] ?? '');
  const asText = options.format === 'text' || (options.format === 'auto' && !zip && (textByName || (leading !== '[' && leading !== '{')));
  if (asText) {
    if (zip) throw new RecollectError('INVALID_INPUT', 'A transcript must be a .txt or .md file, not a zip archive.');
    yield { kind: 'format', format: 'text' };
    const parser = new TranscriptParser(name, file.size, options.now);
    const decoder = new TextDecoder();
    for await (const chunk of bytes) parser.push(decoder.decode(chunk, { stream: true }));
    parser.push(decoder.decode());
    if (options.cancelled?.()) return;
    const conversation = parser.end();
    yield { kind: 'layout', layout: parser.layout()! };
    yield { kind: 'conversation', conversation };
    return;
  }
  const missing = 'This zip has no conversations.json. Choose the export .zip from ChatGPT or Claude, or the conversations.json inside it.';
  const entries = zip
    ? zipEntries(bytes, (n) => CONVERSATIONS_MEMBER.test(n) || PROJECTS_MEMBER.test(n), missing)
    : singleEntry(bytes, name);
  // A huge entry is read again from the file: the member of the zip it is in, or the file itself.
  const again = (member: string, index: number) => entryText(file, zip ? member : null, index, missing, options);
  let sawConversations = !zip;
  const projects = new ProjectMembers();
  for await (const item of jsonItems(
    projects.divert(entries, () => (sawConversations = true)),
    options,
    hugeEntryChars,
    again,
  )) {
    yield* projects.take();
    yield item;
  }
  yield* projects.take();
  if (!sawConversations && !options.cancelled?.()) throw new RecollectError('INVALID_INPUT', missing);
}

/**
 * Takes the projects members out of a zip's stream (they are read here, element by element, and
 * come out as project items); the conversations members go on to `jsonItems`.
 */
class ProjectMembers {
  #ready: HistoryItem[] = [];
  #splitter: JsonArraySplitter | null = null;
  #member = '';
  #decoder = new TextDecoder();

  async *divert(
    entries: AsyncIterable<{ name: string; data: Uint8Array; final: boolean }>,
    conversations: () => void,
  ): AsyncGenerator<{ name: string; data: Uint8Array; final: boolean }> {
    for await (const entry of entries) {
      if (!PROJECTS_MEMBER.test(entry.name)) {
        conversations();
        yield entry;
        continue;
      }
      if (this.#member !== entry.name) {
        this.#member = entry.name;
        this.#splitter = new JsonArraySplitter();
        this.#decoder = new TextDecoder();
      }
      let elements: ReturnType<JsonArraySplitter['push']> = [];
      try {
        elements = this.#splitter!.push(
          entry.final ? this.#decoder.decode(entry.data) : this.#decoder.decode(entry.data, { stream: true }),
        );
      } catch {
        this.#ready.push({ kind: 'skipped', reason: 'project lists that could not be read' });
        this.#splitter = new JsonArraySplitter({ route: () => 'skip' });
      }
      for (const source of elements) {
        if (typeof source !== 'string') continue;
        try {
          this.#ready.push({ kind: 'project', project: parseClaudeProject(JSON.parse(source)) });
        } catch (err) {
          this.#ready.push({ kind: 'skipped', reason: err instanceof SkipEntry ? err.reason : 'malformed projects' });
        }
      }
    }
  }

  /** The project items read so far. */
  *take(): Generator<HistoryItem> {
    const ready = this.#ready;
    this.#ready = [];
    yield* ready;
  }
}

/** The text of element `index` of the JSON array in `member` (null: the file itself), read again from the file. */
async function* entryText(
  file: HistoryFile,
  member: string | null,
  index: number,
  missing: string,
  options: HistoryReadOptions,
): AsyncGenerator<string> {
  const chunks = fileChunks(file, { ...(options.cancelled ? { cancelled: options.cancelled } : {}) });
  const source = member === null ? singleEntry(chunks, '') : zipEntries(chunks, (n) => n === member, missing);
  let pieces: string[] = [];
  const splitter = new JsonArraySplitter({ route: (i) => (i === index ? { write: (t) => pieces.push(t) } : 'skip') });
  const decoder = new TextDecoder();
  for await (const entry of source) {
    const ended = splitter.push(entry.final ? decoder.decode(entry.data) : decoder.decode(entry.data, { stream: true })).length > 0;
    if (pieces.length > 0) yield pieces.join('');
    pieces = [];
    if (ended || entry.final) return;
  }
}

async function* singleEntry(
  bytes: AsyncIterable<Uint8Array>,
  name: string,
): AsyncGenerator<{ name: string; data: Uint8Array; final: boolean }> {
  for await (const data of bytes) yield { name, data, final: false };
  yield { name, data: new Uint8Array(0), final: true };
}

async function* jsonItems(
  entries: AsyncIterable<{ name: string; data: Uint8Array; final: boolean }>,
  options: HistoryReadOptions,
  hugeEntryChars: number,
  again: (member: string, index: number) => AsyncIterable<string>,
): AsyncGenerator<HistoryItem> {
  let format: JsonFormat | null = options.format === 'auto' || options.format === 'text' ? null : options.format;
  let announced = false;
  const seen = new Set<string>();
  const repeated = (id: string) => {
    if (seen.has(id)) return true;
    seen.add(id);
    return false;
  };
  let index = 0;
  // The huge entry being read (its first pass) and where it is.
  const huge = new Map<number, EntrySkeleton>();
  const onLarge = (at: number): ElementSink => {
    const skeleton = new EntrySkeleton();
    const reader = new JsonEntryStream(skeleton);
    huge.set(at, skeleton);
    return {
      write: (t) => {
        if (skeleton.damaged) return;
        try {
          reader.push(t);
        } catch {
          skeleton.damaged = true;
        }
      },
    };
  };
  const newSplitter = () => new JsonArraySplitter({ largeChars: hugeEntryChars, onLarge });
  let splitter = newSplitter();
  let decoder = new TextDecoder();
  let current: string | null = null;
  let sawAny = false;
  let closed = false;
  let unrecognised = 0;
  const finish = function* (): Generator<HistoryItem> {
    closed = true;
    const { complete, cutOff } = splitter.end();
    if (cutOff || !complete) yield { kind: 'skipped', reason: 'entries cut off (the file is truncated)' };
  };
  for await (const entry of entries) {
    if (current !== entry.name) {
      if (current !== null && !closed) yield* finish();
      current = entry.name;
      closed = false;
      splitter = newSplitter();
      huge.clear();
      decoder = new TextDecoder();
    }
    const text = entry.final ? decoder.decode(entry.data) : decoder.decode(entry.data, { stream: true });
    let elements: ReturnType<JsonArraySplitter['push']>;
    try {
      elements = splitter.push(text);
    } catch (err) {
      if (!sawAny) throw err;
      yield { kind: 'skipped', reason: 'entries after damaged data' };
      return;
    }
    sawAny = true;
    for (const source of elements) {
      if (options.cancelled?.()) return;
      let raw: unknown;
      let skeleton: EntrySkeleton | null = null;
      if (typeof source !== 'string') {
        skeleton = huge.get(source.streamed)!;
        huge.delete(source.streamed);
        if (skeleton.damaged) {
          yield { kind: 'skipped', reason: 'malformed entries' };
          index++;
          continue;
        }
        // Not a chat (no message collection): its fields are the whole entry.
        raw = skeleton.stub();
        if (!skeleton.found) skeleton = null;
      } else {
        try {
          raw = JSON.parse(source);
        } catch {
          yield { kind: 'skipped', reason: 'malformed entries' };
          continue;
        }
      }
      if (!format) {
        format = detectJsonFormat(raw);
        if (!format) {
          // A null or odd entry before the first conversation is skipped and counted; only a file
          // that starts with many of them is taken for something else.
          if (++unrecognised >= MAX_UNRECOGNISED_LEAD) throw new RecollectError('INVALID_INPUT', NOT_HISTORY);
          yield { kind: 'skipped', reason: 'entries that are not conversations' };
          index++;
          continue;
        }
      }
      if (!announced) {
        announced = true;
        yield { kind: 'format', format };
      }
      const detected = detectJsonFormat(raw);
      if (detected && detected !== format)
        throw new RecollectError(
          'INVALID_INPUT',
          `This file looks like ${FORMAT_NAMES[detected]}, not ${FORMAT_NAMES[format]}. Choose that format (or "detect").`,
        );
      try {
        if (skeleton && typeof source !== 'string') {
          const plan = planStream(skeleton);
          if (repeated(plan.id)) yield { kind: 'skipped', reason: REPEATED };
          else {
            for await (const part of streamConversation(plan, again(current!, source.streamed))) {
              if (options.cancelled?.()) return;
              yield { kind: 'conversation', conversation: part.conversation, part: { first: part.first, last: part.last } };
            }
          }
        } else {
          for (const conversation of PARSERS[format](raw, index)) {
            if (!repeated(conversation.id)) yield { kind: 'conversation', conversation };
            // Benchmark files share sessions between questions by design; in an export a repeat is news.
            else if (format === 'chatgpt' || format === 'claude') yield { kind: 'skipped', reason: REPEATED };
          }
        }
      } catch (err) {
        if (!(err instanceof SkipEntry)) throw err;
        yield { kind: 'skipped', reason: err.reason };
      }
      index++;
    }
    if (entry.final) yield* finish();
  }
  if (options.cancelled?.()) return;
  if (current !== null && !closed) yield* finish();
  if (!format && unrecognised > 0) throw new RecollectError('INVALID_INPUT', NOT_HISTORY);
  if (!announced && format) yield { kind: 'format', format };
}
