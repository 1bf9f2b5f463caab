import { startOfDay } from '../../core/base/timeZone';
import { useEffect, useState } from 'react';
import { useEngineMutation, useEngineQuery } from '../hooks';
import { queryKeys } from '../queries';
import { ENDPOINT_PRESETS, presetFor } from '../presets';
import { StorageInfo } from './StorageInfo';
import { DeviceModelSection } from './DeviceModelSection';
import { SyncSection } from '../sync/SyncSection';
import { MemoryDefaultsSection } from './MemorySwitches';
import { Dialog } from './Dialog';
import { useUi } from '../uiStore';
import type { PolicyName } from '../../core/episodes/consolidationPolicy';
import type { LlmSettingsInput } from '../../core/base/settings';
import type { LlmConnectionTest } from '../../core/base/ports';
import { ANSWER_BUDGET } from '../../core/base/settings';
import { formatCount } from '../../core/base/numbers';

const POLICIES: { id: PolicyName; label: string; note: string }[] = [
  {
    id: 'recurrence',
    label: 'When a topic recurs (default)',
    note: 'Episodes are synthesised when their theme comes back, or at once when they hold something important. Fewest tokens for a useful memory.',
  },
  { id: 'eager', label: 'Every episode', note: 'Every finished episode is synthesised right away. Best organised, most tokens.' },
  { id: 'off', label: 'Never (verbatim only)', note: 'No synthesis tokens are spent; turns stay fully searchable.' },
];

const browserZone = new Intl.DateTimeFormat().resolvedOptions().timeZone;
/** Every zone the browser knows (Intl.supportedValuesOf), or just the browser's own. */
const ZONES: readonly string[] = (() => {
  const intl = Intl as unknown as { supportedValuesOf?: (key: 'timeZone') => string[] };
  return intl.supportedValuesOf?.('timeZone') ?? [browserZone];
})();

/** When today began in the time zone Recollect uses (the setting, not the page's own zone). */
function dayStart(zone: string): number {
  return startOfDay(zone, Date.now());
}

/** Settings: the LLM endpoint (with presets and CORS notes), consolidation policy and spend. */
export function SettingsPanel({ onClose, onOpenModels }: { onClose: () => void; onOpenModels: () => void }) {
  const saved = useEngineQuery((q) => q.llmSettings());
  const save = useEngineMutation((c, input: LlmSettingsInput) => c.engine.settings.saveLlm(input), {
    report: false,
    invalidate: [queryKeys.consolidation],
    onSuccess: (view, qc) => qc.setQueryData(queryKeys.llmSettings, view),
  });
  const test = useEngineMutation((c, input: LlmSettingsInput) => c.engine.settings.testLlm(input), { report: false });
  const list = useEngineMutation((c, input: LlmSettingsInput) => c.engine.settings.llmModels(input), { report: false });
  const status = useEngineQuery((q) => q.consolidation());
  const setPolicy = useEngineMutation((c, name: PolicyName) => c.engine.synthesis.setPolicy(name), {
    invalidate: [queryKeys.consolidation],
  });
  const setBoundaryCheck = useEngineMutation((c, on: boolean) => c.engine.synthesis.setBoundaryCheck(on), {
    invalidate: [queryKeys.consolidation],
  });
  const timeZone = useEngineQuery((q) => q.timeZone());
  const setTimeZone = useEngineMutation((c, zone: string | null) => c.engine.settings.setTimeZone(zone), {
    invalidate: [queryKeys.timeZone],
  });
  const answerSettings = useEngineQuery((q) => q.answerSettings());
  const setAnswerSettings = useEngineMutation(
    (c, s: { budgetTokens?: number; sufficiencyCheck?: boolean }) => c.engine.settings.setAnswerSettings(s),
    {
      onSuccess: (v, qc) => qc.setQueryData(queryKeys.answerSettings, v),
    },
  );
  const usageToday = useEngineQuery((q) => q.llmUsage(dayStart(timeZone.data?.timeZone ?? browserZone)));
  const usageAll = useEngineQuery((q) => q.llmUsage(0));
  const [baseUrl, setBaseUrl] = useState('');
  const [model, setModel] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [clearKey, setClearKey] = useState(false);
  const [result, setResult] = useState<LlmConnectionTest | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [models, setModels] = useState<string[]>([]);

  const presetId = useUi((s) => s.settingsPreset);
  useEffect(() => {
    const chosen = ENDPOINT_PRESETS.find((p) => p.id === presetId);
    if (chosen) {
      setBaseUrl(chosen.baseUrl);
      setModel(chosen.exampleModel);
    } else if (saved.data) {
      setBaseUrl(saved.data.baseUrl);
      setModel(saved.data.model);
    }
  }, [saved.data, presetId]);

  const input = () => ({ baseUrl, model, ...(apiKey ? { apiKey } : clearKey ? { apiKey: null } : {}) });
  const preset = presetFor(baseUrl);
  const run = async (what: 'save' | 'test' | 'list') => {
    setError(null);
    try {
      if (what === 'save') {
        if (save.isPending) return;
        await save.mutateAsync(input());
        setApiKey('');
        setClearKey(false);
      } else if (what === 'test') setResult(await test.mutateAsync(input()));
      else {
        const found = await list.mutateAsync(input());
        setModels(found);
        if (found.length === 0) setError('This server does not list its models; type the model name.');
      }
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  const stages = Object.entries(usageAll.data ?? {});

  return (
    <Dialog title="Settings" onClose={onClose} wide>
      <section aria-label="LLM endpoint">
        <h3>LLM endpoint</h3>
        <p className="muted">
          Any OpenAI-compatible server. It is called only to write episodes, facts and summaries and to answer; everything else stays on
          this device. The key is kept in this browser, outside your memory file, and never exported.
        </p>
        <div className="presets" role="group" aria-label="Presets">
          {ENDPOINT_PRESETS.map((p) => (
            <button
              key={p.id}
              type="button"
              className={preset?.id === p.id ? 'active' : ''}
              onClick={() => {
                setBaseUrl(p.baseUrl);
                if (!model) setModel(p.exampleModel);
                setResult(null);
              }}
            >
              {p.label}
            </button>
          ))}
        </div>
        {preset && (
          <p className="note" data-testid="preset-note">
            {preset.note}
          </p>
        )}
        <form
          className="form-grid"
          onSubmit={(e) => {
            e.preventDefault();
            void run('save');
          }}
        >
          <label htmlFor="llm-base-url">Base URL</label>
          <input
            id="llm-base-url"
            data-autofocus
            value={baseUrl}
            onChange={(e) => setBaseUrl(e.target.value)}
            placeholder="http://localhost:11434/v1"
            spellCheck={false}
          />
          <label htmlFor="llm-key">API key</label>
          <div className="row">
            <input
              id="llm-key"
              type="password"
              value={apiKey}
              onChange={(e) => {
                setApiKey(e.target.value);
                setClearKey(false);
              }}
              autoComplete="off"
              placeholder={
                saved.data?.hasKey && !clearKey
                  ? 'A key is saved (leave empty to keep it)'
                  : preset && !preset.needsKey
                    ? 'Not needed for this server'
                    : 'sk-…'
              }
            />
            {saved.data?.hasKey && !clearKey && (
              <button
                type="button"
                onClick={() => {
                  setClearKey(true);
                  setApiKey('');
                }}
              >
                Remove key
              </button>
            )}
          </div>
          <label htmlFor="llm-model">Model</label>
          <div className="row">
            <input
              id="llm-model"
              value={model}
              onChange={(e) => setModel(e.target.value)}
              list="llm-models"
              placeholder={preset?.exampleModel ?? 'model name'}
              spellCheck={false}
            />
            <datalist id="llm-models">
              {models.map((m) => (
                <option key={m} value={m} />
              ))}
            </datalist>
            <button type="button" onClick={() => void run('list')} disabled={!baseUrl || list.isPending}>
              {list.isPending ? 'Loading…' : 'List models'}
            </button>
          </div>
          {models.length > 0 && (
            <div className="found-models" role="group" aria-label="Models on this server" data-testid="found-models">
              {models.slice(0, 30).map((m) => (
                <button
                  key={m}
                  type="button"
                  className={m === model ? 'active' : ''}
                  aria-pressed={m === model}
                  onClick={() => setModel(m)}
                >
                  {m}
                </button>
              ))}
              {/* 30 buttons are a quick pick; every model is in the field's suggestions (the datalist above). */}
              {models.length > 30 && (
                <p className="muted" data-testid="more-models">
                  {models.length - 30} more: type in the Model field to see them all.
                </p>
              )}
            </div>
          )}
          <div className="buttons">
            <button type="button" onClick={() => void run('test')} disabled={!baseUrl || test.isPending}>
              {test.isPending ? 'Testing…' : 'Test connection'}
            </button>
            {/* aria-disabled, not disabled: a disabled button drops focus to <body>, out of the dialog. */}
            <button type="submit" className="primary" aria-disabled={save.isPending}>
              Save
            </button>
          </div>
        </form>
        {result && (
          <p className={result.status === 'ok' ? 'ok' : 'error'} role="status" data-testid="connection-result">
            {result.status === 'ok' ? '✓ ' : '✗ '}
            {result.message}
            {result.status === 'network' &&
              " If this is a local server, check that it is running and allows this page's origin (CORS, see the note above)."}
          </p>
        )}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <p className="muted" data-testid="endpoint-state">
          {saved.data?.configured
            ? `In use: ${saved.data.model} at ${saved.data.baseUrl}${saved.data.hasKey ? ' (with key)' : ''}.`
            : 'No endpoint configured: turns are still stored, organised and searchable; synthesis and answers wait for one.'}
        </p>
      </section>

      <DeviceModelSection />

      <section aria-label="Answers">
        <h3>Answers</h3>
        <div className="form-grid">
          <label htmlFor="answer-budget">Memory budget</label>
          <div className="row">
            <select
              id="answer-budget"
              value={answerSettings.data?.budgetTokens ?? ANSWER_BUDGET.default}
              onChange={(e) => setAnswerSettings.mutate({ budgetTokens: Number(e.target.value) })}
            >
              {[...new Set([answerSettings.data?.budgetTokens ?? ANSWER_BUDGET.default, 1000, ANSWER_BUDGET.default, 4000, 8000, 16000])]
                .sort((a, b) => a - b)
                .map((n) => (
                  <option key={n} value={n}>
                    {formatCount(n)} tokens{n === (answerSettings.data?.defaultBudgetTokens ?? ANSWER_BUDGET.default) ? ' (default)' : ''}
                  </option>
                ))}
            </select>
            <span className="muted" data-testid="budget-note">
              How much remembered context goes with each question. Larger budgets recall more and cost more.
              {(answerSettings.data?.defaultBudgetTokens ?? ANSWER_BUDGET.default) < ANSWER_BUDGET.default &&
                ` With the small model on this device the default is ${formatCount(answerSettings.data!.defaultBudgetTokens)} tokens: its context window is small, and small models answer better from fewer memories.`}
            </span>
          </div>
        </div>
        <label className="radio">
          <input
            type="checkbox"
            checked={answerSettings.data?.sufficiencyCheck ?? false}
            onChange={(e) => setAnswerSettings.mutate({ sufficiencyCheck: e.target.checked })}
          />
          <span>
            <strong>Check whether memory suffices</strong>{' '}
            <span className="muted">
              Before answering, the model judges the recalled context and may ask for 2–3 more searches (one extra round at most). Better
              for hard questions; one more call per answer. Off by default — small local models often judge poorly.
            </span>
          </span>
        </label>
      </section>

      <MemoryDefaultsSection />

      <section aria-label="Memory consolidation">
        <h3>Memory consolidation</h3>
        {POLICIES.map((p) => (
          <label key={p.id} className="radio">
            <input type="radio" name="policy" checked={status.data?.policy === p.id} onChange={() => setPolicy.mutate(p.id)} />
            <span>
              <strong>{p.label}</strong> <span className="muted">{p.note}</span>
            </span>
          </label>
        ))}
        <label className="radio">
          <input
            type="checkbox"
            checked={status.data?.llmBoundaryCheck ?? false}
            onChange={(e) => setBoundaryCheck.mutate(e.target.checked)}
          />
          <span>
            <strong>Ask the LLM where episodes start</strong>{' '}
            <span className="muted">
              One small call per turn; without it, episodes are cut by day, time gaps, topic drift and size, which costs nothing.
            </span>
          </span>
        </label>
        {status.data && (
          <p className="muted" data-testid="queue-state">
            Queue: {status.data.jobs.pending} waiting, {status.data.jobs.running} running, {status.data.jobs.done} done,{' '}
            {status.data.jobs.failed} failed
            {status.data.jobs.cancelled > 0 ? `, ${status.data.jobs.cancelled} set aside while consolidation is off` : ''}
            {status.data.jobs.scheduled > 0 ? `, ${status.data.jobs.scheduled} scheduled for later` : ''}.
            {status.data.pausedReason ? ` Paused: ${status.data.pausedReason}` : ''}
          </p>
        )}
      </section>

      <section aria-label="Time zone">
        <h3>Time zone</h3>
        <div className="form-grid">
          <label htmlFor="time-zone">Your time zone</label>
          <div className="row">
            <select
              id="time-zone"
              value={timeZone.data?.source === 'user' ? timeZone.data.timeZone : ''}
              onChange={(e) => setTimeZone.mutate(e.target.value || null)}
            >
              <option value="">Browser's ({browserZone})</option>
              {ZONES.map((z) => (
                <option key={z} value={z}>
                  {z}
                </option>
              ))}
            </select>
            <span className="muted">
              Episodes close at your midnight, dates like "tomorrow" or "next Friday" resolve on your calendar, and answers see your local
              date.
            </span>
          </div>
        </div>
      </section>

      <section aria-label="Spend">
        <h3>Tokens spent</h3>
        {stages.length === 0 ? (
          <p className="muted">No LLM calls yet.</p>
        ) : (
          <table className="usage">
            <thead>
              <tr>
                <th>stage</th>
                <th>calls</th>
                <th>prompt</th>
                <th>completion</th>
                <th>today</th>
              </tr>
            </thead>
            <tbody>
              {stages.map(([stage, u]) => (
                <tr key={stage}>
                  <td>{stage}</td>
                  <td>{u.calls}</td>
                  <td>{formatCount(u.promptTokens)}</td>
                  <td>{formatCount(u.completionTokens)}</td>
                  <td>{formatCount((usageToday.data?.[stage]?.promptTokens ?? 0) + (usageToday.data?.[stage]?.completionTokens ?? 0))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <SyncSection />

      <StorageInfo />

      <section aria-label="Local models">
        <h3>Local models</h3>
        <p className="muted">Embedding and reranking models run on this device.</p>
        <button type="button" onClick={onOpenModels}>
          Manage models…
        </button>
      </section>
    </Dialog>
  );
}
