/**
 * "Show formatted" off the page's thread (formatOffThread.ts) with a stand-in for the worker: the
 * deadline ends a parse that does not answer, the worker is always stopped, and a tree too large
 * to draw is refused. The stand-in runs the real markdownTree, as the worker does.
 */
import { describe, expect, it } from 'vitest';
import { formatOffThread, type MarkdownWorkerHandle } from '../../src/app/markdown/formatOffThread';
import { markdownTree } from '../../src/app/markdown/markdownTree';
import { NESTED_QUOTES, PLAIN_100K } from '../support/markdownFixtures';

function fakeWorker(format: MarkdownWorkerHandle['api']['format']) {
  const log = { started: 0, stopped: 0 };
  const start = (): MarkdownWorkerHandle => {
    log.started++;
    return { api: { format }, stop: () => void log.stopped++ };
  };
  return { start, log };
}

describe('formatOffThread', () => {
  it('a parse that does not finish by the deadline leaves the message plain and stops the worker', async () => {
    const { start, log } = fakeWorker(() => new Promise(() => undefined));
    const outcome = await formatOffThread('*a'.repeat(40_000), { citations: false, deadlineMs: 50, start });
    expect(outcome).toEqual({ ok: false, reason: 'deadline', message: 'it could not be formatted within 0.1 seconds' });
    expect(log).toEqual({ started: 1, stopped: 1 });
  });

  it('returns the bounded tree the worker built, and stops the worker', async () => {
    const { start, log } = fakeWorker(async (text, options) => markdownTree(text, options));
    const quotes = await formatOffThread(NESTED_QUOTES, { citations: true, start });
    expect(quotes.ok && quotes.tree.flattened).toBe(true);
    const plain = await formatOffThread(PLAIN_100K, { citations: true, start });
    expect(plain.ok && plain.tree.nodes).toBeGreaterThan(1);
    expect(log).toEqual({ started: 2, stopped: 2 });
  });

  it('refuses a tree too large to draw at once', async () => {
    const { start } = fakeWorker(async (text) => markdownTree(text));
    const outcome = await formatOffThread('- item\n'.repeat(200), { citations: false, maxNodes: 100, start });
    expect(outcome).toMatchObject({ ok: false, reason: 'too-large' });
  });

  it('a failing parse or worker says why and stops the worker', async () => {
    const { start, log } = fakeWorker(() => Promise.reject(new RangeError('Maximum call stack size exceeded')));
    expect(await formatOffThread('x', { citations: false, start })).toEqual({
      ok: false,
      reason: 'failed',
      message: 'it could not be formatted (Maximum call stack size exceeded)',
    });
    expect(log.stopped).toBe(1);
    const broken = await formatOffThread('x', {
      citations: false,
      start: () => {
        throw new Error('workers are not available');
      },
    });
    expect(broken).toMatchObject({ ok: false, reason: 'failed', message: 'it could not be formatted (workers are not available)' });
  });
});
