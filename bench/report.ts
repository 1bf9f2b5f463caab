/**
 * The recall report: JSON (fractions 0..1, times in ms), a Markdown
 * summary and an SVG chart (recall.turn@k overall, and recall.turn@10 per category), ours vs
 * baselines, written next to each other.
 */
import { writeFile, mkdir } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import type { RetrievalConfig } from '../src/core/recall/fusion';
import { summarise, type RecallRun, type RerankCost, type SystemSummary } from './recall';
import { ANSWER_BUDGET } from '../src/core/base/settings';
import type { DatasetName } from './datasets';

export interface RecallReport {
  readonly dataset: DatasetName;
  readonly source: string;
  readonly runtime: 'node' | 'browser';
  readonly commit: string | null;
  readonly createdAt: string;
  readonly embedder: string | null;
  readonly reranker: string | null;
  readonly ks: readonly number[];
  /** Headline questions scored (with valid evidence). */
  readonly questions: number;
  readonly questionsTotal: number;
  readonly invalidEvidenceIds: number;
  readonly recall: SystemSummary['recall'];
  readonly hit: SystemSummary['hit'];
  readonly recallAny: SystemSummary['recallAny'];
  readonly recallAll: SystemSummary['recallAll'];
  readonly mrr: number;
  /** Fraction of evidence turns cited in the composed answer context at the default memory budget (null when not composed). */
  readonly contextRecall: number | null;
  readonly contextBudgetTokens: number;
  readonly byCategory: SystemSummary['byCategory'];
  /** Questions reported apart from the headline (LoCoMo category 5, LongMemEval abstention). */
  readonly apart: SystemSummary['apart'];
  readonly latencyMs: SystemSummary['latencyMs'];
  /** turnsPerSecond is end to end (capture + embed); captureTurnsPerSecond is the write path alone. */
  readonly ingest: {
    readonly turns: number;
    readonly seconds: number;
    readonly turnsPerSecond: number;
    readonly captureSeconds: number;
    readonly captureTurnsPerSecond: number;
    readonly embedSeconds: number;
  };
  readonly dbBytes: number;
  readonly dbBytesPerTurn: number;
  readonly config: RetrievalConfig;
  readonly baselines: Record<string, SystemSummary>;
  /** ours / baseline, recall.turn at each k (same run). */
  readonly gain: Record<string, Record<string, number>>;
  /** Other configs evaluated in the same run (tuning), name → summary. */
  readonly variants?: Record<string, SystemSummary>;
  /** The speed targets (set for the browser runtime) against this run's measurements. */
  readonly targets: {
    readonly captureTurnsPerSecond: { readonly target: number; readonly measured: number; readonly met: boolean };
    readonly latencyP95Ms: { readonly target: number; readonly measured: number; readonly met: boolean };
  };
  /** How this run differs from the default protocol (e.g. baselines skipped in the browser). */
  readonly notes: readonly string[];
  /** Cost of the rerank stage (pairs/s, time added per question), when a reranker ran. */
  readonly rerank?: RerankCost;
  /**
   * With a reranker: the same run's ranking without the rerank stage ("fused") and with it
   * ("reranked"), recall.turn@k and context recall (evidence turns in the composed answer context)
   * side by side, so reranking's effect on what answers see is visible.
   */
  readonly rerankEffect?: {
    readonly fused: RankingFigures;
    readonly reranked: RankingFigures;
    readonly others?: Record<string, RankingFigures>;
  };
}

export interface RankingFigures {
  readonly recallTurn: Record<string, number>;
  readonly mrr: number;
  readonly contextRecall: number | null;
}

/** Speed targets: browser ingest ≥ 1,000 turns/s (capture), retrieval p95 ≤ 50 ms per question. */
export const TARGETS = { captureTurnsPerSecond: 1000, latencyP95Ms: 50 } as const;

export function buildReport(
  run: RecallRun,
  args: {
    runtime: 'node' | 'browser';
    ks: readonly number[];
    commit: string | null;
    config: RetrievalConfig;
    ours: string;
    baselineNames: readonly string[];
    variantNames: readonly string[];
  },
): RecallReport {
  const ours = summarise(run, args.ours, args.ks);
  const baselines = Object.fromEntries(args.baselineNames.map((n) => [n, summarise(run, n, args.ks)]));
  const gain: Record<string, Record<string, number>> = {};
  for (const [n, b] of Object.entries(baselines)) {
    gain[n] = Object.fromEntries(args.ks.map((k) => [String(k), b.recall.turn[k]! > 0 ? ours.recall.turn[k]! / b.recall.turn[k]! : 0]));
  }
  const seconds = run.ingest.captureSeconds + run.ingest.embedSeconds;
  const captureTurnsPerSecond = run.ingest.captureSeconds > 0 ? run.ingest.turns / run.ingest.captureSeconds : 0;
  const variants = args.variantNames.filter((n) => n !== args.ours);
  return {
    dataset: run.dataset.name,
    source: run.dataset.source,
    runtime: args.runtime,
    commit: args.commit,
    createdAt: new Date().toISOString(),
    embedder: run.embedderId,
    reranker: run.rerankerId,
    ks: args.ks,
    questions: ours.questions,
    questionsTotal: run.questionsTotal,
    invalidEvidenceIds: run.invalidEvidence,
    recall: ours.recall,
    hit: ours.hit,
    recallAny: ours.recallAny,
    recallAll: ours.recallAll,
    mrr: ours.mrr,
    contextRecall: ours.contextRecall,
    contextBudgetTokens: ANSWER_BUDGET.default,
    byCategory: ours.byCategory,
    apart: ours.apart,
    latencyMs: ours.latencyMs,
    ingest: {
      turns: run.ingest.turns,
      seconds,
      turnsPerSecond: seconds > 0 ? run.ingest.turns / seconds : 0,
      captureSeconds: run.ingest.captureSeconds,
      captureTurnsPerSecond,
      embedSeconds: run.ingest.embedSeconds,
    },
    dbBytes: run.dbBytes,
    dbBytesPerTurn: run.ingest.turns ? run.dbBytes / run.ingest.turns : 0,
    config: args.config,
    baselines,
    gain,
    ...(variants.length ? { variants: Object.fromEntries(variants.map((n) => [n, summarise(run, n, args.ks)])) } : {}),
    targets: {
      captureTurnsPerSecond: {
        target: TARGETS.captureTurnsPerSecond,
        measured: captureTurnsPerSecond,
        met: captureTurnsPerSecond >= TARGETS.captureTurnsPerSecond,
      },
      latencyP95Ms: { target: TARGETS.latencyP95Ms, measured: ours.latencyMs.p95, met: ours.latencyMs.p95 <= TARGETS.latencyP95Ms },
    },
    notes: run.notes ?? [],
    ...(run.rerank ? { rerank: run.rerank } : {}),
    ...(run.rerank && baselines.fused
      ? { rerankEffect: { fused: figures(baselines.fused), reranked: figures(ours), ...othersOf(baselines) } }
      : {}),
  };
}

/** Further rerankers of the same run (`--rerank a,b,…`): systems named "reranked <spec>". */
function othersOf(baselines: Record<string, SystemSummary>): { others?: Record<string, RankingFigures> } {
  const others = Object.entries(baselines).filter(([n]) => n.startsWith('reranked '));
  return others.length ? { others: Object.fromEntries(others.map(([n, b]) => [n.slice('reranked '.length), figures(b)])) } : {};
}

function figures(s: SystemSummary): RankingFigures {
  return { recallTurn: { ...s.recall.turn }, mrr: s.mrr, contextRecall: s.contextRecall };
}

const pct = (x: number | undefined) => (x === undefined ? '–' : (x * 100).toFixed(1));

export function markdownSummary(r: RecallReport, chartFile: string): string {
  const systems: [
    string,
    {
      recall: { turn: Record<string, number>; session: Record<string, number> };
      hit: { turn: Record<string, number> };
      recallAny: { session: Record<string, number> };
      mrr: number;
      latencyMs: { p50: number; p95: number };
    },
  ][] = [['**ours**', r], ...Object.entries(r.baselines), ...Object.entries(r.variants ?? {})];
  const ks = r.ks;
  const lines: string[] = [];
  lines.push(`# Recall — ${r.dataset} (${r.runtime})`, '');
  lines.push(
    `Data \`${r.source}\`, commit ${r.commit ?? 'unknown'}, embedder ${r.embedder ?? 'none'}, reranker ${r.reranker ?? 'none'}. ` +
      `${r.questions} headline questions with valid evidence (of ${r.questionsTotal}; ${r.invalidEvidenceIds} malformed or dangling evidence ids dropped).`,
    '',
  );
  lines.push(`![recall chart](${chartFile})`, '');
  lines.push('## recall.turn@k (mean fraction of evidence turns in the top k)', '');
  lines.push(`| system | ${ks.map((k) => `@${k}`).join(' | ')} | hit@10 | session@10 | any-session@5 | MRR | p50 ms | p95 ms |`);
  lines.push(`|---|${ks.map(() => '---:').join('|')}|---:|---:|---:|---:|---:|---:|`);
  for (const [name, s] of systems) {
    lines.push(
      `| ${name} | ${ks.map((k) => pct(s.recall.turn[k])).join(' | ')} | ${pct(s.hit.turn[10])} | ${pct(s.recall.session[10])} | ${pct(s.recallAny.session[5])} | ${s.mrr.toFixed(3)} | ${s.latencyMs.p50.toFixed(1)} | ${s.latencyMs.p95.toFixed(1)} |`,
    );
  }
  lines.push(
    '',
    "## Session level (recall.session: evidence sessions among the top-k turns' sessions; any-session: an evidence session among the first k distinct sessions)",
    '',
  );
  lines.push(`| system | ${ks.map((k) => `session@${k}`).join(' | ')} | ${ks.map((k) => `any@${k}`).join(' | ')} |`);
  lines.push(`|---|${ks.map(() => '---:').join('|')}|${ks.map(() => '---:').join('|')}|`);
  for (const [name, s] of systems) {
    lines.push(
      `| ${name} | ${ks.map((k) => pct(s.recall.session[k])).join(' | ')} | ${ks.map((k) => pct(s.recallAny.session[k])).join(' | ')} |`,
    );
  }
  lines.push('', `## Context recall (evidence turns cited in the composed answer context, ${r.contextBudgetTokens} tokens, no LLM)`, '');
  lines.push(
    r.contextRecall === null ? 'Not measured in this run.' : `ours: **${pct(r.contextRecall)}** over ${r.questions} headline questions.`,
  );
  lines.push('', '## recall.turn@10 per category', '');
  const cats = Object.keys(r.byCategory);
  lines.push(`| system | ${cats.map((c) => `${c} (${r.byCategory[c]!.questions})`).join(' | ')} |`);
  lines.push(`|---|${cats.map(() => '---:').join('|')}|`);
  lines.push(`| **ours** | ${cats.map((c) => pct(r.byCategory[c]!.recall.turn[10])).join(' | ')} |`);
  for (const [name, b] of Object.entries(r.baselines))
    lines.push(`| ${name} | ${cats.map((c) => pct(b.byCategory[c]?.recall.turn[10])).join(' | ')} |`);
  lines.push('', '## ours per category (all k, session any@5, context recall)', '');
  lines.push(`| category | n | ${ks.map((k) => `@${k}`).join(' | ')} | any-session@5 | context |`);
  lines.push(`|---|---:|${ks.map(() => '---:').join('|')}|---:|---:|`);
  for (const [c, a] of Object.entries(r.byCategory)) {
    lines.push(
      `| ${c} | ${a.questions} | ${ks.map((k) => pct(a.recall.turn[k])).join(' | ')} | ${pct(a.recallAny.session[5])} | ${a.contextRecall === null ? '–' : pct(a.contextRecall)} |`,
    );
  }
  if (Object.keys(r.apart).length) {
    lines.push('', '## Reported apart (not in the headline: LoCoMo adversarial, LongMemEval and BEAM abstention)', '');
    for (const [c, a] of Object.entries(r.apart)) {
      // BEAM's abstention questions name no evidence: nothing for retrieval to find, so nothing scored.
      if (a.questions === 0) {
        lines.push(`- ${c}: no evidence to retrieve (the answer should say the memory does not hold it); not scored here`);
        continue;
      }
      lines.push(
        `- ${c}: ${a.questions} questions, recall.turn@10 ${pct(a.recall.turn[10])}, any-session@5 ${pct(a.recallAny.session[5])}` +
          `${a.contextRecall === null ? '' : `, context recall ${pct(a.contextRecall)}`}`,
      );
    }
  }
  if (r.rerank) {
    lines.push('', `## Rerank stage (${r.reranker ?? 'reranker'}, trust ${r.rerank.trust})`, '');
    if (r.rerankEffect) {
      const { fused, reranked } = r.rerankEffect;
      const delta = (a: number | null | undefined, b: number | null | undefined) =>
        a == null || b == null ? '–' : `${b - a >= 0 ? '+' : ''}${((b - a) * 100).toFixed(1)}`;
      lines.push(`| ranking | ${ks.map((k) => `@${k}`).join(' | ')} | MRR | context |`);
      lines.push(`|---|${ks.map(() => '---:').join('|')}|---:|---:|`);
      const rows: [string, RankingFigures][] = [
        ['fused (rerank off)', fused],
        [`reranked ${r.reranker ?? ''} (ours)`, reranked],
        ...Object.entries(r.rerankEffect.others ?? {}).map(([n, f]): [string, RankingFigures] => [`reranked ${n}`, f]),
      ];
      for (const [name, f] of rows) {
        lines.push(
          `| ${name} | ${ks.map((k) => pct(f.recallTurn[k])).join(' | ')} | ${f.mrr.toFixed(3)} | ${f.contextRecall === null ? '–' : pct(f.contextRecall)} |`,
        );
      }
      for (const [name, f] of rows.slice(1)) {
        lines.push(
          `| change, ${name} (points) | ${ks.map((k) => delta(fused.recallTurn[k], f.recallTurn[k])).join(' | ')} | ${f.mrr - fused.mrr >= 0 ? '+' : ''}${(f.mrr - fused.mrr).toFixed(3)} | ${delta(fused.contextRecall, f.contextRecall)} |`,
        );
      }
      lines.push('');
    }
    lines.push(
      `${r.rerank.pairs} pairs in ${r.rerank.calls} calls: ${r.rerank.pairsPerSecond.toFixed(0)} pairs/s; added per question ` +
        `p50 ${r.rerank.addedMs.p50.toFixed(1)} ms, p95 ${r.rerank.addedMs.p95.toFixed(1)} ms (mean ${r.rerank.addedMs.mean.toFixed(1)}). ` +
        "'fused' is the same ranking with the rerank stage off, in the same run.",
    );
  }
  lines.push('', '## Gain over baselines (ours / baseline, recall.turn@k, same run)', '');
  lines.push(`| baseline | ${ks.map((k) => `@${k}`).join(' | ')} |`, `|---|${ks.map(() => '---:').join('|')}|`);
  for (const [n, g] of Object.entries(r.gain)) lines.push(`| ${n} | ${ks.map((k) => `${(g[k] ?? 0).toFixed(2)}×`).join(' | ')} |`);
  lines.push('', '## Ingest and size', '');
  lines.push(
    `${r.ingest.turns} turns through MemoryEngine.appendTurns (one transaction per session) in ${r.ingest.captureSeconds.toFixed(2)} s, embedding caught up ${r.ingest.embedSeconds.toFixed(2)} s later: ` +
      `${r.ingest.turnsPerSecond.toFixed(0)} turns/s end to end (${r.ingest.captureTurnsPerSecond.toFixed(0)} turns/s capture only). ` +
      `Database ${(r.dbBytes / 1024).toFixed(0)} KiB in total, ${r.dbBytesPerTurn.toFixed(0)} bytes per turn.`,
    '',
  );
  const t = r.targets;
  lines.push(
    `Targets (browser runtime): capture ≥ ${t.captureTurnsPerSecond.target} turns/s — ${t.captureTurnsPerSecond.measured.toFixed(0)} (${t.captureTurnsPerSecond.met ? 'met' : 'not met'}); ` +
      `retrieval p95 ≤ ${t.latencyP95Ms.target} ms — ${t.latencyP95Ms.measured.toFixed(1)} ms (${t.latencyP95Ms.met ? 'met' : 'not met'}).`,
    '',
  );
  if (r.notes.length) {
    lines.push('## Notes', '');
    for (const n of r.notes) lines.push(`- ${n}`);
    lines.push('');
  }
  return lines.join('\n');
}

const COLORS = ['#1b6ac9', '#e07b00', '#2a9d4b', '#b03a8f', '#777777', '#8c564b'];

function esc(s: string): string {
  return s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}

/** Two panels: recall.turn@k per system (lines), recall.turn@10 per category (grouped bars). */
export function chartSvg(r: RecallReport): string {
  const systems: [
    string,
    { recall: { turn: Record<string, number> }; byCategory: Record<string, { recall: { turn: Record<string, number> } }> },
  ][] = [['ours', r], ...Object.entries(r.baselines)];
  const W = 980;
  const H = 360;
  const top = 40;
  const plotH = 240;
  const y = (v: number) => top + plotH * (1 - v);
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
  );
  parts.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  parts.push(
    `<text x="10" y="20" font-size="14" font-weight="bold">${esc(`${r.dataset}: recall.turn@k (left) and recall.turn@10 per category (right)`)}</text>`,
  );
  const axes = (x0: number, w: number) => {
    for (let v = 0; v <= 1.0001; v += 0.25) {
      parts.push(`<line x1="${x0}" x2="${x0 + w}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/>`);
      parts.push(`<text x="${x0 - 6}" y="${y(v) + 4}" text-anchor="end">${(v * 100).toFixed(0)}%</text>`);
    }
  };
  // Left: lines over k.
  const lx = 60;
  const lw = 340;
  axes(lx, lw);
  const kx = (i: number) => lx + (r.ks.length > 1 ? (lw * i) / (r.ks.length - 1) : lw / 2);
  r.ks.forEach((k, i) => parts.push(`<text x="${kx(i)}" y="${top + plotH + 16}" text-anchor="middle">@${k}</text>`));
  systems.forEach(([name, s], si) => {
    const pts = r.ks.map((k, i) => `${kx(i).toFixed(1)},${y(s.recall.turn[k] ?? 0).toFixed(1)}`).join(' ');
    parts.push(`<polyline points="${pts}" fill="none" stroke="${COLORS[si % COLORS.length]}" stroke-width="2"/>`);
    r.ks.forEach((k, i) =>
      parts.push(
        `<circle cx="${kx(i)}" cy="${y(s.recall.turn[k] ?? 0)}" r="3" fill="${COLORS[si % COLORS.length]}"><title>${esc(name)} @${k}: ${pct(s.recall.turn[k])}%</title></circle>`,
      ),
    );
  });
  // Right: grouped bars per category at k = 10.
  const rx = 480;
  const rw = 480;
  axes(rx, rw);
  const cats = Object.keys(r.byCategory);
  const groupW = rw / Math.max(1, cats.length);
  const barW = Math.min(22, (groupW - 10) / systems.length);
  cats.forEach((c, ci) => {
    const gx = rx + ci * groupW + (groupW - barW * systems.length) / 2;
    systems.forEach(([name, s], si) => {
      const v = s.byCategory[c]?.recall.turn[10] ?? 0;
      parts.push(
        `<rect x="${(gx + si * barW).toFixed(1)}" y="${y(v).toFixed(1)}" width="${(barW - 2).toFixed(1)}" height="${(plotH * v).toFixed(1)}" fill="${COLORS[si % COLORS.length]}"><title>${esc(`${name} ${c}: ${pct(v)}%`)}</title></rect>`,
      );
    });
    parts.push(`<text x="${rx + ci * groupW + groupW / 2}" y="${top + plotH + 16}" text-anchor="middle">${esc(c)}</text>`);
  });
  // Legend.
  systems.forEach(([name], si) => {
    const x = 60 + si * 150;
    parts.push(`<rect x="${x}" y="${H - 30}" width="12" height="12" fill="${COLORS[si % COLORS.length]}"/>`);
    parts.push(`<text x="${x + 18}" y="${H - 20}">${esc(name)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

/** Writes report.json, report.md and report.svg (names from `out`). Returns the paths. */
export async function writeReport(report: RecallReport, out: string): Promise<{ json: string; md: string; svg: string }> {
  await mkdir(dirname(out), { recursive: true });
  const stem = out.replace(/\.json$/i, '');
  const paths = { json: `${stem}.json`, md: `${stem}.md`, svg: `${stem}.svg` };
  await writeFile(paths.json, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(paths.svg, chartSvg(report));
  await writeFile(paths.md, `${markdownSummary(report, basename(paths.svg))}\n`);
  return paths;
}

export { join };
