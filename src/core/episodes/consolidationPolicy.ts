/**
 * When is an episode worth LLM tokens? (docs/architecture.md, Write path.) One interface, three policies:
 * - eager: every closed MemCell is synthesised at once.
 * - recurrence (default): a MemCell stays raw — its verbatim turns remain fully searchable — until
 *   its theme recurs (another cell joins the same MemScene), until it is retrieved for an answer,
 *   or at once when it holds a highly salient and novel turn ("I'm allergic to penicillin").
 * - off: verbatim only; no synthesis tokens are ever spent.
 */
import type { MemCellRecord } from './episodes';

export type PolicyName = 'eager' | 'recurrence' | 'off';

export interface ConsolidationPolicy {
  readonly name: PolicyName;
  /** Called when `cell` closes and has joined its scene; returns the ids of cells to synthesise now. */
  onCellClosed(cell: MemCellRecord, sceneCells: readonly MemCellRecord[]): string[];
  /** Called with cells an answer used; returns the ids to synthesise now. */
  onRetrieved(cells: readonly MemCellRecord[]): string[];
}

/** Cell priority (encodingScore.consolidationPriority) at or above which `recurrence` synthesises without waiting:
 * commitments, corrections, decisions and personal facts that do not repeat what is stored. */
export const SALIENT_CELL_THRESHOLD = 0.7;
/**
 * Cells in one scene (including the new one) that make its topic a recurring one. With the default
 * scene thresholds, 44 of 292 LoCoMo dev cells sit in scenes of ≥ 3 (vs 106 in scenes of ≥ 2).
 */
export const RECURRENCE_MIN_CELLS = 3;

const unsynthesised = (c: MemCellRecord) => c.status === 'raw' || c.status === 'failed';

export const eagerPolicy: ConsolidationPolicy = {
  name: 'eager',
  onCellClosed: (cell) => (unsynthesised(cell) ? [cell.id] : []),
  onRetrieved: (cells) => cells.filter(unsynthesised).map((c) => c.id),
};

export const recurrencePolicy: ConsolidationPolicy = {
  name: 'recurrence',
  onCellClosed(cell, sceneCells) {
    if (sceneCells.length >= RECURRENCE_MIN_CELLS) return sceneCells.filter(unsynthesised).map((c) => c.id);
    return cell.salience >= SALIENT_CELL_THRESHOLD && unsynthesised(cell) ? [cell.id] : [];
  },
  onRetrieved: (cells) => cells.filter(unsynthesised).map((c) => c.id),
};

export const offPolicy: ConsolidationPolicy = {
  name: 'off',
  onCellClosed: () => [],
  onRetrieved: () => [],
};

export function policyByName(name: PolicyName): ConsolidationPolicy {
  return name === 'eager' ? eagerPolicy : name === 'off' ? offPolicy : recurrencePolicy;
}
