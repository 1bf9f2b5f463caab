/**
 * Structured output from models that are often small and sloppy (docs/architecture.md, LLM endpoint): ask for one JSON
 * object, dig it out of whatever came back (reasoning tags, code fences, prose before or after),
 * repair what jsonrepair can (single quotes, trailing commas, truncation), validate against the
 * stage's schema, and on failure ask once more with the problems spelled out (zod's prettifyError).
 * A second failure is an LLM_BAD_OUTPUT carrying the raw reply and the issues, for the job to record.
 *
 * One repair path: where the JSON starts is found here (after reasoning tags, inside a fence), where
 * it ends and how it is mended is jsonrepair's to decide.
 */
import { cleanModelText } from '../core/base/modelText';
import { jsonrepair, JSONRepairError } from 'jsonrepair';
import { z } from 'zod';
import { RecollectError } from '../core/base/errors';
import type { Llm, LlmJsonRequest, LlmJsonResult, LlmMessage, LlmSchemaIssue, LlmUsage } from '../core/base/ports';

const JSON_INSTRUCTION = 'Reply with one JSON object only: no prose, no Markdown, no code fences.';
const MAX_RAW_IN_DETAIL = 4000;

export class LlmBadOutputError extends RecollectError {
  /** The model's last reply, verbatim. */
  readonly raw: string;
  /** Human-readable problems: the parse failure, or one zod prettifyError block per validation issue. */
  readonly issues: readonly string[];
  constructor(stage: string, raw: string, issues: readonly string[]) {
    super(
      'LLM_BAD_OUTPUT',
      `The model's reply for "${stage}" was not in the expected format, even after a retry: ${issues
        .slice(0, 3)
        .map((i) => i.replace(/\s*\n\s*/g, ' '))
        .join('; ')}`,
      JSON.stringify({ issues, raw: raw.length > MAX_RAW_IN_DETAIL ? `${raw.slice(0, MAX_RAW_IN_DETAIL)}…` : raw }),
    );
    this.name = 'LlmBadOutputError';
    this.raw = raw;
    this.issues = issues;
  }
}

export interface ExtractedJson {
  readonly value: unknown;
  readonly repaired: boolean;
}

/**
 * The first JSON object or array in `text`. Throws a plain Error when there is none to be had.
 * `repaired` is false only when the text was exactly one JSON value with whitespace around it.
 */
export function extractJson(text: string): ExtractedJson {
  const trimmed = text.trim();
  try {
    return { value: JSON.parse(trimmed), repaired: false };
  } catch {
    // fall through to the digging below
  }
  // Reasoning models (DeepSeek-R1, Qwen3…) think aloud in <think> tags before answering; a
  // truncated reply may end inside one.
  let body = trimmed.replace(/<think>[\s\S]*?(<\/think>|$)/gi, '').trim();
  const fence = /```[a-zA-Z0-9_-]*[ \t]*\r?\n?([\s\S]*?)(```|$)/.exec(body);
  if (fence?.[1] !== undefined && /[{[]/.test(fence[1])) body = fence[1];
  const start = body.search(/[{[]/);
  if (start < 0) throw new Error('no JSON object found in the reply');
  try {
    return { value: repairFirstValue(body.slice(start)), repaired: true };
  } catch (err) {
    throw new Error(`the reply is not valid JSON and could not be repaired (${err instanceof Error ? err.message : String(err)})`);
  }
}

/**
 * The JSON value at the start of `text`, mended by jsonrepair, with what a model wrote after it
 * dropped. jsonrepair reports prose it cannot read as part of the value by position
 * (JSONRepairError.position): the value ended before it, so the text is cut there and repaired
 * again. Lines after an object it reads as newline-delimited values and wraps everything in an
 * array: the object the model was asked for is that array's first element.
 */
function repairFirstValue(text: string): unknown {
  let candidate = text;
  for (;;) {
    try {
      const value: unknown = JSON.parse(jsonrepair(candidate));
      return candidate.startsWith('{') && Array.isArray(value) ? value[0] : value;
    } catch (err) {
      if (!(err instanceof JSONRepairError) || err.position <= 0 || err.position >= candidate.length) throw err;
      candidate = candidate.slice(0, err.position);
    }
  }
}

/** One block per validation issue, in zod's words: `✖ message` and `→ at path`. */
export function formatIssues(issues: readonly LlmSchemaIssue[]): string[] {
  return issues.map((issue) => z.prettifyError({ issues: [issue] }));
}

/** Adds the JSON instruction to the system message (or a new one) without mutating the input. */
function withJsonInstruction(messages: readonly LlmMessage[]): LlmMessage[] {
  const first = messages[0];
  if (first?.role === 'system') {
    return [{ role: 'system', content: `${first.content}\n\n${JSON_INSTRUCTION}` }, ...messages.slice(1)];
  }
  return [{ role: 'system', content: JSON_INSTRUCTION }, ...messages];
}

function addUsage(a: LlmUsage | undefined, b: LlmUsage): LlmUsage {
  if (!a) return b;
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    estimated: a.estimated || b.estimated,
  };
}

type Checked<T> = { ok: true; value: T; repaired: boolean } | { ok: false; issues: string[] };

function check<T>(raw: string, req: LlmJsonRequest<T>): Checked<T> {
  let extracted: ExtractedJson;
  try {
    extracted = extractJson(raw);
  } catch (err) {
    return { ok: false, issues: [err instanceof Error ? err.message : String(err)] };
  }
  const parsed = req.schema.safeParse(extracted.value);
  if (parsed.success) return { ok: true, value: parsed.data, repaired: extracted.repaired };
  return { ok: false, issues: formatIssues(parsed.error.issues) };
}

/**
 * Calls `llm.complete` in JSON mode and returns a schema-valid value. Transport errors (rate
 * limits, timeouts, cancellation…) propagate unchanged; only bad output is handled here.
 */
export async function completeJson<T>(llm: Pick<Llm, 'complete'>, req: LlmJsonRequest<T>): Promise<LlmJsonResult<T>> {
  const { schema: _schema, ...rest } = req;
  let messages = withJsonInstruction(req.messages);
  let usage: LlmUsage | undefined;
  let raw = '';
  let issues: string[] = [];
  for (let attempt = 1; attempt <= 2; attempt++) {
    const result = await llm.complete({ ...rest, temperature: req.temperature ?? 0, messages, json: true });
    usage = addUsage(usage, result.usage);
    // Broken characters (U+FFFD, control bytes) from a small model never reach stored memory.
    raw = cleanModelText(result.text).text;
    const checked = check(raw, req);
    // A reply the token limit cut is incomplete even when what arrived parses (JSON repair closes
    // the brackets): accepting it would store half the facts as if they were all.
    if (checked.ok && result.finishReason !== 'length')
      return { value: checked.value, raw, repaired: checked.repaired, attempts: attempt, usage };
    issues = checked.ok ? [] : checked.issues;
    if (result.finishReason === 'length') issues = [...issues, 'the reply was cut off by the token limit'];
    messages = [
      ...messages,
      { role: 'assistant', content: raw },
      {
        role: 'user',
        content: `That reply could not be used:\n${issues
          .slice(0, 10)
          .map((i) => (i.startsWith('✖') ? i : `✖ ${i}`))
          .join('\n')}\nReply again with only the corrected JSON object${result.finishReason === 'length' ? ', shorter' : ''}.`,
      },
    ];
  }
  throw new LlmBadOutputError(req.stage, raw, issues);
}
