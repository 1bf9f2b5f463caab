/**
 * The empty screen as a first-run checklist: connect an endpoint (presets one click away) or go on
 * memory-only, say something, see what was remembered. Each step ticks itself off from real state
 * (settings, stored messages, remembered items), so it also tells a returning user where they are.
 */
import { useState } from 'react';
import { useEngineQuery } from '../hooks';
import { useUi } from '../uiStore';
import { ENDPOINT_PRESETS } from '../presets';

const MEMORY_ONLY = 'recollect.memoryOnly';

export function FirstRun({ onStart }: { onStart: () => void }) {
  const settings = useEngineQuery((q) => q.llmSettings());
  const stats = useEngineQuery((q) => q.stats());
  const overview = useEngineQuery((q) => q.overview());
  const openSettings = useUi((s) => s.openSettings);
  const openExplorer = useUi((s) => s.openExplorer);
  const [memoryOnly, setMemoryOnly] = useState(() => localStorage.getItem(MEMORY_ONLY) === '1');
  const onDevice = useEngineQuery((q) => q.deviceChoice());
  const connected = (settings.data?.configured ?? false) || (onDevice.data ?? null) !== null;
  const said = (stats.data?.messageCount ?? 0) > 0;
  const c = overview.data?.counts;
  const remembered = !!c && c.facts + c.profileItems + c.foresight + c.memcells > 0;

  return (
    <div className="first-run" data-testid="first-run">
      <h2>Your memory stays on this device</h2>
      <p className="muted">
        Every message is kept word for word in a private database in this browser, searchable at once. An AI endpoint, if you connect one,
        answers from that memory and writes short summaries of it.
      </p>
      <ol className="checklist">
        <li className={connected || memoryOnly ? 'done' : ''} data-testid="step-endpoint">
          <strong>{connected ? '✓ ' : ''}Connect an AI endpoint</strong>{' '}
          {connected ? (
            <span className="muted">Connected: {settings.data?.configured ? settings.data.model : 'a model on this device'}.</span>
          ) : (
            <>
              <span className="muted">Any OpenAI-compatible server, local or hosted.</span>
              <span className="buttons">
                {ENDPOINT_PRESETS.map((p) => (
                  <button key={p.id} type="button" onClick={() => openSettings(p.id)}>
                    {p.label}
                  </button>
                ))}
                <button type="button" onClick={() => openSettings()}>
                  Other…
                </button>
                {!memoryOnly && (
                  <button
                    type="button"
                    className="link-button"
                    onClick={() => {
                      localStorage.setItem(MEMORY_ONLY, '1');
                      setMemoryOnly(true);
                    }}
                  >
                    Continue memory-only
                  </button>
                )}
              </span>
              {memoryOnly && (
                <span className="muted"> Memory-only: your messages are stored and searchable; nobody answers until you connect one.</span>
              )}
            </>
          )}
        </li>
        <li className={said ? 'done' : ''} data-testid="step-say">
          <strong>{said ? '✓ ' : ''}Say something</strong>{' '}
          <button type="button" className="primary" onClick={onStart}>
            Start a conversation
          </button>
        </li>
        <li className={remembered ? 'done' : ''} data-testid="step-remembered">
          <strong>{remembered ? '✓ ' : ''}See what was remembered</strong>{' '}
          <button type="button" onClick={() => openExplorer('saved')}>
            Open memory
          </button>
        </li>
      </ol>
    </div>
  );
}
