/**
 * Type-level checks over the worker wire types (src/core/protocol.ts, and the benchmark worker's in
 * bench/host/benchProtocol.ts): what crosses a worker
 * boundary must survive structured cloning, and the resultified engine must mirror EngineApi.
 * These assertions are checked by `npm run typecheck` (tsc over test/); the runtime half only
 * keeps vitest from reporting an empty file. A method returning a class with methods, a function
 * or a Map would fail the compile, not this test's run.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { EngineApi, EngineEvent, EngineGroup, ModelWorkerApi, RemoteEngine, Result } from '../../src/core/protocol';
import type { BenchWorkerApi, ScaleWorkerApi } from '../../bench/host/benchProtocol';
import type { ERROR_CODES } from '../../src/core/base/errors';
import { errorCode, RecollectError, type ErrorInfo } from '../../src/core/base/errors';
import type { ChatRole, Fact, MemCell, Message, NewTurn, Role } from '../../src/core/base/types';
import type { ImportedTurn } from '../../src/core/base/historyImport';
import type { LlmMessage } from '../../src/core/base/ports';
import type { LifecycleTurn, MemCellRecord } from '../../src/core/episodes/episodes';
import type { FactEdit, FactView, MemCellSummary, TurnView } from '../../src/core/explorer/explorer';
import type { CellForSynthesis, CellTurn, KnownFact, NewFact, SceneMember } from '../../src/core/synthesis/knowledge';
import type { PromptEpisode, PromptKnownFact, PromptTurn } from '../../src/core/synthesis/synthesisPrompts';
import type { ContextEpisode, ContextFact } from '../../src/core/recall/answerContext';
import type { SendRequest } from '../../src/core/protocol';

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
          ? true extends { [K in keyof T]-?: Unclonable<T[K]> }[keyof T]
            ? true
            : false
          : false;

/** The methods of an API whose resolved results cannot cross a worker boundary (never when all can). */
type UnclonableResults<Api> = {
  [K in keyof Api]-?: Api[K] extends (...a: never[]) => infer R ? (Unclonable<Awaited<R>> extends true ? K : never) : never;
}[keyof Api];
/** The same over every group of the engine's API ('group.method' names). */
type UnclonableEngineResults = { [G in keyof EngineApi]-?: `${G & string}.${UnclonableResults<EngineApi[G]> & string}` }[keyof EngineApi];

/**
 * True when every field D shares with the noun N has N's type or a narrower one (a derived shape
 * may require a narrative or a chat role, or leave a field out, but never widen or change a field of the noun).
 */
type Agrees<D, N> = false extends { [K in keyof D & keyof N]-?: [Exclude<D[K], undefined>] extends [N[K]] ? true : false }[keyof D &
  keyof N]
  ? false
  : true;
/** The fields D shares with N (a derivation that renamed every field would share none). */
type Shared<D, N> = keyof D & keyof N;

describe('each noun declared once', () => {
  it('every shape of a turn, a fact and an episode agrees with its noun, field by field', () => {
    // Turns: the stored Message is the noun.
    expectTypeOf<Agrees<NewTurn, Message>>().toEqualTypeOf<true>();
    expectTypeOf<Agrees<LifecycleTurn, Message>>().toEqualTypeOf<true>();
    expectTypeOf<Agrees<TurnView, Message>>().toEqualTypeOf<true>();
    expectTypeOf<Agrees<CellTurn, Message>>().toEqualTypeOf<true>();
    expectTypeOf<Agrees<PromptTurn, Message>>().toEqualTypeOf<true>();
    expectTypeOf<Agrees<ImportedTurn, Message>>().toEqualTypeOf<true>();
    expectTypeOf<Agrees<LlmMessage, Message>>().toEqualTypeOf<true>();
    expectTypeOf<Agrees<SendRequest, Message>>().toEqualTypeOf<true>();
    expectTypeOf<Shared<LifecycleTurn, Message>>().toEqualTypeOf<
      'id' | 'conversationId' | 'seq' | 'role' | 'speaker' | 'content' | 'occurredAt' | 'tokenCount'
    >();
    expectTypeOf<ImportedTurn['role']>().toEqualTypeOf<ChatRole>();
    expectTypeOf<LlmMessage['role']>().toEqualTypeOf<Role>();
    // Facts.
    expectTypeOf<FactView>().toEqualTypeOf<Fact>();
    expectTypeOf<Agrees<ContextFact, Fact>>().toEqualTypeOf<true>();
    expectTypeOf<Agrees<KnownFact, Fact>>().toEqualTypeOf<true>();
    expectTypeOf<Agrees<NewFact, Fact>>().toEqualTypeOf<true>();
    expectTypeOf<Agrees<PromptKnownFact, Fact>>().toEqualTypeOf<true>();
    expectTypeOf<Agrees<Required<FactEdit>, Fact>>().toEqualTypeOf<true>();
    // Episodes.
    expectTypeOf<MemCellRecord>().toMatchTypeOf<MemCell>();
    expectTypeOf<Agrees<MemCellSummary, MemCell>>().toEqualTypeOf<true>();
    expectTypeOf<Agrees<ContextEpisode, MemCell>>().toEqualTypeOf<true>();
    expectTypeOf<Agrees<CellForSynthesis, MemCell>>().toEqualTypeOf<true>();
    expectTypeOf<Agrees<SceneMember, MemCell>>().toEqualTypeOf<true>();
    expectTypeOf<Agrees<PromptEpisode, MemCell>>().toEqualTypeOf<true>();
    // The check can fail: a turn whose time is text, or a fact whose id may be missing.
    expectTypeOf<Agrees<{ readonly occurredAt: string }, Message>>().toEqualTypeOf<false>();
    expectTypeOf<Agrees<{ readonly id: string | null }, Fact>>().toEqualTypeOf<false>();
    expect(true).toBe(true);
  });
});

describe('worker wire types', () => {
  it('every engine, model-worker and benchmark result survives structured cloning', () => {
    expectTypeOf<UnclonableEngineResults>().toEqualTypeOf<never>();
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

  it('the remote engine has every EngineApi group and method, each answering with a Result of its value', () => {
    expectTypeOf<keyof RemoteEngine>().toEqualTypeOf<keyof EngineApi>();
    expectTypeOf<EngineGroup>().toEqualTypeOf<keyof EngineApi>();
    expectTypeOf<keyof RemoteEngine['memory']>().toEqualTypeOf<keyof EngineApi['memory']>();
    expectTypeOf<ReturnType<RemoteEngine['data']['stats']>>().toEqualTypeOf<
      Promise<Result<Awaited<ReturnType<EngineApi['data']['stats']>>>>
    >();
    expectTypeOf<Parameters<RemoteEngine['conversations']['send']>>().toEqualTypeOf<Parameters<EngineApi['conversations']['send']>>();
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
