/**
 * The real measurement of a capacity step: autocannon, closed model, `concurrency`
 * connections for a fixed time, one request shape. autocannon is the generator here because a
 * sweep is about the target's ceiling, and it costs the least CPU per request of the tools at
 * hand (see docs/performance.md); flowgauge's own executors measure everything else.
 */
// Types only at the top: autocannon itself is imported by the first step, so everything that
// reaches this file through src/run/index.ts (every `flowgauge run`) does not load it.
import type autocannon from 'autocannon';
import type { CapacityRequest } from './capacity-request.js';
import type { MeasureStep, StepMeasurement } from './capacity.js';

/** Options of `createAutocannonMeasure`. */
export interface AutocannonMeasureOptions {
  readonly request: CapacityRequest;
  /** Length of each step in seconds. */
  readonly durationS: number;
  /** Per-request timeout in seconds (default 10); a timeout counts as an error. */
  readonly timeoutS?: number;
}

/**
 * The part of an autocannon result a step reads. Written out here rather than named from
 * `autocannon`, so the package's declaration files never import autocannon's types (which live
 * in @types/autocannon, a dev dependency): a consumer's strict `tsc` then compiles them.
 */
export interface AutocannonResultView {
  readonly statusCodeStats?: Readonly<Record<string, { readonly count?: number } | undefined>>;
  /** Connection errors and timeouts: requests that got no response. */
  readonly errors: number;
  /** Seconds. */
  readonly duration: number;
  readonly latency: { readonly p50: number; readonly p99: number };
}

/** Reads an autocannon result into a step measurement. */
export function measurementOf(concurrency: number, r: AutocannonResultView): StepMeasurement {
  const stats = r.statusCodeStats ?? {};
  let responses = 0;
  let good = 0;
  let r429 = 0;
  for (const [code, s] of Object.entries(stats)) {
    const n = s?.count ?? 0;
    responses += n;
    if (code.startsWith('2')) good += n;
    if (code === '429') r429 += n;
  }
  // `errors` counts connection errors and timeouts: requests that got no response.
  const requests = responses + r.errors;
  const durationS = r.duration > 0 ? r.duration : 1;
  return {
    concurrency,
    requests,
    requestsPerS: responses / durationS,
    goodPerS: good / durationS,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    errorRatio: requests > 0 ? (requests - good) / requests : 1,
    ratio429: requests > 0 ? r429 / requests : 0,
  };
}

/** A `MeasureStep` that runs autocannon against `request`. */
export function createAutocannonMeasure(options: AutocannonMeasureOptions): MeasureStep {
  const { request, durationS } = options;
  return async (concurrency) => {
    const { default: run } = await import('autocannon');
    const result = await run({
      url: request.url,
      method: request.method,
      headers: { ...request.headers },
      ...(request.body !== undefined ? { body: request.body } : {}),
      connections: concurrency,
      pipelining: 1,
      duration: durationS,
      timeout: options.timeoutS ?? 10,
    });
    return measurementOf(concurrency, result);
  };
}
