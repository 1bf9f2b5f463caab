import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countWords, startMockLlmServer, type MockLlmServer } from './mockLlmServer';

let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlmServer();
});
afterAll(async () => {
  await mock.close();
});

const post = (body: unknown) =>
  fetch(`${mock.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('mock LLM server', () => {
  it('answers CORS preflights, allowing the SDK headers', async () => {
    const res = await fetch(`${mock.url}/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://localhost:4173',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type, x-stainless-os',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toMatch(/authorization.*content-type.*x-stainless-os/);
  });

  it('streams SSE without a usage chunk unless asked for', async () => {
    const text = await (await post({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] })).text();
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
    expect(text).not.toContain('"usage"');
  });

  it('honours max_tokens as a word limit and counts words as tokens', async () => {
    const res = (await (await post({ model: 'm', max_tokens: 2, messages: [{ role: 'user', content: 'one two three four' }] })).json()) as {
      choices: { message: { content: string }; finish_reason: string }[];
      usage: { prompt_tokens: number; completion_tokens: number };
    };
    expect(res.choices[0]?.finish_reason).toBe('length');
    expect(countWords(res.choices[0]?.message.content ?? '')).toBe(2);
    expect(res.usage).toMatchObject({ prompt_tokens: 4, completion_tokens: 2 });
  });

  it('answers JSON when JSON is asked for', async () => {
    const res = (await (
      await post({ model: 'm', response_format: { type: 'json_object' }, messages: [{ role: 'user', content: 'facts please' }] })
    ).json()) as {
      choices: { message: { content: string } }[];
    };
    expect(JSON.parse(res.choices[0]?.message.content ?? '')).toMatchObject({ echo: 'facts please' });
  });
});
