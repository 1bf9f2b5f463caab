/**
 * The scale benchmark in miniature (CI's smoke run): corpora appended to one database with ids
 * made unique, checkpoints at corpus boundaries, the synthesised layer growing with them,
 * questions newest first, our recall vs BM25 scored on the same questions, the answer's memory read
 * timed beside them, the report's JSON/Markdown/SVG, and the stop when the data runs out.
 * Also the strict argument parsing every bench command now uses.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BenchUsageError, knobPaths, parseRecallArgs, parseScaleArgs, setKnob } from '../../bench/cliArgs';
import { loadScaleCorpora, nodeDriver, runScale } from '../../bench/scale';
import { writeScaleReport } from '../../bench/scaleReport';
import { openNodeStore } from '../../src/storage/openNodeDatabase';

const FACTS = ['pottery', 'marathon', 'beagle', 'museum', 'violin', 'sourdough', 'kayak', 'orchid'];

function locomo(sampleId: string, sessions: number): unknown {
  const conversation: Record<string, unknown> = { speaker_a: 'Ann', speaker_b: 'Bob' };
  const qa: unknown[] = [];
  for (let s = 1; s <= sessions; s++) {
    conversation[`session_${s}_date_time`] = `1:00 pm on ${s} May, 2023`;
    conversation[`session_${s}`] = Array.from({ length: 10 }, (_, t) => ({
      speaker: t % 2 ? 'Bob' : 'Ann',
      dia_id: `D${s}:${t + 1}`,
      text:
        t === 3
          ? `Bob took up ${FACTS[(s - 1) % FACTS.length]} lessons ${sampleId}`
          : `small talk number ${t} about the weather in session ${s}`,
    }));
    qa.push({
      question: `What lessons did Bob take up ${sampleId} ${FACTS[(s - 1) % FACTS.length]}?`,
      answer: 'x',
      evidence: [`D${s}:4`],
      category: 4,
    });
  }
  qa.push({ question: 'adversarial', evidence: ['D1:1'], category: 5 });
  return { sample_id: sampleId, conversation, qa };
}

describe('scale benchmark (smoke)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'recollect-scale-'));
    await writeFile(join(dir, 'a.json'), JSON.stringify([locomo('conv-a', 3), locomo('conv-b', 3)]));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prefixes ids per corpus, so a repeated file appends new turns rather than colliding', async () => {
    const corpora = await loadScaleCorpora([join(dir, 'a.json'), join(dir, 'a.json')]);
    expect(corpora.map((c) => c.id)).toEqual(['conv-a', 'conv-b', 'conv-a~2', 'conv-b~2']);
    const ids = corpora.flatMap((c) => c.input.sessions.flatMap((s) => s.turns.map((t) => t.id)));
    expect(new Set(ids).size).toBe(ids.length);
    expect(corpora[2]!.questions[0]!.evidenceTurns).toEqual(['conv-a~2/D1:4']);
    // Category 5 (reported apart) is not scored here.
    expect(corpora[0]!.questions).toHaveLength(3);
  });

  it('grows one database to each size, measures ours and BM25, and stops when the data runs out', async () => {
    const corpora = await loadScaleCorpora([join(dir, 'a.json'), join(dir, 'a.json')]);
    const lines: string[] = [];
    const report = await runScale(corpora, await nodeDriver({ vectors: false }), {
      sizes: [50, 70, 1000],
      questions: 4,
      progress: (l) => lines.push(l),
    });
    expect(report.points.map((p) => p.turns)).toEqual([60, 90]);
    expect(report.notes.join(' ')).toMatch(/holds 120 turns: not enough for 1,000/);
    const [first, second] = report.points;
    // Newest first: at 60 turns the 4 questions are conv-b's 3 and conv-a's last.
    expect(first!.questions).toBe(4);
    expect(second!.questions).toBe(4);
    // An empty database is already one page per table and index: every point holds at least that.
    const emptyBytes = (await (await openNodeStore()).stats()).databaseBytes;
    for (const p of report.points) {
      expect(p.recall.turn['10']).toBe(1);
      // The questions share words with their evidence: the keyword baseline finds it too.
      expect(p.baselines.bm25.recall.turn['10']).toBe(1);
      // Timed questions, not a clock that never moved (a recall over SQL takes well over a microsecond).
      expect(p.latencyMs.p50).toBeGreaterThan(0.001);
      expect(p.dbBytes % 4096).toBe(0); // page_count × page_size
      expect(p.dbBytes).toBeGreaterThanOrEqual(emptyBytes);
      expect(p.bytesPerTurn).toBeCloseTo(p.dbBytes / p.turns);
      // Node's heap with the engine loaded never fits in a MiB (a zero, or a slip to kB, would).
      expect(p.heapBytes).toBeGreaterThan(1024 * 1024);
      expect(p.coldOpenMs).toBeNull();
      // A timed rate: a clock that never moved would give turns / 1e-9 s, far past what SQLite
      // can append through the engine (a million turns a second); a stall would give under one.
      expect(p.ingestTurnsPerSecond).toBeLessThan(1_000_000);
      expect(p.ingestTurnsPerSecond).toBeGreaterThan(1);
    }
    // Ingest is reported with the mean length of the turns it appended (the cost follows the text).
    const meanChars = (from: number, to: number) => {
      const part = corpora.slice(from, to);
      return (
        part.reduce((n, c) => n + c.input.sessions.reduce((k, s) => k + s.turns.reduce((m, t) => m + t.text.length, 0), 0), 0) /
        part.reduce((n, c) => n + c.turns, 0)
      );
    };
    expect(first!.meanTurnChars).toBeCloseTo(meanChars(0, 2));
    expect(second!.meanTurnChars).toBeCloseTo(meanChars(2, 3));
    expect(report.runtime).toBe('node');
    expect(lines.some((l) => l.includes('ranking 4 questions'))).toBe(true);
    // The synthesised layer grows with the turns (an episode per 20, a fact per 5: 60 turns of
    // 10-turn sessions hold 6 episodes, 3 synthesised; facts come with synthesised episodes, so the
    // 2 due for the last session wait for the next one), and the answer's memory read is timed and
    // reads it: facts and episodes come back beside the turns.
    expect(first!.layer).toMatchObject({ turns: 60, cells: 6, episodes: 3, facts: 12 });
    expect(second!.layer).toMatchObject({ turns: 90, cells: 9, episodes: 4, facts: 16 });
    for (const p of report.points) {
      expect(p.answerRead!.latencyMs.p50).toBeGreaterThan(0.001);
      expect(p.answerRead!.meanItems.facts).toBeGreaterThan(0);
      expect(p.answerRead!.meanItems.episodes).toBeGreaterThan(0);
      expect(p.answerRead!.meanItems.turns).toBeGreaterThan(0);
    }
    expect(lines.some((l) => /synthesised layer written/.test(l))).toBe(true);

    const paths = await writeScaleReport(report, join(dir, 'out', 'scale.json'));
    const json = JSON.parse(await readFile(paths.json, 'utf8')) as typeof report;
    expect(Object.keys(json.points[0]!.recall.turn)).toEqual(['1', '5', '10']);
    expect(json.points[1]!.answerRead).toEqual(second!.answerRead);
    const md = await readFile(paths.md, 'utf8');
    expect(md).toMatch(/\| 90 \| 4 \|/);
    expect(md).toMatch(/answer read p50 \/ p95 ms/);
    const a = second!.answerRead!.latencyMs;
    expect(md).toContain(
      `| 90 | ${a.p50.toFixed(1)} / ${a.p95.toFixed(1)} | ${(a.p95 / second!.baselines.bm25.latencyMs.p95).toFixed(2)}× |`,
    );
    expect(await readFile(paths.svg, 'utf8')).toMatch(/^<svg[\s\S]*polyline[\s\S]*<\/svg>/);
  });

  it('keeps its database in a file with --db: copies it at each checkpoint and a second run continues from the turns it holds', async () => {
    const corpora = await loadScaleCorpora([join(dir, 'a.json'), join(dir, 'a.json')]);
    const db = join(dir, 'kept.sqlite');
    const first = await runScale(corpora, await nodeDriver({ vectors: false, db }), { sizes: [50], questions: 4 });
    expect(first.points.map((p) => p.turns)).toEqual([60]);
    expect((await readFile(join(dir, 'kept.60.sqlite'))).byteLength).toBeGreaterThan(0);
    const lines: string[] = [];
    const second = await runScale(corpora, await nodeDriver({ vectors: false, db }), {
      sizes: [50, 70],
      questions: 4,
      progress: (l) => lines.push(l),
    });
    // The 60 turns are not appended again: the first checkpoint is measured as it is, then one corpus more.
    expect(second.points.map((p) => p.turns)).toEqual([60, 90]);
    expect(lines[0]).toMatch(/kept database: 60 turns \(2 corpora\)/);
    expect(second.points[0]!.recall.turn['10']).toBe(first.points[0]!.recall.turn['10']);
    // A file the given data does not account for (here: fewer turns than it holds) is refused.
    await expect(runScale(corpora.slice(0, 2), await nodeDriver({ vectors: false, db }), { sizes: [50], questions: 4 })).rejects.toThrow(
      /not a whole number of the given corpora/,
    );
  });
});

describe('bench arguments (node:util parseArgs)', () => {
  it('parses the scale command and rejects bad sizes, unknown flags and a missing --data', () => {
    expect(parseScaleArgs(['--data', 'a', '--data', 'b', '--sizes', '30000,10_000', '--questions', '20'])).toMatchObject({
      data: ['a', 'b'],
      sizes: [10000, 30000],
      questions: 20,
      runtime: 'node',
      vectors: true,
    });
    expect(() => parseScaleArgs(['--data', 'a', '--sizes', '10,x'])).toThrow(BenchUsageError);
    expect(() => parseScaleArgs(['--data', 'a', '--sizes', '10', '--bogus'])).toThrow(/bogus/);
    expect(() => parseScaleArgs(['--sizes', '10'])).toThrow(/--data is required/);
    expect(() => parseScaleArgs(['--data', 'a', '--sizes', '10', '--runtime', 'deno'])).toThrow(/node or browser/);
    expect(parseScaleArgs(['--data', 'a', '--sizes', '10', '--runtime', 'browser', '--profile', 'p', '--port', '4324'])).toMatchObject({
      profile: 'p',
      port: 4324,
    });
    expect(parseScaleArgs(['--data', 'a', '--sizes', '10', '--runtime', 'browser']).port).toBeUndefined();
    expect(() => parseScaleArgs(['--data', 'a', '--sizes', '10', '--port', '4324'])).toThrow(
      /--port is only available with --runtime browser/,
    );
    expect(() => parseScaleArgs(['--data', 'a', '--sizes', '10', '--runtime', 'browser', '--port', 'x'])).toThrow(BenchUsageError);
  });

  it('--set takes only knobs the retrieval config has, with their type', () => {
    const o: Record<string, unknown> = {};
    setKnob(o, 'weights.vector', '0.3');
    setKnob(o, 'prf.enabled', 'false');
    setKnob(o, 'fielded.mode', 'bm25f');
    expect(o).toEqual({ weights: { vector: 0.3 }, prf: { enabled: false }, fielded: { mode: 'bm25f' } });
    expect(() => setKnob({}, 'weights.vectr', '1')).toThrow(/unknown knob "weights.vectr"/);
    expect(() => setKnob({}, 'weights', '1')).toThrow(/unknown knob/);
    expect(() => setKnob({}, 'weights.vector', 'lots')).toThrow(/needs a number/);
    expect(() => setKnob({}, 'prf.enabled', 'yes')).toThrow(/true or false/);
    expect(knobPaths()).toContain('weights.vector');
  });

  it('keeps the recall flags: repeated --set, a bare --rerank, node-only options refused in the browser', () => {
    const a = parseRecallArgs(['--data', 'd', '--set', 'rrfK=30', '--set', 'weights.prf=0.7', '--rerank', '--k', '1,5'], 'bundled');
    expect(a).toMatchObject({
      data: 'd',
      overrides: { rrfK: 30, weights: { prf: 0.7 } },
      reranker: 'bundled',
      ks: [1, 5, 10],
      baselines: true,
    });
    expect(parseRecallArgs(['--data', 'd', '--rerank', 'other/model'], 'bundled').reranker).toBe('other/model');
    expect(() => parseRecallArgs(['--data', 'd', '--runtime', 'browser', '--no-vectors'], 'b')).toThrow(
      /only available with --runtime node/,
    );
    expect(() => parseRecallArgs(['--data', 'd', '--set', 'nope=1'], 'b')).toThrow(/unknown knob "nope"/);
  });
});
