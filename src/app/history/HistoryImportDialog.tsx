/**
 * "Import chats…": bring ChatGPT / Claude exports, benchmark corpora or transcripts into memory.
 * Shows what the file holds and what synthesis would cost per consolidation policy before
 * anything is written, then progress (conversations, turns, bytes) with Cancel, then the report.
 */
import { useRef, useState } from 'react';
import {
  HISTORY_FORMATS,
  type HistoryFormat,
  type HistoryProgress,
  type ScannedProject,
  type SynthesisEstimate,
  type TranscriptLayout,
} from '../../core/base/historyImport';
import type { PolicyName } from '../../core/episodes/consolidationPolicy';
import { useEngineQuery } from '../hooks';
import { formatBytes } from '../format';
import { IndexingProgress } from './IndexingProgress';
import { useHistoryImport } from './useHistoryImport';
import { PartialImportNotice } from './PartialImportNotice';
import { Dialog } from '../components/Dialog';
import { useInMenu, useMenuItemProps } from '../components/MoreMenu';
import { formatCount } from '../../core/base/numbers';

const FORMAT_LABELS: Record<HistoryFormat | 'auto', string> = {
  auto: 'Detect automatically',
  chatgpt: 'ChatGPT export (.zip or conversations.json)',
  claude: 'Claude export (.zip or conversations.json)',
  locomo: 'LoCoMo (JSON)',
  longmemeval: 'LongMemEval (JSON)',
  text: 'Transcript (.txt / .md, "Name: text")',
};

export const POLICY_LABELS: Record<PolicyName, string> = {
  eager: 'Eager — synthesise every episode now',
  recurrence: 'Recurrence — only recurring or salient themes, more later',
  off: 'Off — keep verbatim turns only, no calls',
};

const n = (x: number) => formatCount(Math.round(x));
export const range = (r: { low: number; high: number }) => (r.low === r.high ? n(r.low) : `${n(r.low)}–${n(r.high)}`);
export const tokens = (e: SynthesisEstimate) =>
  range({ low: e.promptTokens.low + e.completionTokens.low, high: e.promptTokens.high + e.completionTokens.high });

function Progress({ progress, label }: { progress: HistoryProgress | null; label: string }) {
  return (
    <div className="history-progress">
      <progress aria-label={label} value={progress?.bytesRead ?? 0} max={Math.max(1, progress?.bytesTotal ?? 1)} />
      <p data-testid="history-progress">
        {n(progress?.conversations ?? 0)} conversations · {n(progress?.turns ?? 0)} turns
        {progress && progress.skipped > 0 ? ` · ${n(progress.skipped)} skipped` : ''} · {formatBytes(progress?.bytesRead ?? 0)} of{' '}
        {formatBytes(progress?.bytesTotal ?? 0)}
      </p>
    </div>
  );
}

/** How a transcript's speakers were read: the first turns with their roles, and why the reading is uncertain. */
function TranscriptReading({
  layout,
  confirmed,
  onConfirm,
}: {
  layout: TranscriptLayout;
  confirmed: boolean;
  onConfirm: (yes: boolean) => void;
}) {
  return (
    <div className="transcript-reading" data-testid="transcript-reading">
      <p>
        {layout.ambiguous
          ? `Recollect is not sure who is speaking (${layout.reasons.join('; ')}). The first turns read as:`
          : 'The first turns read as:'}
      </p>
      <ol>
        {layout.preview.map((t, i) => (
          <li key={i} data-testid="transcript-turn" data-role={t.role}>
            <strong>{t.role === 'assistant' ? 'Assistant' : 'User'}</strong> ({t.speaker}): {t.excerpt}
          </li>
        ))}
      </ol>
      {layout.ambiguous && (
        <label>
          <input type="checkbox" checked={confirmed} onChange={(e) => onConfirm(e.target.checked)} /> These speakers and roles are right
        </label>
      )}
    </div>
  );
}

/** The source's projects the import will create (or fill again), and the memory mode of the new ones. */
function ImportedProjects({
  projects,
  projectOnly,
  onProjectOnly,
}: {
  projects: readonly ScannedProject[];
  projectOnly: boolean;
  onProjectOnly: (on: boolean) => void;
}) {
  const fresh = projects.filter((p) => !p.existingName).length;
  return (
    <div data-testid="history-projects">
      <p>Projects:</p>
      <ul>
        {projects.map((p) => (
          <li key={p.sourceId}>
            <strong>{p.existingName ?? p.name}</strong> —{' '}
            {p.chats === 0 ? 'no chats in this file' : `${n(p.chats)} chat${p.chats === 1 ? '' : 's'}`}
            {p.hasInstructions ? ', with its instructions' : ''}
            {p.existingName ? ' (already here from an earlier import: reused)' : ' (new)'}
          </li>
        ))}
      </ul>
      {fresh > 0 && (
        <label>
          <input type="checkbox" checked={projectOnly} onChange={(e) => onProjectOnly(e.target.checked)} /> Keep imported projects' memory
          inside them (project-only: their chats recall only the project, and nothing of them is recalled outside it)
        </label>
      )}
    </div>
  );
}

export function HistoryImportButton() {
  const item = useMenuItemProps();
  // In the More menu the partial-import notice would be hidden: the top bar shows it instead (App.tsx).
  const inMenu = useInMenu();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [format, setFormat] = useState<HistoryFormat | 'auto'>('auto');
  const [policy, setPolicy] = useState<PolicyName | null>(null);
  const [rolesConfirmed, setRolesConfirmed] = useState(false);
  const [projectOnly, setProjectOnly] = useState(false);
  const consolidation = useEngineQuery((q) => q.consolidation());
  const { state, scan, start, cancel, reset } = useHistoryImport();
  const chosenPolicy = policy ?? consolidation.data?.policy ?? 'recurrence';

  const close = () => {
    reset();
    setFile(null);
    setPolicy(null);
    setRolesConfirmed(false);
    setProjectOnly(false);
  };

  return (
    <>
      {!inMenu && <PartialImportNotice />}
      <button type="button" {...item} onClick={() => input.current?.click()}>
        Import chats…
      </button>
      <input
        ref={input}
        type="file"
        hidden
        aria-label="Import chat history file"
        accept=".zip,.json,.txt,.md,.markdown,application/zip,application/json,text/plain"
        onChange={(e) => {
          const picked = e.target.files?.[0] ?? null;
          e.target.value = '';
          if (!picked) return;
          setFile(picked);
          setRolesConfirmed(false);
          void scan(picked, format);
        }}
      />
      {file && (
        <Dialog title="Import chat history" className="history-import" onClose={() => state.step !== 'importing' && close()}>
          <p>
            <strong>{file.name}</strong> ({formatBytes(file.size)})
          </p>
          <label>
            Format{' '}
            <select
              value={format}
              disabled={state.step === 'scanning' || state.step === 'importing' || state.step === 'done'}
              onChange={(e) => {
                const f = e.target.value as HistoryFormat | 'auto';
                setFormat(f);
                void scan(file, f);
              }}
            >
              {(['auto', ...HISTORY_FORMATS] as const).map((f) => (
                <option key={f} value={f}>
                  {FORMAT_LABELS[f]}
                </option>
              ))}
            </select>
          </label>
          {state.step === 'scanning' && <Progress progress={state.progress} label="Reading file" />}
          {state.step === 'scanned' && (
            <>
              <p data-testid="history-scan">
                Found {n(state.scan.conversations)} conversations with {n(state.scan.turns)} turns (about {n(state.scan.episodes)} episodes)
                {state.scan.skipped.length > 0
                  ? `; will skip ${state.scan.skipped.map((s) => `${n(s.count)} ${s.reason}`).join(', ')}`
                  : ''}
                .
              </p>
              {state.scan.transcript && (
                <TranscriptReading layout={state.scan.transcript} confirmed={rolesConfirmed} onConfirm={setRolesConfirmed} />
              )}
              {state.scan.projects.length > 0 && (
                <ImportedProjects projects={state.scan.projects} projectOnly={projectOnly} onProjectOnly={setProjectOnly} />
              )}
              <fieldset>
                <legend>Synthesis on your endpoint (estimate)</legend>
                {state.scan.estimates.map((e) => (
                  <label key={e.policy} className="policy-choice" style={{ display: 'block' }}>
                    <input
                      type="radio"
                      name="history-policy"
                      value={e.policy}
                      checked={chosenPolicy === e.policy}
                      onChange={() => setPolicy(e.policy)}
                    />{' '}
                    {POLICY_LABELS[e.policy]}:{' '}
                    <span data-testid={`estimate-${e.policy}`}>
                      {range(e.calls)} calls, ~{tokens(e)} tokens
                    </span>
                  </label>
                ))}
                <p className="muted">
                  Turns are stored, searchable and embedded whatever you choose; the policy only decides LLM synthesis (changeable later in
                  Settings).
                </p>
              </fieldset>
              <div className="buttons">
                <button
                  type="button"
                  disabled={state.scan.turns === 0 || !state.scan.format || (state.scan.transcript?.ambiguous === true && !rolesConfirmed)}
                  onClick={() =>
                    state.scan.format && void start(file, state.scan.format, chosenPolicy, projectOnly ? 'project-only' : 'shared')
                  }
                >
                  Import {n(state.scan.turns)} turns
                </button>
                <button type="button" onClick={close}>
                  Cancel
                </button>
              </div>
            </>
          )}
          {state.step === 'importing' && (
            <>
              <Progress progress={state.progress} label="Import progress" />
              <div className="buttons">
                <button type="button" onClick={cancel} disabled={state.cancelling}>
                  {state.cancelling ? 'Stopping…' : 'Stop import'}
                </button>
              </div>
            </>
          )}
          {state.step === 'done' && (
            <>
              <p role="status" data-testid="history-report" data-seconds={state.report.seconds} data-turns={state.report.turns}>
                {state.report.summary}
              </p>
              {/* Found by their words at once; the turn index with context, vectors and episodes trail. */}
              <p className="hint">
                <IndexingProgress showDone />
              </p>
              <div className="buttons">
                <button type="button" onClick={close}>
                  Close
                </button>
              </div>
            </>
          )}
          {state.step === 'failed' && (
            <>
              <p className="error" role="alert">
                {state.message} Nothing else changed.
              </p>
              <div className="buttons">
                <button type="button" onClick={close}>
                  Close
                </button>
              </div>
            </>
          )}
          {state.step === 'scanning' && (
            <div className="buttons">
              <button type="button" onClick={close}>
                Cancel
              </button>
            </div>
          )}
        </Dialog>
      )}
    </>
  );
}
