import { describe, expect, it } from 'vitest';
import { swappableRemote } from '../../src/core/base/swappableRemote';

interface Api {
  name(): Promise<string>;
  wait(): Promise<string>;
}

const never = () => new Promise<string>(() => undefined);

describe('swappableRemote', () => {
  it('forwards calls to the current target; calls waiting on a replaced one fail instead of hanging', async () => {
    const old: Api = { name: async () => 'old', wait: never };
    const next: Api = { name: async () => 'new', wait: async () => 'answered' };
    const s = swappableRemote<Api>(old, () => new Error('replaced'));
    expect(await s.remote.name()).toBe('old');
    const waiting = s.remote.wait(); // a terminated worker never answers
    s.swap(next);
    await expect(waiting).rejects.toThrow('replaced');
    expect(await s.remote.name()).toBe('new');
    expect(await s.remote.wait()).toBe('answered'); // new calls are not failed by the swap
    // A second swap fails only what waits on the second target.
    const stuck: Api = { name: async () => 'third', wait: never };
    const onNext = s.remote.wait();
    s.swap(stuck);
    expect(await onNext).toBe('answered');
    expect(await s.remote.name()).toBe('third');
  });
});
