/**
 * Turns off Zod's code generation before any schema is built. Zod 4 probes `new Function("")` the
 * first time it builds an object schema (to see whether it may compile fast parsers); the app's
 * Content-Security-Policy has no 'unsafe-eval', so the probe is a reported CSP violation — a
 * console error on every load in Firefox — even though Zod catches the throw and falls back.
 * `jitless` skips the probe and uses the interpreted parser, which is all our small schemas need.
 *
 * Every browser entry (the page, each worker, the benchmark page and its worker) imports this
 * module FIRST: ES modules run in import order, and a schema built at the top of an earlier import
 * would already have probed. test/app/zodJitless.test.ts fails when an entry forgets it.
 * Node (tests, CLI, benchmarks) has no CSP and does not need it.
 */
import { config } from 'zod';

config({ jitless: true });

/** True once this module has run (lets a test assert the setting without reading Zod's globals). */
export const ZOD_JITLESS = config().jitless === true;
