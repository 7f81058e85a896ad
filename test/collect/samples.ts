/** Factories of synthetic samples for the collect/slo/report tests. */
import type { RateLimitInfo, RequestSample, StreamTiming } from '../../src/core/types.js';

export const MS = 1e6;
export const S = 1e9;

/** A successful `run` that was intended at 0, took 10 ms. Override anything. */
export function sample(over: Partial<RequestSample> = {}): RequestSample {
  return {
    op: 'run',
    flowId: undefined,
    intendedNs: 0,
    startNs: 0,
    headersNs: 5 * MS,
    endNs: 10 * MS,
    status: 200,
    errorCode: undefined,
    rateLimit: undefined,
    violations: [],
    negative: false,
    runStatus: undefined,
    stream: undefined,
    ...over,
  };
}

/** Rate-limit headers as a server sends them (all three integers). */
export function rl(limit: number | undefined, remaining: number | undefined, reset: number | undefined): RateLimitInfo {
  return {
    limit,
    remaining,
    reset,
    raw: {
      limit: limit === undefined ? undefined : String(limit),
      remaining: remaining === undefined ? undefined : String(remaining),
      reset: reset === undefined ? undefined : String(reset),
      retryAfter: undefined,
    },
  };
}

/** A complete stream intended at `t0`: start at +s, tokens at the given offsets (ns), end at +end. */
export function streamTiming(t0: number, o: { start: number; tokens: readonly number[]; end: number; firstByte?: number; usage?: number; complete?: boolean }): StreamTiming {
  const tokens = o.tokens.map((t) => t0 + t);
  const itl: number[] = [];
  for (let i = 1; i < tokens.length; i++) itl.push((tokens[i] as number) - (tokens[i - 1] as number));
  return {
    firstByteNs: t0 + (o.firstByte ?? o.start),
    startEventNs: t0 + o.start,
    firstTokenNs: tokens[0],
    lastTokenNs: tokens[tokens.length - 1],
    endEventNs: o.complete === false ? undefined : t0 + o.end,
    tokens: tokens.length,
    itlNs: itl,
    usageCompletionTokens: o.usage,
    complete: o.complete !== false,
    unknownEvents: 0,
    malformedEvents: 0,
  };
}

/** Exact percentile by HDR's definition: the smallest value with at least p% of values ≤ it. */
export function exactPercentile(sorted: readonly number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}
