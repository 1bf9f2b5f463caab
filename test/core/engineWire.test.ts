/**
 * The grouped engine API over a real Comlink channel, as the page and the engine worker use it:
 * the worker exposes each group resultified (resultifyEngine), the page unwraps every group
 * (unwrapEngine), and `engine.<group>.<method>(…)` reaches the engine and comes back as a value, or
 * as a RecollectError with its code.
 */
import * as Comlink from 'comlink';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/host/createEngine';
import { openNodeStore } from '../../src/storage/openNodeDatabase';
import { ENGINE_GROUPS, resultifyEngine, unwrapEngine, type RemoteEngine } from '../../src/core/protocol';
import { RecollectError } from '../../src/core/base/errors';

const channels: MessageChannel[] = [];
afterEach(() => {
  for (const c of channels.splice(0)) {
    c.port1.close();
    c.port2.close();
  }
});

async function overTheWire() {
  const store = await openNodeStore();
  const engine = createEngine(store, { llm: null });
  await engine.start();
  const channel = new MessageChannel();
  channels.push(channel);
  Comlink.expose({ engine: resultifyEngine(engine) }, channel.port1 as unknown as Comlink.Endpoint);
  const remote = Comlink.wrap<{ engine: RemoteEngine }>(channel.port2 as unknown as Comlink.Endpoint);
  return { engine, page: unwrapEngine(remote.engine) };
}

describe('the grouped engine API over Comlink', () => {
  it('every group of the engine is exposed, and calls in different groups reach the same memory', async () => {
    const { engine, page } = await overTheWire();
    for (const g of ENGINE_GROUPS) expect(typeof engine[g], g).toBe('object');
    await page.conversations.create({ id: 'c', title: 'Lisbon' });
    await page.conversations.send({ id: 'u1', conversationId: 'c', content: 'The ferry to Cacilhas leaves every twenty minutes.' });
    expect((await page.conversations.list()).map((c) => c.id)).toEqual(['c']);
    expect((await page.conversations.messages('c')).map((m) => m.content)).toEqual(['The ferry to Cacilhas leaves every twenty minutes.']);
    expect((await page.data.stats()).messageCount).toBe(1);
    expect((await page.conversations.search('ferry')).map((h) => h.message.id)).toEqual(['u1']);
    const saved = await page.profile.addMemory('I get seasick on small boats.');
    expect((await engine.profile.list()).map((p) => p.id)).toContain(saved.id);
  });

  it('a refusal comes back as a RecollectError with its code', async () => {
    const { page } = await overTheWire();
    const failed = await page.profile.addMemory('   ').catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(RecollectError);
    expect((failed as RecollectError).code).toBe('INVALID_INPUT');
  });
});
