import { afterEach, describe, expect, it, vi } from 'vitest';
import { toLlmError } from '../../src/llm/llmErrors';

const ctx = (baseUrl: string) => ({ baseUrl, model: 'm', apiKey: 'sk-secret', timedOut: false, cancelled: false, now: 0 });
const refused = () => new TypeError('Failed to fetch');

describe('an unreachable endpoint while the browser is offline', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('says the person is offline and that the message is kept, for an endpoint on the network', () => {
    vi.stubGlobal('navigator', { onLine: false });
    const err = toLlmError(refused(), ctx('https://api.example.com/v1'));
    expect(err.code).toBe('LLM_UNAVAILABLE');
    expect(err.message).toMatch(/^You are offline, so https:\/\/api\.example\.com\/v1 could not be reached\. Your message is kept/);
  });

  it('keeps the usual message for an endpoint on this machine (it answers offline) and when online', () => {
    vi.stubGlobal('navigator', { onLine: false });
    expect(toLlmError(refused(), ctx('http://127.0.0.1:11434/v1')).message).toMatch(/^Could not reach http:\/\/127\.0\.0\.1:11434\/v1/);
    expect(toLlmError(refused(), ctx('http://localhost:8080/v1')).message).toMatch(/^Could not reach/);
    vi.stubGlobal('navigator', { onLine: true });
    expect(toLlmError(refused(), ctx('https://api.example.com/v1')).message).toMatch(/^Could not reach/);
  });
});
