/**
 * Argument parsing for every `npm run bench` command, on node:util's parseArgs (strict: an
 * unknown flag, a missing value or a stray positional is an error, never ignored). Pure
 * functions that throw `BenchUsageError`, so tests can check them; bench/cli.ts prints the
 * message with the usage and exits 2.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { RETRIEVAL_CONFIG } from '../src/core/recall/fusion';
import type { PolicyName } from '../src/core/episodes/consolidationPolicy';
import { DEFAULT_SCALE_REPS } from './host/benchProtocol';

export class BenchUsageError extends Error {
  override readonly name = 'BenchUsageError';
}

export const USAGE = [
  'usage: npm run bench -- recall --data <file|folder> [--runtime node|browser] [--k 1,3,5,10,20] [--out report.json] [--no-baselines] [--no-vectors] [--set path=value] [--sweep file.json] [--rerank [oracle|random|model id[=trust],…]] [--no-build]',
  '       npm run bench -- ingest --data <file|folder> [--runtime node|browser] [--reps 5] [--out report.json] [--no-build]',
  '       npm run bench -- scale --data <file|folder> [--data …] --sizes 10000,30000,100000 [--runtime node|browser] [--questions 150] [--out report.json] [--no-vectors] [--no-build] [--profile <dir>] [--port N] [--slowdown 4] [--nice=-10]',
  '       npm run bench -- construction --data <LoCoMo json> --policy eager|recurrence|off [--out report.json]',
  '       npm run bench -- crash --trials N [--out report.json] [--seed S] [--no-build]',
  '       npm run bench -- sync [--turns 10000] [--reps 20] [--warmup 3] [--out report.json]',
].join('\n');

type Options = NonNullable<ParseArgsConfig['options']>;

/** parseArgs with strict checking; its errors become BenchUsageError with the flag named. */
function parse(argv: readonly string[], options: Options): Record<string, string | boolean | (string | boolean)[] | undefined> {
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new BenchUsageError(err instanceof Error ? err.message.replace(/\s*To specify an option argument.*$/s, '') : String(err));
  }
}

function runtimeOf(value: unknown): 'node' | 'browser' {
  const runtime = (value as string | undefined) ?? 'node';
  if (runtime !== 'node' && runtime !== 'browser') throw new BenchUsageError(`--runtime is node or browser, not ${runtime}`);
  return runtime;
}

function positiveInt(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new BenchUsageError(`${name} needs a positive integer, not ${String(value)}`);
  return n;
}

/** `--slowdown F`: a CPU slowdown factor ≥ 1 (bench/cpuSlowdown.ts); absent = none. */
export function slowdownFactor(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 1 || n > 20)
    throw new BenchUsageError(`--slowdown needs a factor from 1 to 20 (4 = a phone four times slower), not ${String(value)}`);
  return n;
}

/** `--nice N`: a scheduling priority from −20 to 19 for the measured browser; absent = unchanged. */
export function niceValue(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < -20 || n > 19)
    throw new BenchUsageError(`--nice needs a whole number from -20 to 19, not ${String(value)}`);
  return n;
}

function required(name: string, value: unknown): string {
  if (typeof value !== 'string' || !value) throw new BenchUsageError(`${name} is required`);
  return value;
}

/** Every leaf path of the retrieval config ("weights.vector", "rrfK", …). */
export function knobPaths(config: object = RETRIEVAL_CONFIG): string[] {
  const out: string[] = [];
  const walk = (obj: object, prefix: string) => {
    for (const [k, v] of Object.entries(obj)) {
      if (v !== null && typeof v === 'object') walk(v as object, `${prefix}${k}.`);
      else out.push(`${prefix}${k}`);
    }
  };
  walk(config, '');
  return out;
}

/**
 * Sets one retrieval knob in `target` from `path=value` text. The path must name a knob of
 * RETRIEVAL_CONFIG and the value must have its type (number or boolean): a typo fails loudly
 * instead of silently tuning nothing.
 */
export function setKnob(target: Record<string, unknown>, path: string, raw: string): void {
  const keys = path.split('.');
  let base: unknown = RETRIEVAL_CONFIG;
  for (const k of keys)
    base = base !== null && typeof base === 'object' && Object.hasOwn(base, k) ? (base as Record<string, unknown>)[k] : undefined;
  if (base === undefined || (base !== null && typeof base === 'object')) {
    throw new BenchUsageError(`--set: unknown knob "${path}"; knobs are ${knobPaths().join(', ')}`);
  }
  let value: number | boolean | string;
  if (typeof base === 'string') {
    value = raw;
  } else if (typeof base === 'boolean') {
    if (raw !== 'true' && raw !== 'false') throw new BenchUsageError(`--set ${path} is true or false, not "${raw}"`);
    value = raw === 'true';
  } else {
    value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value)) throw new BenchUsageError(`--set ${path} needs a number, not "${raw}"`);
  }
  let obj = target;
  for (const k of keys.slice(0, -1)) obj = (obj[k] ??= {}) as Record<string, unknown>;
  obj[keys[keys.length - 1]!] = value;
}

export interface RecallArgs {
  readonly data: string;
  readonly runtime: 'node' | 'browser';
  readonly ks: number[];
  readonly out?: string;
  readonly baselines: boolean;
  readonly vectors: boolean;
  readonly overrides: Record<string, unknown>;
  readonly sweep?: string;
  readonly reranker?: string;
  readonly build: boolean;
}

/** `--rerank` takes an optional list of rerankers (bench/recall.ts): a bare `--rerank` means the bundled stand-in. */
export function parseRecallArgs(argv: readonly string[], bundledReranker: string): RecallArgs {
  const args = [...argv];
  const r = args.indexOf('--rerank');
  if (r >= 0 && (args[r + 1] === undefined || args[r + 1]!.startsWith('--'))) args.splice(r + 1, 0, bundledReranker);
  const v = parse(args, {
    data: { type: 'string' },
    runtime: { type: 'string' },
    k: { type: 'string' },
    out: { type: 'string' },
    'no-baselines': { type: 'boolean' },
    'no-vectors': { type: 'boolean' },
    set: { type: 'string', multiple: true },
    sweep: { type: 'string' },
    rerank: { type: 'string' },
    'no-build': { type: 'boolean' },
  });
  const runtime = runtimeOf(v.runtime);
  const ks =
    v.k === undefined
      ? [1, 3, 5, 10, 20]
      : String(v.k)
          .split(',')
          .map(Number)
          .filter((k) => Number.isInteger(k) && k > 0);
  if (ks.length === 0) throw new BenchUsageError('--k needs positive integers');
  if (!ks.includes(10)) ks.push(10);
  ks.sort((a, b) => a - b);
  const overrides: Record<string, unknown> = {};
  for (const s of (v.set as string[] | undefined) ?? []) {
    const eq = s.indexOf('=');
    if (eq <= 0) throw new BenchUsageError(`--set needs path=value, not "${s}"`);
    setKnob(overrides, s.slice(0, eq), s.slice(eq + 1));
  }
  const vectors = !v['no-vectors'];
  const sweep = v.sweep as string | undefined;
  const reranker = v.rerank as string | undefined;
  if (runtime === 'browser' && (Object.keys(overrides).length || sweep || reranker || !vectors)) {
    throw new BenchUsageError('--set, --sweep, --rerank and --no-vectors are only available with --runtime node');
  }
  return {
    data: required('--data', v.data),
    runtime,
    ks,
    baselines: !v['no-baselines'],
    vectors,
    overrides,
    build: !v['no-build'],
    ...(v.out ? { out: v.out as string } : {}),
    ...(sweep ? { sweep } : {}),
    ...(reranker ? { reranker } : {}),
  };
}

export interface IngestArgs {
  readonly data: string;
  readonly runtime: 'node' | 'browser';
  readonly reps: number;
  readonly out?: string;
  readonly build: boolean;
}

export function parseIngestArgs(argv: readonly string[]): IngestArgs {
  const v = parse(argv, {
    data: { type: 'string' },
    runtime: { type: 'string' },
    reps: { type: 'string' },
    out: { type: 'string' },
    'no-build': { type: 'boolean' },
  });
  return {
    data: required('--data', v.data),
    runtime: runtimeOf(v.runtime),
    reps: positiveInt('--reps', v.reps, 5),
    build: !v['no-build'],
    ...(v.out ? { out: v.out as string } : {}),
  };
}

export interface ScaleArgs {
  readonly data: string[];
  readonly sizes: number[];
  readonly runtime: 'node' | 'browser';
  readonly questions: number;
  /** Timed passes over the questions at each size, every one counted (default 3). */
  readonly reps: number;
  readonly out?: string;
  readonly vectors: boolean;
  readonly build: boolean;
  /** Browser: keep this profile (and the grown database in its OPFS) for `cold-open`. */
  readonly profile?: string;
  /** Browser: serve on this port (OPFS belongs to the origin, port included: cold-open needs the same one). */
  readonly port?: number;
  /** Node: grow (or continue) this database file instead of one in memory; checkpoints are copied beside it. */
  readonly db?: string;
  /** Browser: measure (not grow) with the page and its workers this many times slower (bench/cpuSlowdown.ts). */
  readonly slowdown?: number;
  /** Browser: nice value of the browser's threads while measuring (bench/browserHarness.ts BenchPageOptions.nice). */
  readonly nice?: number;
}

export function parseScaleArgs(argv: readonly string[]): ScaleArgs {
  const v = parse(argv, {
    data: { type: 'string', multiple: true },
    sizes: { type: 'string' },
    runtime: { type: 'string' },
    questions: { type: 'string' },
    out: { type: 'string' },
    'no-vectors': { type: 'boolean' },
    'no-build': { type: 'boolean' },
    profile: { type: 'string' },
    db: { type: 'string' },
    port: { type: 'string' },
    reps: { type: 'string' },
    slowdown: { type: 'string' },
    nice: { type: 'string' },
  });
  const data = (v.data as string[] | undefined) ?? [];
  if (data.length === 0) throw new BenchUsageError('--data is required (a file or folder; repeat it to append more corpora)');
  const sizesText = required('--sizes', v.sizes);
  const sizes = sizesText.split(',').map((s) => Number(s.trim().replace(/_/g, '')));
  if (sizes.some((n) => !Number.isInteger(n) || n <= 0)) throw new BenchUsageError(`--sizes needs positive integers, not ${sizesText}`);
  const runtime = runtimeOf(v.runtime);
  if (runtime === 'browser' && v['no-vectors']) throw new BenchUsageError('--no-vectors is only available with --runtime node');
  if (runtime !== 'browser' && v.profile) throw new BenchUsageError('--profile is only available with --runtime browser');
  if (runtime !== 'browser' && v.port) throw new BenchUsageError('--port is only available with --runtime browser');
  if (runtime !== 'browser' && v.slowdown) throw new BenchUsageError('--slowdown is only available with --runtime browser');
  const slowdown = slowdownFactor(v.slowdown);
  if (runtime !== 'browser' && v.nice !== undefined) throw new BenchUsageError('--nice is only available with --runtime browser');
  const nice = niceValue(v.nice);
  if (runtime === 'browser' && v.db)
    throw new BenchUsageError('--db is only available with --runtime node (the browser keeps its database with --profile)');
  return {
    ...(v.profile ? { profile: v.profile as string } : {}),
    ...(v.port ? { port: positiveInt('--port', v.port, 0) } : {}),
    ...(v.db ? { db: v.db as string } : {}),
    ...(slowdown ? { slowdown } : {}),
    ...(nice !== undefined ? { nice } : {}),
    data,
    sizes: [...new Set(sizes)].sort((a, b) => a - b),
    runtime,
    questions: positiveInt('--questions', v.questions, 150),
    reps: positiveInt('--reps', v.reps, DEFAULT_SCALE_REPS),
    vectors: !v['no-vectors'],
    build: !v['no-build'],
    ...(v.out ? { out: v.out as string } : {}),
  };
}

export interface ConstructionArgs {
  readonly data: string;
  readonly policy: PolicyName;
  readonly out?: string;
}

export function parseConstructionArgs(argv: readonly string[]): ConstructionArgs {
  const v = parse(argv, { data: { type: 'string' }, policy: { type: 'string' }, out: { type: 'string' } });
  const policy = (v.policy as string | undefined) ?? 'recurrence';
  if (policy !== 'eager' && policy !== 'recurrence' && policy !== 'off') throw new BenchUsageError('--policy is eager, recurrence or off');
  return { data: required('--data', v.data), policy, ...(v.out ? { out: v.out as string } : {}) };
}

export interface CrashArgs {
  readonly trials: number;
  readonly out: string | undefined;
  readonly seed: number;
  readonly build: boolean;
}

export function parseCrashArgs(argv: readonly string[]): CrashArgs {
  const v = parse(argv, { trials: { type: 'string' }, out: { type: 'string' }, seed: { type: 'string' }, 'no-build': { type: 'boolean' } });
  const seed = v.seed === undefined ? 12 : Number(v.seed);
  if (!Number.isInteger(seed)) throw new BenchUsageError(`--seed needs a whole number, not ${String(v.seed)}`);
  return { trials: positiveInt('--trials', v.trials, 20), out: v.out as string | undefined, seed, build: v['no-build'] !== true };
}

export interface VectorsArgs {
  readonly runtime: 'node' | 'browser';
  readonly out: string | undefined;
  readonly n: number;
  readonly dim: number;
  readonly queries: number;
  readonly k: number;
}

export function parseVectorsArgs(argv: readonly string[]): VectorsArgs {
  const v = parse(argv, {
    runtime: { type: 'string' },
    out: { type: 'string' },
    n: { type: 'string' },
    dim: { type: 'string' },
    queries: { type: 'string' },
    k: { type: 'string' },
  });
  return {
    runtime: runtimeOf(v.runtime),
    out: v.out as string | undefined,
    n: positiveInt('--n', v.n, 100_000),
    dim: positiveInt('--dim', v.dim, 384),
    queries: positiveInt('--queries', v.queries, 200),
    k: positiveInt('--k', v.k, 100),
  };
}

/** A command's flags (no positionals, unknown flags refused), or `usage` with parseArgs's reason. */
export function commandArgs(
  argv: string[],
  options: NonNullable<ParseArgsConfig['options']>,
  usage: (message?: string) => never,
): Record<string, string | boolean | undefined> {
  try {
    return parseArgs({ args: argv, strict: true, allowPositionals: false, options }).values as Record<string, string | boolean | undefined>;
  } catch (err) {
    return usage(err instanceof Error ? err.message : String(err));
  }
}

/**
 * An integer flag of a `commandArgs` result: absent = `fallback`; anything that is not an integer
 * ≥ `min` (or above `max`) stops with the usage and the flag named.
 */
export function intFlag(
  values: Record<string, string | boolean | undefined>,
  name: string,
  fallback: number,
  usage: (message?: string) => never,
  { min = 1, max = Number.MAX_SAFE_INTEGER }: { min?: number; max?: number } = {},
): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (typeof raw !== 'string' || raw.trim() === '' || !Number.isInteger(n) || n < min || n > max)
    usage(`--${name} needs an integer ${max < Number.MAX_SAFE_INTEGER ? `from ${min} to ${max}` : `≥ ${min}`}, not ${String(raw)}`);
  return n;
}
