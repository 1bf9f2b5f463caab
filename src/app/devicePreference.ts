/**
 * Where this browser asks the embedder to run (Settings → Models → Compute). A property of the
 * device, not of the memory, so it is kept in localStorage rather than in the database, and
 * re-applied to the model worker when the page starts.
 */
import type { DevicePreference } from '../core/protocol';

export const DEVICE_CHOICES: readonly { readonly value: DevicePreference; readonly label: string }[] = [
  { value: 'auto', label: 'Automatic' },
  { value: 'webgpu', label: 'WebGPU (graphics card)' },
  { value: 'wasm', label: 'WASM (processor)' },
];

const KEY = 'recollect.embedder-device';

export function readDevicePreference(): DevicePreference {
  try {
    const saved = localStorage.getItem(KEY);
    return DEVICE_CHOICES.find((c) => c.value === saved)?.value ?? 'auto';
  } catch {
    return 'auto'; // storage disabled: the platform's choice
  }
}

export function saveDevicePreference(preference: DevicePreference): void {
  try {
    localStorage.setItem(KEY, preference);
  } catch {
    // Not kept across reloads; the choice still applies to this page.
  }
}
