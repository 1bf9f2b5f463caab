/**
 * Secrets out of text that leaves Recollect: the endpoint's API key and anything shaped like a
 * bearer token or a provider key. One rule for every place text leaves — LLM error messages
 * (src/llm/llmErrors.ts) and exported memory (memoryExport.ts) — so they cannot drift apart.
 */

export const SECRET_MARK = '[redacted]';

const KEY_LIKE = /\b(?:sk|pk|rk|key)-[A-Za-z0-9_*.-]{6,}/g;
const BEARER = /Bearer\s+[^\s"',]+/gi;

/** `text` without `apiKey` (when given) and without bearer tokens or provider-key-shaped words. */
export function redactSecrets(text: string, apiKey?: string | null): string {
  let out = text;
  if (apiKey) out = out.split(apiKey).join(SECRET_MARK);
  return out.replace(BEARER, `Bearer ${SECRET_MARK}`).replace(KEY_LIKE, SECRET_MARK);
}
