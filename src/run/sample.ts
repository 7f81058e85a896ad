/**
 * From a client result to the plain request sample the collectors judge, and from there to
 * the frozen `RunSample` observers receive. A fresh object per request: a copy is cheap next
 * to a request, and nothing an observer keeps can change under it.
 */
import type { ApiResult, StreamResult } from '../api/index.js';
import type { ErrorCode } from '../core/codes.js';
import type { OpName } from '../core/ops.js';
import type { RequestSample, RunStatus, Verdict } from '../core/types.js';
import { countWords } from '../collect/index.js';
import type { RunSample } from './observer.js';

/** What the engine knows of one request besides its result. */
export interface SampleContext {
  readonly scenario: string;
  readonly op: OpName;
  readonly flowId: string | undefined;
  readonly negative: boolean;
  readonly intendedNs: number;
  readonly step: string | undefined;
  readonly sessionId: string | undefined;
  readonly input: string | undefined;
}

/** The run status a `run`/`getRun` answer carries, if any (other answers are not parsed). */
export function runStatusOf(op: OpName, result: ApiResult<unknown> | StreamResult): RunStatus | undefined {
  if (!result.ok || (op !== 'run' && op !== 'getRun')) return undefined;
  const value: unknown = result.value;
  const status = typeof value === 'object' && value !== null ? (value as { status?: unknown }).status : undefined;
  return status === 'running' || status === 'completed' || status === 'failed' ? status : undefined;
}

/** The request sample of one result (plain data). */
export function requestSample(ctx: SampleContext, result: ApiResult<unknown> | StreamResult, code: ErrorCode | undefined): RequestSample {
  const meta = result.meta;
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
    violations: result.violations,
    negative: ctx.negative,
    runStatus: runStatusOf(ctx.op, result),
    stream: 'timing' in result ? result.timing : undefined,
    // A plain literal (no spread): this runs once per request.
    inputWords: ctx.op === 'stream' && ctx.input !== undefined ? countWords(ctx.input) : undefined,
  };
}

/**
 * The frozen sample observers see. `value` only when an observer asked for it.
 *
 * Written out field by field, in one fixed order: `Object.freeze({ ...sample, … })` gave every
 * sample a hidden class of its own (none of 1,000 in a row shared one), which made every
 * observer's property reads megamorphic and cost about 40 µs and 57 MB a request at full rate.
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
    inputWords: sample.inputWords,
    scenario: ctx.scenario,
    verdict,
    step: ctx.step,
    sessionId: ctx.sessionId,
    input: ctx.input,
    value,
  });
}
