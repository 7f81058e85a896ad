/**
 * From a client result to the plain request sample the collectors judge, and from there to
 * the frozen `RunSample` phases and outputs receive. A fresh object per request: a copy is cheap next
 * to a request, and nothing a listener keeps can change under it.
 */
import type { ApiResult, StreamResult } from '../api/index.js';
import type { ErrorCode } from '../core/codes.js';
import type { OpKey } from '../core/ops.js';
import type { RequestSample, RunStatus, Verdict } from '../core/types.js';
import { countWords } from '../collect/index.js';
import type { TokenCounter } from '../scenario/index.js';
import type { RunSample } from './events.js';

/** What the engine knows of one request besides its result. */
export interface SampleContext {
  readonly scenario: string;
  readonly op: OpKey;
  readonly flowId: string | undefined;
  readonly negative: boolean;
  readonly intendedNs: number;
  readonly step: string | undefined;
  readonly sessionId: string | undefined;
  readonly input: string | undefined;
  /** True for a journey's own request that does not count toward availability (`vu.http`). */
  readonly outsideSlo?: boolean;
  /** True for a journey's own request to another origin than the API's (`vu.http`). */
  readonly otherOrigin?: boolean;
}

/** The run status a `run`/`getRun` answer carries, if any (other answers are not parsed). */
export function runStatusOf(op: OpKey, result: ApiResult<unknown> | StreamResult): RunStatus | undefined {
  if (!result.ok || (op !== 'run' && op !== 'getRun')) return undefined;
  const value: unknown = result.value;
  const status = typeof value === 'object' && value !== null ? (value as { status?: unknown }).status : undefined;
  return status === 'running' || status === 'completed' || status === 'failed' ? status : undefined;
}

/** What a text is counted in when the scenario names no tokenizer. */
const WORDS: TokenCounter = { name: 'words', count: countWords };

/**
 * The request sample of one result (plain data). A stream's prompt and streamed output are
 * counted with `counter`, the scenario's tokenizer (words by default).
 */
export function requestSample(ctx: SampleContext, result: ApiResult<unknown> | StreamResult, code: ErrorCode | undefined, counter: TokenCounter = WORDS): RequestSample {
  const meta = result.meta;
  const counted = ctx.op === 'stream' && ctx.input !== undefined;
  const output = counted && result.ok ? (result.value as { output?: unknown }).output : undefined;
  return {
    op: ctx.op,
    flowId: ctx.flowId,
    intendedNs: ctx.intendedNs,
    startNs: meta.startNs,
    headersNs: meta.headersNs,
    endNs: meta.endNs,
    sentNs: meta.sentNs,
    connectNs: meta.connectNs,
    tlsNs: meta.tlsNs,
    status: meta.status,
    errorCode: code,
    rateLimit: meta.rateLimit,
    server: meta.server,
    via: meta.via,
    violations: result.violations,
    negative: ctx.negative,
    runStatus: runStatusOf(ctx.op, result),
    stream: 'timing' in result ? result.timing : undefined,
    // A plain literal (no spread): this runs once per request.
    inputTokens: counted ? counter.count(ctx.input as string) : undefined,
    outputTokens: typeof output === 'string' ? counter.count(output) : undefined,
    tokenUnit: counted ? counter.name : undefined,
    outsideSlo: ctx.outsideSlo,
    otherOrigin: ctx.otherOrigin,
  };
}

/**
 * The frozen sample phases and outputs see. `value` only when a phase asked for it.
 *
 * Written out field by field, in one fixed order: `Object.freeze({ ...sample, … })` gave every
 * sample a hidden class of its own (none of 1,000 in a row shared one), which made every
 * listener's property reads megamorphic and cost about 40 µs and 57 MB a request at full rate.
 * test/run/sample-shape.test.ts checks that consecutive samples share one map.
 */
export function runSample(ctx: SampleContext, sample: RequestSample, verdict: Verdict, value: unknown): RunSample {
  return Object.freeze({
    op: sample.op,
    flowId: sample.flowId,
    intendedNs: sample.intendedNs,
    startNs: sample.startNs,
    headersNs: sample.headersNs,
    endNs: sample.endNs,
    sentNs: sample.sentNs,
    connectNs: sample.connectNs,
    tlsNs: sample.tlsNs,
    status: sample.status,
    errorCode: sample.errorCode,
    rateLimit: sample.rateLimit,
    violations: sample.violations,
    negative: sample.negative,
    runStatus: sample.runStatus,
    stream: sample.stream,
    inputTokens: sample.inputTokens,
    outputTokens: sample.outputTokens,
    tokenUnit: sample.tokenUnit,
    outsideSlo: sample.outsideSlo,
    otherOrigin: sample.otherOrigin,
    scenario: ctx.scenario,
    verdict,
    step: ctx.step,
    sessionId: ctx.sessionId,
    input: ctx.input,
    value,
  });
}
