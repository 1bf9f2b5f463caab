/**
 * Settings → Models → Compute: where the embedder runs (automatic, WebGPU, WASM), which device
 * actually runs it, and why not the preferred one when WebGPU could not get a device.
 */
import { useModelStatus, useSetDevicePreference } from '../hooks';
import { DEVICE_CHOICES } from '../devicePreference';
import type { DevicePreference } from '../../core/protocol';

export function backendLabel(device: string | null | undefined): string {
  if (!device) return 'not loaded yet';
  return ({ webgpu: 'WebGPU', wasm: 'WASM', cpu: 'CPU' } as Record<string, string>)[device] ?? device;
}

export function vectorIndexLabel(kind: string): string {
  if (kind === 'wasm-simd-int8') return 'WASM SIMD, int8';
  if (kind === 'js-float32') return 'JavaScript, float32 (WASM SIMD unavailable)';
  return kind;
}

export function ComputeBackend() {
  const status = useModelStatus(1_000);
  const setDevice = useSetDevicePreference();
  const s = status.data;
  return (
    <section aria-label="Compute" data-testid="compute-backend">
      <h3>Compute</h3>
      <label>
        Run the embedder on{' '}
        <select
          value={s?.devicePreference ?? 'auto'}
          disabled={!s || setDevice.isPending}
          onChange={(e) => setDevice.mutate(e.target.value as DevicePreference)}
        >
          {DEVICE_CHOICES.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      </label>
      <p>
        <span data-testid="embedder-model">{s?.embedder.modelId ?? 'No embedder'}</span>
        {s?.embedder.dim ? (
          <>
            {' '}
            (<span data-testid="embedder-dim">{s.embedder.dim}</span> dimensions)
          </>
        ) : null}{' '}
        runs on <strong data-testid="embedder-device">{setDevice.isPending ? 'switching…' : backendLabel(s?.embedder.device)}</strong>
        {s?.reranker.modelId && s.reranker.state !== 'error' ? (
          <>
            ; reranker <span data-testid="reranker-model">{s.reranker.modelId}</span> on {backendLabel(s.reranker.device)}
          </>
        ) : null}
      </p>
      {s?.embedder.notice && !setDevice.isPending && (
        <p className="notice" role="status" data-testid="device-notice">
          {s.embedder.notice}
        </p>
      )}
    </section>
  );
}
