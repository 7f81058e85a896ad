/** Builders of synthetic samples and verdicts for exporter tests. */
import type { RequestSample, StreamTiming, Verdict } from '../../../src/core/types.js';

const MS = 1e6;

/** A successful `run` by default; override what the test is about. */
export function makeSample(over: Partial<RequestSample> = {}): RequestSample {
  return {
    op: 'run',
    flowId: 'flow-a',
    intendedNs: 1_000 * MS,
    startNs: 1_001 * MS,
    headersNs: 1_100 * MS,
    endNs: 1_250 * MS,
    status: 200,
    errorCode: undefined,
    rateLimit: {
      limit: 1000,
      remaining: 900,
      reset: 30,
      raw: { limit: '1000', remaining: '900', reset: '30', retryAfter: undefined },
    },
    violations: [],
    negative: false,
    runStatus: 'completed',
    stream: undefined,
    ...over,
  };
}

/** Stream timing: start at +20 ms, first token at +`ttftMs`, `tokens` tokens `itlMs` apart, then end. */
export function makeStream(intendedNs: number, opts: { ttftMs?: number; tokens?: number; itlMs?: number; complete?: boolean } = {}): StreamTiming {
  const ttft = opts.ttftMs ?? 120;
  const tokens = opts.tokens ?? 5;
  const itl = opts.itlMs ?? 15;
  const first = intendedNs + ttft * MS;
  const last = first + (tokens - 1) * itl * MS;
  const complete = opts.complete ?? true;
  return {
    firstByteNs: intendedNs + 10 * MS,
    startEventNs: intendedNs + 20 * MS,
    firstTokenNs: tokens > 0 ? first : undefined,
    lastTokenNs: tokens > 0 ? last : undefined,
    endEventNs: complete ? last + 5 * MS : undefined,
    tokens,
    itlNs: Array.from({ length: Math.max(0, tokens - 1) }, () => itl * MS),
    usageCompletionTokens: complete ? tokens : undefined,
    complete,
    unknownEvents: 0,
    malformedEvents: 0,
  };
}

export const GOOD: Verdict = { sli: 'good', throttle: 'none' };
export const BAD: Verdict = { sli: 'bad', throttle: 'none' };
export const EXPECTED_429: Verdict = { sli: 'excluded', throttle: 'expected' };
export const PREMATURE_429: Verdict = { sli: 'bad', throttle: 'premature' };
