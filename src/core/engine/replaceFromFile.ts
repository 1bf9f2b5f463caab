/**
 * Import… of a `.sqlite` file: the memory is replaced all or nothing (importMemory.ts), and the
 * engine restarts on it. A restored memory with turns no synthesis covers would start paid
 * synthesis at once under its saved policy, so the policy is set to `off` before anything starts
 * and the import reports the estimate per policy for the person to choose, as with Import chats.
 */
import type { ImportSummary } from '../base/types';
import type { EngineEvent } from '../protocol';
import { EpisodeTally, estimateSynthesis } from '../synthesis/synthesisEstimate';
import type { EngineParts } from './assembleEngine';
import { importMemory } from './importMemory';

export interface Restart {
  emit(event: EngineEvent): void;
  /** Starts the engine again on the new file; `beforeWork` runs before any background work. */
  start(beforeWork: (() => Promise<void>) | undefined): Promise<void>;
}

export async function replaceFromFile(p: EngineParts, bytes: Uint8Array, engine: Restart): Promise<ImportSummary> {
  let held: ImportSummary['pendingSynthesis'] | null = null;
  let first = true;
  const summary = await importMemory(
    {
      stage: (b, options) => p.store.stageImport(b, options),
      restart: async () => {
        p.semantic.reset();
        p.lifecycle.reset();
        engine.emit({ type: 'database-replaced' });
        // Only the imported memory is held: a restart after a rollback is the user's own memory.
        const hold = first;
        first = false;
        await engine.start(
          hold
            ? async () => {
                held = await holdSynthesis(p);
              }
            : undefined,
        );
      },
    },
    bytes,
    p.indexer ? { knownEmbedder: (id) => p.indexer!.knows(id) } : {},
  );
  return held ? { ...summary, pendingSynthesis: held } : summary;
}

async function holdSynthesis(p: EngineParts): Promise<ImportSummary['pendingSynthesis'] | null> {
  if (!p.episodes) return null;
  const policy = p.settings.policy;
  if (policy === 'off') return null;
  const turns = await p.episodes.unsynthesisedTurns();
  if (turns.length === 0) return null;
  const tally = new EpisodeTally();
  for (let i = 0; i < turns.length;) {
    let j = i;
    while (j < turns.length && turns[j]!.conversationId === turns[i]!.conversationId) j++;
    tally.addConversation(turns.slice(i, j));
    i = j;
  }
  await p.settings.setPolicy('off');
  return {
    turns: tally.turns,
    episodes: tally.cells,
    estimates: estimateSynthesis(tally),
    policyInFile: policy === 'eager' ? 'eager' : 'recurrence',
  };
}
