/**
 * Type-level checks over the worker wire types (src/core/protocol.ts, and the benchmark worker's in
 * bench/host/benchProtocol.ts): what crosses a worker
 * boundary must survive structured cloning, and the resultified engine must mirror EngineApi.
 * These assertions are checked by `npm run typecheck` (tsc over test/); the runtime half only
 * keeps vitest from reporting an empty file. A method returning a class with methods, a function
 * or a Map would fail the compile, not this test's run.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { EngineApi, EngineEvent, ModelWorkerApi, RemoteEngine, Result } from '../../src/core/protocol';
import type { BenchWorkerApi, ScaleWorkerApi } from '../../bench/host/benchProtocol';
import type { ERROR_CODES } from '../../src/core/base/errors';
import { errorCode, RecollectError, type ErrorInfo } from '../../src/core/base/errors';

/** True when T, anywhere inside, holds something structured cloning would drop or refuse. */
type Unclonable<T> = T extends (...args: never[]) => unknown
  ? true
  : T extends Map<unknown, unknown> | Set<unknown> | WeakMap<object, unknown> | Promise<unknown>
    ? true
    : T extends Date | RegExp | ArrayBuffer | ArrayBufferView | Blob
      ? false
      : T extends readonly (infer E)[]
        ? Unclonable<E>
        : T extends object
          ? true extends { [K in keyof T]-?: Unclonable<T[K]> }[keyof T] ? true : false
          : false;

/** The methods of an API whose resolved results cannot cross a worker boundary (never when all can). */
type UnclonableResults<Api> = {
  [K in keyof Api]-?: Api[K] extends (...a: never[]) => infer R ? (Unclonable<Awaited<R>> extends true ? K : never) : never;
}[keyof Api];

describe('worker wire types', () => {
  it('every engine, model-worker and benchmark result survives structured cloning', () => {
    expectTypeOf<UnclonableResults<EngineApi>>().toEqualTypeOf<never>();
    expectTypeOf<UnclonableResults<ModelWorkerApi>>().toEqualTypeOf<never>();
    expectTypeOf<UnclonableResults<BenchWorkerApi>>().toEqualTypeOf<never>();
    expectTypeOf<UnclonableResults<ScaleWorkerApi>>().toEqualTypeOf<never>();
    expectTypeOf<Unclonable<EngineEvent>>().toEqualTypeOf<false>();
    // The check itself can fail: a function, a Map or a nested method is caught.
    expectTypeOf<Unclonable<{ readonly a: { readonly f: () => void } }>>().toEqualTypeOf<true>();
    expectTypeOf<Unclonable<{ readonly m: Map<string, number> }>>().toEqualTypeOf<true>();
    expectTypeOf<Unclonable<{ readonly v: Float32Array; readonly d: readonly string[] }>>().toEqualTypeOf<false>();
    expect(true).toBe(true);
  });

  it('the remote engine has every EngineApi method, each answering with a Result of its value', () => {
    expectTypeOf<keyof RemoteEngine>().toEqualTypeOf<keyof EngineApi>();
    expectTypeOf<ReturnType<RemoteEngine['stats']>>().toEqualTypeOf<Promise<Result<Awaited<ReturnType<EngineApi['stats']>>>>>();
    expectTypeOf<Parameters<RemoteEngine['send']>>().toEqualTypeOf<Parameters<EngineApi['send']>>();
    expect(true).toBe(true);
  });

  it('errors cross as values with a known code, and only known codes are read back', () => {
    expectTypeOf<ErrorInfo['code']>().toEqualTypeOf<(typeof ERROR_CODES)[number]>();
    // After a worker boundary a RecollectError arrives as a plain Error carrying its code.
    const crossed = Object.assign(new Error('The endpoint is down.'), { code: 'LLM_UNAVAILABLE' });
    expect(errorCode(crossed)).toBe('LLM_UNAVAILABLE');
    expect(errorCode(new RecollectError('LLM_CANCELLED', 'Stopped.'))).toBe('LLM_CANCELLED');
    expect(errorCode(Object.assign(new Error('no such file'), { code: 'ENOENT' }))).toBeNull();
    expect(errorCode(null)).toBeNull();
  });
});
