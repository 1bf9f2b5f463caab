/**
 * Which model on this device answers instead of the endpoint (Settings → "This device"). A property
 * of this browser (the model is in its cache), not of the memory, so it is kept in localStorage
 * and re-applied when the page (or a restarted engine) starts.
 */
export type DeviceChoice =
  | { readonly provider: 'transformers'; readonly modelId: string; readonly label: string }
  /** `contextTokens`: the window the browser reported for its model when it was chosen (prompts are sized for it). */
  | { readonly provider: 'prompt-api'; readonly contextTokens?: number }
  | null;

const KEY = 'recollect.device-llm';

export function readDeviceChoice(): DeviceChoice {
  try {
    const raw = localStorage.getItem(KEY);
    if (!raw) return null;
    const v = JSON.parse(raw) as { provider?: unknown; modelId?: unknown; label?: unknown; contextTokens?: unknown };
    if (v.provider === 'prompt-api') {
      const window = v.contextTokens;
      return typeof window === 'number' && Number.isInteger(window) && window > 0
        ? { provider: 'prompt-api', contextTokens: window }
        : { provider: 'prompt-api' };
    }
    if (v.provider === 'transformers' && typeof v.modelId === 'string') {
      return { provider: 'transformers', modelId: v.modelId, label: typeof v.label === 'string' ? v.label : v.modelId };
    }
    return null;
  } catch {
    return null; // storage disabled or a broken value: the endpoint answers
  }
}

export function saveDeviceChoice(choice: DeviceChoice): void {
  try {
    if (choice) localStorage.setItem(KEY, JSON.stringify(choice));
    else localStorage.removeItem(KEY);
  } catch {
    // Not kept across reloads; the choice still applies to this page.
  }
}
