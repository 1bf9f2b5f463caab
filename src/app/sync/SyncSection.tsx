/**
 * Settings → Sync (docs/sync.md): off by default. Off, it offers to sync this memory (a new recovery
 * phrase, shown once) or to join one with a phrase — typed, scanned from the other device's QR code or
 * read from a picture of it (ScanPhrase.tsx); on, it shows the status, Sync now, "also sync the
 * endpoint key", "Remove my data from the relay…" and Leave. The engine does the work
 * (engine.sync); this renders its status and sends what the person chose.
 */
import { useId, useState } from 'react';
import { useEngineMutation, useEngineQuery } from '../hooks';
import { queryKeys } from '../queries';
import { ConfirmButton } from '../components/ConfirmButton';
import { RecoveryPhrase } from './RecoveryPhrase';
import { ScanPhrase } from './ScanPhrase';
import { SyncFingerprint } from './SyncFingerprint';
import { syncStatusText } from './syncStatusText';
import type { SyncStatus } from '../../core/protocol/sync';

const RELAY_PLACEHOLDER = 'http://127.0.0.1:4437';

export function SyncSection() {
  const status = useEngineQuery((q) => q.syncStatus());
  const [phrase, setPhrase] = useState<string | null>(null);
  const s = status.data;
  return (
    <section aria-label="Sync" data-testid="sync-section">
      <h3>Sync</h3>
      {!s ? (
        <p className="muted">Reading sync…</p>
      ) : s.state === 'off' ? (
        <SyncOff status={s} onPhrase={setPhrase} />
      ) : (
        <SyncOn status={s} onPhrase={setPhrase} />
      )}
      {phrase && <RecoveryPhrase phrase={phrase} onDone={() => setPhrase(null)} />}
    </section>
  );
}

function SyncOff({ status, onPhrase }: { status: SyncStatus; onPhrase: (phrase: string) => void }) {
  const relayId = useId();
  const joinId = useId();
  const [relay, setRelay] = useState('');
  const [joinPhrase, setJoinPhrase] = useState('');
  const [error, setError] = useState<string | null>(null);
  const opts = { invalidate: [queryKeys.syncStatus], report: false } as const;
  const enable = useEngineMutation((c, relayUrl: string) => c.engine.sync.enable({ relayUrl }), {
    ...opts,
    onSuccess: (r) => onPhrase(r.phrase),
  });
  const join = useEngineMutation((c, r: { phrase: string; relayUrl: string }) => c.engine.sync.join(r), opts);
  const busy = enable.isPending || join.isPending;
  const fail = (e: unknown) => setError(e instanceof Error ? e.message : String(e));
  return (
    <>
      <p className="muted">
        Off. Sync keeps this memory the same on your other devices through a relay, end-to-end encrypted: the relay stores only ciphertext
        it cannot read.
      </p>
      {status.message && <p role="status">{status.message}</p>}
      <label htmlFor={relayId}>Relay address</label>
      <input
        id={relayId}
        type="url"
        value={relay}
        placeholder={RELAY_PLACEHOLDER}
        onChange={(e) => setRelay(e.target.value)}
        autoComplete="off"
      />
      <div className="row">
        <button type="button" disabled={busy} onClick={() => (setError(null), enable.mutateAsync(relay).catch(fail))}>
          {enable.isPending ? 'Turning sync on…' : 'Sync this memory'}
        </button>
      </div>
      <label htmlFor={joinId}>Or join a memory synced on another device: its recovery phrase</label>
      <textarea
        id={joinId}
        rows={2}
        value={joinPhrase}
        spellCheck={false}
        autoComplete="off"
        placeholder="twelve words, as shown on the other device"
        onChange={(e) => setJoinPhrase(e.target.value)}
      />
      <ScanPhrase disabled={busy} onPhrase={setJoinPhrase} />
      <div className="row">
        <button
          type="button"
          disabled={busy || !joinPhrase.trim()}
          onClick={() => (setError(null), join.mutateAsync({ phrase: joinPhrase, relayUrl: relay }).then(() => setJoinPhrase(''), fail))}
        >
          {join.isPending ? 'Joining…' : 'Join with a phrase'}
        </button>
      </div>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </>
  );
}

function SyncOn({ status, onPhrase }: { status: SyncStatus; onPhrase: (phrase: string) => void }) {
  const opts = { invalidate: [queryKeys.syncStatus] } as const;
  const syncNow = useEngineMutation((c, _: void) => c.engine.sync.syncNow(), opts);
  const share = useEngineMutation((c, on: boolean) => c.engine.sync.shareEndpoint(on), opts);
  const leave = useEngineMutation((c, _: void) => c.engine.sync.leave(), opts);
  const remove = useEngineMutation((c, _: void) => c.engine.sync.removeFromRelay(), { ...opts, onSuccess: (r) => onPhrase(r.phrase) });
  return (
    <>
      <p data-testid="sync-state">
        Sync is on with <code>{status.relayUrl}</code>: {syncStatusText(status)}.
      </p>
      {status.message && <p role="status">{status.message}</p>}
      {status.clockSkewMs !== null && (
        <p className="muted">
          Another device&rsquo;s clock is {Math.round(status.clockSkewMs / 60_000)} minutes ahead of this one; changes still apply in one
          order on every device, but &ldquo;later&rdquo; follows the clocks.
        </p>
      )}
      <SyncFingerprint status={status} />
      <div className="row">
        <button type="button" disabled={syncNow.isPending} onClick={() => syncNow.mutate()}>
          {syncNow.isPending ? 'Syncing…' : 'Sync now'}
        </button>
      </div>
      <label className="radio">
        <input
          type="checkbox"
          checked={status.sharesEndpoint}
          disabled={share.isPending}
          onChange={(e) => share.mutate(e.target.checked)}
        />
        Also sync the endpoint key (address, model and API key, encrypted like everything else)
      </label>
      <div className="row">
        <ConfirmButton
          title="Remove my data from the relay"
          confirmLabel="Remove and make a new phrase"
          busyLabel="Removing…"
          message={
            <>
              A new recovery phrase is made and shown once; everything on this device is sent again under it, and the old copy is deleted
              from the relay. Your other devices stop syncing until they join again with the new phrase. Until the deletion is done (the
              next time the relay can be reached) — and in any backup the relay&rsquo;s operator keeps — the old encrypted copy may still
              exist; it opens only with the old phrase.
            </>
          }
          onConfirm={() => remove.mutateAsync()}
        >
          Remove my data from the relay…
        </ConfirmButton>
        <ConfirmButton
          title="Leave sync"
          confirmLabel="Leave sync"
          busyLabel="Leaving…"
          message="This device stops syncing and forgets the phrase. The memory on this device stays as it is, and so do the other devices' memories and the relay's copy."
          onConfirm={() => leave.mutateAsync()}
        >
          Leave sync…
        </ConfirmButton>
      </div>
    </>
  );
}
