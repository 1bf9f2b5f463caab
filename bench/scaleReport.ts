/**
 * The scale benchmark's report (bench/scale.ts): JSON (fractions
 * 0..1, times in ms, sizes in bytes), a Markdown summary and an SVG chart (retrieval p50/p95 and
 * recall.turn@10 against database size, ours and FTS5 BM25 alone, and the answer's whole memory
 * read p95), written next to each other.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';

export interface ScaleSystemPoint {
  readonly latencyMs: { readonly p50: number; readonly p95: number };
  /** Keys "1", "5", "10". */
  readonly recall: { readonly turn: Record<string, number>; readonly session: Record<string, number> };
}

/** The answer's whole memory read (turns, facts, episodes and their themes, profile, plans) at one size. */
export interface ScaleAnswerPoint {
  readonly latencyMs: { readonly p50: number; readonly p95: number };
  /** Items per question it got back, mean over the questions (after the answer's limits). */
  readonly meanItems: {
    readonly turns: number;
    readonly facts: number;
    readonly episodes: number;
    readonly profile: number;
    readonly plans: number;
  };
}

/** What the synthesised layer (bench/scaleLayer.ts) holds at one size, and the time to write its new part. */
export interface ScaleLayerPoint {
  readonly turns: number;
  readonly cells: number;
  readonly episodes: number;
  readonly facts: number;
  readonly scenes: number;
  readonly profile: number;
  readonly plans: number;
  readonly ms: number;
}

export interface ScalePoint extends ScaleSystemPoint {
  readonly turns: number;
  readonly questions: number;
  readonly baselines: { readonly bm25: ScaleSystemPoint };
  /** Absent in reports made before the answer read was timed. */
  readonly answerRead?: ScaleAnswerPoint;
  readonly layer?: ScaleLayerPoint;
  /** End to end (capture + embedding) over the turns appended since the previous checkpoint. */
  readonly ingestTurnsPerSecond: number;
  readonly captureTurnsPerSecond: number;
  /** Mean characters per turn appended since the previous checkpoint (LoCoMo ≈126, LongMemEval ≈1,090: ingest cost follows text length). */
  readonly meanTurnChars?: number;
  readonly dbBytes: number;
  readonly bytesPerTurn: number;
  readonly heapBytes: number;
  /** Browser only: navigation of a new page to its first search result; null in Node. */
  readonly coldOpenMs: number | null;
  /** With a slowdown: the same questions and cold open at full speed in the same run, measured just before. */
  readonly fullSpeed?: ScaleFullSpeedPoint;
}

/** The baseline of a slowed run (`--slowdown`): latencies at full speed, same database, same questions. */
export interface ScaleFullSpeedPoint {
  readonly latencyMs: { readonly p50: number; readonly p95: number };
  readonly bm25LatencyMs: { readonly p50: number; readonly p95: number };
  readonly answerReadLatencyMs: { readonly p50: number; readonly p95: number };
  readonly coldOpenMs: number | null;
}

export interface ScaleReport {
  readonly runtime: 'node' | 'browser';
  readonly embedder: string | null;
  readonly commit: string | null;
  readonly createdAt: string;
  readonly sources: readonly string[];
  readonly availableTurns: number;
  /** Measured with the page and its workers slowed (`--slowdown`, bench/cpuSlowdown.ts); absent = full speed. */
  readonly slowdown?: {
    readonly factor: number;
    readonly covers: string;
    /** Each slowed stretch: the duty factor used and the slowdown a fixed loop in the page measured before and after (bench/browserHarness.ts). */
    /** Nice value of the browser's threads while measuring (`--nice`), both speeds. */
    readonly nice?: number;
    readonly calibrations?: readonly {
      readonly label: string;
      readonly loopMs: number;
      readonly before: number;
      readonly after: number;
      readonly stoppedShare: number;
    }[];
  };
  /** Timed passes over the questions at each size, every sample counted (absent in older reports: 1). */
  readonly reps?: number;
  readonly points: readonly ScalePoint[];
  readonly notes: readonly string[];
}

/** A mid-range phone, measured at 4× slower (browser, `--slowdown 4`). */
export const PHONE_TARGETS = { p95At100kMs: 100, coldOpenMs: 3000, answerReadP95Ms: 300 } as const;

/** The scale targets (browser runtime, bundled model). */
export const SCALE_TARGETS = {
  p95At10kMs: 50,
  p95At100kMs: 100,
  coldOpenMs: 1500,
  heapBytes: 400 * 1024 * 1024,
  ingestTurnsPerSecond: 1000,
} as const;

const int = (x: number) => Math.round(x).toLocaleString('en');
const pct = (x: number | undefined) => `${((x ?? 0) * 100).toFixed(1)}`;
const mb = (x: number) => `${(x / 1024 / 1024).toFixed(0)} MB`;

export function scaleSummary(r: ScaleReport): string {
  const lines = [
    `# Scale: one database grown to ${int(r.points[r.points.length - 1]?.turns ?? 0)} turns (${r.runtime})`,
    '',
    `Embedder ${r.embedder ?? 'none (lexical only)'}; commit ${r.commit ?? 'unknown'}, ${r.createdAt}. Data: ${r.sources.join(', ') || '—'} (${int(r.availableTurns)} turns available).`,
    '',
    ...(r.slowdown
      ? [
          `**Slowed ${r.slowdown.factor}×** while measuring (growth ran at full speed): ${r.slowdown.covers}.${r.slowdown.nice !== undefined ? ` Both speeds measured with the browser at nice ${r.slowdown.nice}, so other work on the machine does not queue ahead of it.` : ''}`,
          '',
        ]
      : []),
    '| turns | questions | ours p50 / p95 ms | answer read p50 / p95 ms | ours recall.turn @1 / @5 / @10 | BM25 p50 / p95 ms | BM25 recall.turn @1 / @5 / @10 | ours / BM25 session @10 | ingest turns/s (e2e / capture) | chars/turn appended | bytes/turn | engine memory | cold open |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const p of r.points) {
    const b = p.baselines.bm25;
    const a = p.answerRead;
    lines.push(
      `| ${int(p.turns)} | ${p.questions} | ${p.latencyMs.p50.toFixed(0)} / ${p.latencyMs.p95.toFixed(0)} | ${a ? `${a.latencyMs.p50.toFixed(0)} / ${a.latencyMs.p95.toFixed(0)}` : '—'} | ${pct(p.recall.turn['1'])} / ${pct(p.recall.turn['5'])} / ${pct(p.recall.turn['10'])} | ${b.latencyMs.p50.toFixed(0)} / ${b.latencyMs.p95.toFixed(0)} | ${pct(b.recall.turn['1'])} / ${pct(b.recall.turn['5'])} / ${pct(b.recall.turn['10'])} | ${pct(p.recall.session['10'])} / ${pct(b.recall.session['10'])} | ${int(p.ingestTurnsPerSecond)} / ${int(p.captureTurnsPerSecond)} | ${p.meanTurnChars === undefined ? '—' : int(p.meanTurnChars)} | ${int(p.bytesPerTurn)} | ${mb(p.heapBytes)} | ${p.coldOpenMs === null ? '—' : `${int(p.coldOpenMs)} ms`} |`,
    );
  }
  lines.push(
    '',
    `Questions at each size: scorable questions (turn evidence) whose corpus is in the database, the most recently added first. Latency is retrieval of 10 turns (ours: MemoryEngine.recall; BM25: FTS5 over messages alone) and the answer read (below), the systems on each question in turn (the order reversed on every other question), after 3 untimed warm-up questions; ${r.reps ?? 1} timed pass${(r.reps ?? 1) === 1 ? '' : 'es'} over the questions, every pass's times counted in p50 / p95. Engine memory: ${r.runtime === 'browser' ? "the benchmark worker's JS heap and array buffers (CDP Runtime.getHeapUsage) plus SQLite's WebAssembly heap — an upper bound; the embedder runs in the model worker and is not counted" : 'this Node process (JS heap + external memory, which includes the embedding model)'}.`,
  );
  const layered = r.points.filter((p) => p.answerRead && p.layer);
  if (layered.length) {
    lines.push(
      '',
      "**Answer read**: everything an answer reads from memory for the question (MemoryEngine.answerContext, the retrieval round of `ask` without the endpoint): its turns (our recall), facts and episodes (full text and vectors, fused), the themes of the best episodes, the profile and the plans still valid — over a synthesised layer written at each size from the turns' own text (bench/scaleLayer.ts).",
      '',
      '| turns | answer read p50 / p95 ms | answer read p95 / BM25 p95 | answer read p95 / ours p95 | items read per question (turns / facts / episodes / profile / plans) | episodes synthesised / all | facts | themes | profile items | plans | layer written in |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const p of layered) {
      const a = p.answerRead!;
      const l = p.layer!;
      const m = a.meanItems;
      const ratio = (x: number, y: number) => (y > 0 ? `${(x / y).toFixed(2)}×` : '—');
      lines.push(
        `| ${int(p.turns)} | ${a.latencyMs.p50.toFixed(1)} / ${a.latencyMs.p95.toFixed(1)} | ${ratio(a.latencyMs.p95, p.baselines.bm25.latencyMs.p95)} | ${ratio(a.latencyMs.p95, p.latencyMs.p95)} | ${[m.turns, m.facts, m.episodes, m.profile, m.plans].map((x) => x.toFixed(1)).join(' / ')} | ${int(l.episodes)} / ${int(l.cells)} | ${int(l.facts)} | ${int(l.scenes)} | ${int(l.profile)} | ${int(l.plans)} | ${(l.ms / 1000).toFixed(1)} s |`,
      );
    }
    const t = SCALE_TARGETS;
    const at = (n: number) => layered.find((p) => p.turns >= n * 0.95 && p.turns <= n * 1.2);
    const verdict = (p: ScalePoint | undefined, limit: number) =>
      p ? (p.answerRead!.latencyMs.p95 <= limit ? 'met' : 'not met') : 'not measured';
    lines.push(
      '',
      `Answer read against the recall targets (${r.runtime}): p95 ≤ ${t.p95At10kMs} ms at 10k ${verdict(at(10_000), t.p95At10kMs)}; p95 ≤ ${t.p95At100kMs} ms at 100k ${verdict(at(100_000), t.p95At100kMs)}.`,
    );
  }
  if (r.runtime === 'browser') {
    const t = SCALE_TARGETS;
    const at = (n: number) => r.points.find((p) => p.turns >= n * 0.95 && p.turns <= n * 1.2);
    const p10 = at(10_000);
    const p100 = at(100_000);
    lines.push(
      '',
      `Targets (browser): p95 ≤ ${t.p95At10kMs} ms at 10k ${p10 ? (p10.latencyMs.p95 <= t.p95At10kMs ? 'met' : 'not met') : 'not measured'}; p95 ≤ ${t.p95At100kMs} ms at 100k ${p100 ? (p100.latencyMs.p95 <= t.p95At100kMs ? 'met' : 'not met') : 'not measured'}; cold open ≤ ${int(t.coldOpenMs)} ms at 100k ${p100 ? ((p100.coldOpenMs ?? Infinity) <= t.coldOpenMs ? 'met' : 'not met') : 'not measured'}; worker memory ≤ ${mb(t.heapBytes)} at 100k ${p100 ? (p100.heapBytes <= t.heapBytes ? 'met' : 'not met') : 'not measured'}.`,
    );
  }
  if (r.slowdown && r.points.some((p) => p.fullSpeed)) lines.push('', ...slowdownTable(r.slowdown.factor, r.points));
  if (r.slowdown?.calibrations?.length) {
    const x = (v: number) => (Number.isFinite(v) ? `${v.toFixed(1)}×` : '—');
    lines.push(
      '',
      `What the slowdown really gave (a fixed loop in the page, slowed against full speed, just before / after each slowed stretch; on a loaded machine the scheduler gives a stopped process back part of the time it missed, so the loop slows less than ${r.slowdown.factor}×): ` +
        r.slowdown.calibrations
          .map(
            (c) =>
              `${c.label} ${x(c.before)} / ${x(c.after)} (stopped ${Number.isFinite(c.stoppedShare) ? (100 * c.stoppedShare).toFixed(0) : '—'}%)`,
          )
          .join('; ') +
        '.',
    );
  }
  if (r.runtime === 'browser' && r.slowdown) {
    const t = PHONE_TARGETS;
    const p100 = r.points.find((p) => p.turns >= 95_000 && p.turns <= 120_000);
    const worst = r.points.reduce<ScalePoint | undefined>(
      (w, p) => (!w || (p.answerRead?.latencyMs.p95 ?? 0) > (w.answerRead?.latencyMs.p95 ?? 0) ? p : w),
      undefined,
    );
    const coldWorst = Math.max(...r.points.map((p) => p.coldOpenMs ?? 0));
    const v = (ok: boolean | null) => (ok === null ? 'not measured' : ok ? 'met' : 'not met');
    lines.push(
      '',
      `Phone targets (${r.slowdown.factor}× slower): recall p95 ≤ ${t.p95At100kMs} ms at 100k ${v(p100 ? p100.latencyMs.p95 <= t.p95At100kMs : null)}; ` +
        `cold open ≤ ${int(t.coldOpenMs)} ms ${v(coldWorst > 0 ? coldWorst <= t.coldOpenMs : null)} (worst size ${int(coldWorst)} ms); ` +
        `answer read p95 ≤ ${t.answerReadP95Ms} ms ${v(worst?.answerRead ? worst.answerRead.latencyMs.p95 <= t.answerReadP95Ms : null)} (worst size ${worst?.answerRead ? worst.answerRead.latencyMs.p95.toFixed(0) : '—'} ms).`,
    );
  }
  for (const n of r.notes) lines.push('', `Note: ${n}`);
  return lines.join('\n');
}

/** Slowed against full speed in the same run, p95 (ms) and the ratio, for each size. */
export function slowdownTable(factor: number, points: readonly ScalePoint[]): string[] {
  const cell = (slow: number | null | undefined, full: number | null | undefined) =>
    slow == null || full == null ? '—' : `${int(full)} → ${int(slow)} (${full > 0 ? (slow / full).toFixed(1) : '—'}×)`;
  const out = [
    `**Full speed → ${factor}× slower**, same run, same database and questions (p95 ms; cold open: navigation to the first result):`,
    '',
    '| turns | our recall p95 | answer read p95 | BM25 alone p95 | cold open |',
    '|---:|---:|---:|---:|---:|',
  ];
  for (const p of points) {
    const f = p.fullSpeed;
    if (!f) continue;
    out.push(
      `| ${int(p.turns)} | ${cell(p.latencyMs.p95, f.latencyMs.p95)} | ${cell(p.answerRead?.latencyMs.p95, f.answerReadLatencyMs.p95)} | ${cell(p.baselines.bm25.latencyMs.p95, f.bm25LatencyMs.p95)} | ${cell(p.coldOpenMs, f.coldOpenMs)} |`,
    );
  }
  return out;
}

/** Two panels side by side: latency (p50 dashed, p95 solid) and recall.turn@10, ours vs BM25. */
export function scaleSvg(r: ScaleReport): string {
  const W = 360;
  const H = 240;
  const pad = { l: 48, r: 12, t: 28, b: 36 };
  const xs = r.points.map((p) => p.turns);
  const xMax = Math.max(1, ...xs);
  const x = (v: number) => pad.l + (v / xMax) * (W - pad.l - pad.r);
  const panel = (
    ox: number,
    title: string,
    yMax: number,
    yLabel: (v: number) => string,
    series: { name: string; colour: string; dash?: boolean; values: number[] }[],
  ) => {
    const y = (v: number) => pad.t + (1 - v / yMax) * (H - pad.t - pad.b);
    const out = [`<g transform="translate(${ox},0)">`, `<text x="${W / 2}" y="16" text-anchor="middle" font-size="13">${title}</text>`];
    for (let i = 0; i <= 4; i++) {
      const v = (yMax * i) / 4;
      out.push(
        `<line x1="${pad.l}" x2="${W - pad.r}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/><text x="${pad.l - 4}" y="${y(v) + 4}" text-anchor="end" font-size="10">${yLabel(v)}</text>`,
      );
    }
    for (const t of xs)
      out.push(`<text x="${x(t)}" y="${H - pad.b + 14}" text-anchor="middle" font-size="10">${(t / 1000).toFixed(0)}k</text>`);
    out.push(`<text x="${W / 2}" y="${H - 6}" text-anchor="middle" font-size="10">turns in the database</text>`);
    series.forEach((s, i) => {
      const pts = s.values.map((v, j) => `${x(xs[j]!).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
      out.push(`<polyline points="${pts}" fill="none" stroke="${s.colour}" stroke-width="2"${s.dash ? ' stroke-dasharray="4 3"' : ''}/>`);
      for (const p of pts.split(' ')) out.push(`<circle cx="${p.split(',')[0]}" cy="${p.split(',')[1]}" r="2.5" fill="${s.colour}"/>`);
      out.push(`<text x="${pad.l + 6}" y="${pad.t + 12 + i * 12}" font-size="10" fill="${s.colour}">${s.name}</text>`);
    });
    out.push('</g>');
    return out.join('');
  };
  const lat = r.points.flatMap((p) => [p.latencyMs.p95, p.baselines.bm25.latencyMs.p95, p.answerRead?.latencyMs.p95 ?? 0]);
  const answered = r.points.every((p) => p.answerRead);
  const yLat = Math.max(10, ...lat) * 1.1;
  const ours = '#1f6feb';
  const bm25 = '#d1242f';
  const answer = '#8250df';
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W * 2}" height="${H}" font-family="sans-serif">`,
    `<rect width="${W * 2}" height="${H}" fill="white"/>`,
    panel(0, `Retrieval latency (${r.runtime})`, yLat, (v) => `${v.toFixed(0)} ms`, [
      { name: 'ours p95', colour: ours, values: r.points.map((p) => p.latencyMs.p95) },
      { name: 'ours p50', colour: ours, dash: true, values: r.points.map((p) => p.latencyMs.p50) },
      { name: 'BM25 p95', colour: bm25, values: r.points.map((p) => p.baselines.bm25.latencyMs.p95) },
      { name: 'BM25 p50', colour: bm25, dash: true, values: r.points.map((p) => p.baselines.bm25.latencyMs.p50) },
      ...(answered ? [{ name: 'answer read p95', colour: answer, values: r.points.map((p) => p.answerRead!.latencyMs.p95) }] : []),
    ]),
    panel(W, 'recall.turn@10', 1, (v) => `${(v * 100).toFixed(0)}%`, [
      { name: 'ours', colour: ours, values: r.points.map((p) => p.recall.turn['10'] ?? 0) },
      { name: 'BM25', colour: bm25, values: r.points.map((p) => p.baselines.bm25.recall.turn['10'] ?? 0) },
    ]),
    '</svg>',
  ].join('\n');
}

export async function writeScaleReport(report: ScaleReport, out: string): Promise<{ json: string; md: string; svg: string }> {
  await mkdir(dirname(out), { recursive: true });
  const stem = out.replace(/\.json$/i, '');
  const paths = { json: `${stem}.json`, md: `${stem}.md`, svg: `${stem}.svg` };
  await writeFile(paths.json, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(paths.md, `${scaleSummary(report)}\n\n![scale chart](${basename(paths.svg)})\n`);
  await writeFile(paths.svg, `${scaleSvg(report)}\n`);
  return paths;
}
