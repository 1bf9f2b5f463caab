/**
 * Command line for big exports: builds (or adds to) a Recollect database from a chat export with
 * the same reader and write path the app uses, for files too large to pick in a browser tab.
 *
 *   npm run import -- --format chatgpt|claude|locomo|longmemeval|text|auto <file> --out recollect.sqlite [--policy off|recurrence|eager] [--project-only]
 *
 * The output opens in the app with Import… (Replace memory); the app then embeds the turns and
 * segments them into episodes in the background, and synthesises per the chosen policy (stored
 * in the file). An existing --out file is extended, not replaced: stable ids mean a re-run adds
 * only what is new. The result is written to a temporary file beside --out and renamed over it, so
 * a run killed at any point leaves the previous file whole.
 */
import { copyFileSync, existsSync, openAsBlob, renameSync, rmSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs as parseCliArgs } from 'node:util';
import { createEngine } from '../src/host/createEngine';
import { HISTORY_FORMATS, type HistoryFile, type HistoryFormat } from '../src/core/base/historyImport';
import type { PolicyName } from '../src/core/episodes/consolidationPolicy';
import { openFileDatabase, openMemoryDatabase, syncFile } from '../src/storage/openNodeDatabase';
import { SqliteMemoryStore } from '../src/storage/SqliteMemoryStore';
import { RecollectError } from '../src/core/base/errors';

const USAGE =
  'Usage: npm run import -- --format chatgpt|claude|locomo|longmemeval|text|auto <file> --out recollect.sqlite [--policy off|recurrence|eager] [--project-only] [--yes]';

const HELP = `${USAGE}

Imports a chat export into a Recollect database file, which the app opens with Import… (Replace memory).

  <file>            a ChatGPT or Claude export (.zip or conversations.json), a LoCoMo or LongMemEval
                    JSON file, or a transcript (.txt / .md)
  --format <name>   chatgpt, claude, locomo, longmemeval, text, or auto (default: recognise the file)
  --out <path>      the database to create or extend (default: recollect.sqlite); a re-run adds only
                    what is new
  --policy <name>   synthesis policy stored in the file: off, recurrence or eager
  --project-only    projects the export brings (ChatGPT and Claude projects) are made project-only:
                    their chats recall only the project (default: shared memory)
  --yes             store a transcript whose speakers could not be read with certainty as read
                    (without it, such a file is shown and nothing is stored)
  -h, --help        print this help`;

/** Strict flags (node:util parseArgs): an unknown option or a missing value is an error, never ignored. */
function parseArgs(argv: readonly string[]) {
  let parsed;
  try {
    parsed = parseCliArgs({
      args: [...argv],
      strict: true,
      allowPositionals: true,
      options: {
        format: { type: 'string' },
        out: { type: 'string' },
        policy: { type: 'string' },
        'project-only': { type: 'boolean' },
        yes: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new RecollectError('INVALID_INPUT', `${err instanceof Error ? err.message.split('\n')[0] : String(err)} ${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true as const };
  const format = (values.format ?? 'auto') as HistoryFormat | 'auto';
  const policy = values.policy as PolicyName | undefined;
  if (positionals.length !== 1) throw new RecollectError('INVALID_INPUT', USAGE);
  if (format !== 'auto' && !HISTORY_FORMATS.includes(format))
    throw new RecollectError('INVALID_INPUT', `Unknown format "${format}" (${HISTORY_FORMATS.join(', ')} or auto).`);
  if (policy !== undefined && policy !== 'off' && policy !== 'recurrence' && policy !== 'eager')
    throw new RecollectError('INVALID_INPUT', `Unknown policy "${policy}" (off, recurrence or eager).`);
  return {
    help: false as const,
    format,
    file: positionals[0]!,
    out: values.out ?? 'recollect.sqlite',
    policy,
    yes: values.yes === true,
    projectMemory: values['project-only'] === true ? ('project-only' as const) : ('shared' as const),
  };
}

type ImportArgs = Extract<ReturnType<typeof parseArgs>, { help: false }>;

export async function importHistoryFile(parsed: ReturnType<typeof parseArgs>, log: (line: string) => void = () => undefined) {
  if (parsed.help) throw new RecollectError('INVALID_INPUT', USAGE);
  const args: ImportArgs = parsed;
  const blob = await openAsBlob(args.file!);
  const file: HistoryFile = {
    name: basename(args.file!),
    size: blob.size,
    stream: () => blob.stream() as unknown as ReturnType<HistoryFile['stream']>,
  };
  if (!args.yes && (args.format === 'text' || (args.format === 'auto' && /\.(txt|md|markdown)$/i.test(args.file!))))
    await refuseUncertainTranscript(file, args);
  // Written to a copy as it goes (memory does not grow with the archive), renamed over --out at
  // the end: a run that fails or is interrupted leaves the previous file as it was.
  const work = `${args.out}.importing`;
  rmSync(work, { force: true });
  if (existsSync(args.out)) copyFileSync(args.out, work);
  const db = await openFileDatabase(work);
  const store = new SqliteMemoryStore(db, { openTemp: () => openMemoryDatabase({ migrateSchema: false }) });
  let done = false;
  // Store only: embedding and episodes happen in the app, which picks up every turn without them.
  const engine = createEngine(store, { only: [] });
  try {
    const report = await engine.data.importHistory(
      file,
      { format: args.format, importId: 'cli', projectMemory: args.projectMemory, ...(args.policy ? { policy: args.policy } : {}) },
      (p) => {
        log(
          `${p.conversations.toLocaleString('en')} conversations, ${p.turns.toLocaleString('en')} turns, ${Math.round((100 * p.bytesRead) / Math.max(1, p.bytesTotal))}% read`,
        );
      },
    );
    await db.close();
    syncFile(work);
    renameSync(work, args.out);
    done = true;
    return report;
  } finally {
    if (!done) {
      await db.close().catch(() => undefined);
      rmSync(work, { force: true });
    }
  }
}

/**
 * The app shows how an uncertain transcript's speakers were read and asks before storing; the
 * command line cannot ask, so it shows the same and stores nothing unless run again with --yes.
 */
async function refuseUncertainTranscript(file: HistoryFile, args: ImportArgs): Promise<void> {
  const store = new SqliteMemoryStore(await openMemoryDatabase(), { openTemp: () => openMemoryDatabase({ migrateSchema: false }) });
  try {
    const scan = await createEngine(store, { only: [] }).data.scanHistory(file, { format: args.format, importId: 'cli-scan' });
    const layout = scan.transcript;
    if (!layout?.ambiguous) return;
    const preview = layout.preview.map((p) => `  ${p.role === 'user' ? 'you' : 'assistant'} (${p.speaker}): ${p.excerpt}`).join('\n');
    throw new RecollectError(
      'INVALID_INPUT',
      `The speakers of ${file.name ?? 'this transcript'} could not be read with certainty (${layout.reasons.join('; ')}). Its first turns would be stored as:\n${preview}\n` +
        'Nothing was stored. If this is right, run the same command again with --yes; if not, label the speakers consistently (e.g. "User:" and "Assistant:" at the start of each turn).',
    );
  } finally {
    await store.db.close();
  }
}

if (process.argv[1] && import.meta.url.endsWith(basename(process.argv[1]))) {
  try {
    const args = parseArgs(process.argv.slice(2));
    if (args.help) {
      console.log(HELP);
      process.exit(0);
    }
    const report = await importHistoryFile(args, (line) => process.stderr.write(`\r${line}   `));
    process.stderr.write('\n');
    console.log(`${report.summary} (${report.format ?? 'unknown format'}, ${report.seconds.toFixed(1)} s) → ${args.out}`);
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = 1;
  }
}

export { parseArgs };
