/**
 * What synthesising imported history would cost on the user's endpoint, per consolidation policy,
 * shown before an import starts so the user can choose.
 *
 * Episodes are counted with the real segmenter's rules minus topic drift (no vectors exist yet),
 * so the cell count is a floor; prompt sizes come from the real memcell prompt. The rest are
 * stated assumptions, not measurements: a memcell answer is ~350 tokens; scene summaries run for
 * about half the cells (queued summaries of one scene merge) at ~500 in / 150 out; the debounced
 * profile update runs about once per 25 cells at ~2,500 in / 400 out. `recurrence` synthesises up
 * front only cells whose theme recurs or that hold salient news — on the LoCoMo dev split 15% of
 * cells sit in scenes of ≥ 3 — so its range runs from 15% to 40% of eager; more follows later
 * when themes recur or answers use raw episodes.
 */
import { charsOverFour as estimateTokens } from '../base/tokens';
import { boundaryBefore, extend, type OpenSegment } from '../episodes/segmenter';
import type { Range, SynthesisEstimate } from '../base/historyImport';
import { buildMemCellPrompt } from './synthesisPrompts';

/** Running count of episodes and their tokens over imported conversations. */
export class EpisodeTally {
  cells = 0;
  turns = 0;
  tokens = 0;

  /** Adds one conversation's turns (in order) as the segmenter would split them. */
  addConversation(
    turns: readonly ({ readonly occurredAt: number } & ({ readonly content: string } | { readonly tokenCount: number }))[],
  ): void {
    let open: OpenSegment | null = null;
    for (const t of turns) {
      const turn = { id: '', seq: 0, occurredAt: t.occurredAt, tokenCount: 'tokenCount' in t ? t.tokenCount : estimateTokens(t.content) };
      if (!open || boundaryBefore(open, turn)) {
        this.cells++;
        open = null;
      }
      open = extend(open, turn);
      this.turns++;
      this.tokens += turn.tokenCount;
    }
  }
}

const MEMCELL_OUT = 350;
const PER_TURN_HEADER = 14;
const KNOWN_FACTS = 250;
const SCENE = { share: 0.5, prompt: 500, out: 150 };
const PROFILE = { perCells: 25, prompt: 2_500, out: 400 };
const RECURRENCE_SHARE: Range = { low: 0.15, high: 0.4 };

/** Prompt tokens of the memcell system text and header (one empty episode). */
const MEMCELL_OVERHEAD = buildMemCellPrompt({ startAt: 0, endAt: 0, turns: [], known: [] }).reduce(
  (n, m) => n + estimateTokens(m.content),
  0,
);

export function estimateSynthesis(tally: EpisodeTally): SynthesisEstimate[] {
  const cells = tally.cells;
  const eager = {
    calls: cells + Math.ceil(cells * SCENE.share) + Math.ceil(cells / PROFILE.perCells),
    prompt:
      cells * (MEMCELL_OVERHEAD + KNOWN_FACTS) +
      tally.tokens +
      tally.turns * PER_TURN_HEADER +
      Math.ceil(cells * SCENE.share) * SCENE.prompt +
      Math.ceil(cells / PROFILE.perCells) * PROFILE.prompt,
    out: cells * MEMCELL_OUT + Math.ceil(cells * SCENE.share) * SCENE.out + Math.ceil(cells / PROFILE.perCells) * PROFILE.out,
  };
  const exact = (x: number): Range => ({ low: x, high: x });
  const share = (x: number): Range => ({ low: Math.round(x * RECURRENCE_SHARE.low), high: Math.round(x * RECURRENCE_SHARE.high) });
  return [
    { policy: 'eager', calls: exact(eager.calls), promptTokens: exact(eager.prompt), completionTokens: exact(eager.out) },
    { policy: 'recurrence', calls: share(eager.calls), promptTokens: share(eager.prompt), completionTokens: share(eager.out) },
    { policy: 'off', calls: exact(0), promptTokens: exact(0), completionTokens: exact(0) },
  ];
}
