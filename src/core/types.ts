/**
 * Shared data shapes that flow between parts: what the client observed about one request,
 * and how the collectors judged it. Pure data, no behaviour.
 */
import type { ErrorCode } from './codes.js';
import type { OpKey, OpName } from './ops.js';

/**
 * The `X-RateLimit-*` headers of one response, parsed. Raw header values are kept, because
 * the interface leaves the unit of Reset unsaid and the analyser decides it from many responses.
 */
export interface RateLimitInfo {
  /** Parsed integer, or undefined when absent or not an integer. */
  readonly limit: number | undefined;
  readonly remaining: number | undefined;
  readonly reset: number | undefined;
  /** Header values as received (undefined when absent). */
  readonly raw: {
    readonly limit: string | undefined;
    readonly remaining: string | undefined;
    readonly reset: string | undefined;
    readonly retryAfter: string | undefined;
  };
}

/** A response that broke the interface's stated contract, reported as data. */
export interface ContractViolation {
  readonly op: OpName;
  /** Path in the body, e.g. `usage.total_tokens` or `flows[3].endpoint`. */
  readonly path: string;
  /** What the interface states, e.g. `integer`, `one of running|completed|failed`, `present`. */
  readonly expected: string;
  /** What arrived, e.g. `string`, `"done"`, `missing`. */
  readonly got: string;
}

/** Timing of one server-sent-events stream, taken when bytes arrived (before JSON parsing). */
export interface StreamTiming {
  /** Monotonic ns at which the first body byte arrived. */
  readonly firstByteNs: number | undefined;
  /** Arrival of the `start` event. */
  readonly startEventNs: number | undefined;
  /** Arrival of the first `token` event (TTFT is measured to this). */
  readonly firstTokenNs: number | undefined;
  /** Arrival of the last `token` event. */
  readonly lastTokenNs: number | undefined;
  /** Arrival of the `end` event. */
  readonly endEventNs: number | undefined;
  /** Number of `token` events. */
  readonly tokens: number;
  /** Gaps between consecutive token arrivals, in ns (length `tokens - 1`). */
  readonly itlNs: readonly number[];
  /** `usage.completion_tokens` of the `end` event, when present. */
  readonly usageCompletionTokens: number | undefined;
  /** True when an `end` event arrived. */
  readonly complete: boolean;
  /** Events with a `type` the interface does not define (kept, not fatal). */
  readonly unknownEvents: number;
  /** Events whose `data` was not a JSON object with a string `type`. */
  readonly malformedEvents: number;
}

/** Status values of a run (docs/reference-service.md, "Runs"). */
export type RunStatus = 'running' | 'completed' | 'failed';

/**
 * What the client observed about one request. The engine may reuse one object for many
 * requests, so a consumer must copy what it keeps beyond the call it was given in.
 */
export interface RequestSample {
  /** The operation, or `http:<name>` for a journey's own request (`vu.http`). */
  op: OpKey;
  /** Flow the request addressed, when it addressed one (a bounded label). */
  flowId: string | undefined;
  /**
   * Intended start on the schedule. Latency is measured from here, so a stalled service
   * shows in the percentiles (no coordinated omission). Equals `startNs` in closed models.
   */
  intendedNs: number;
  /** When the request was actually handed to the client. */
  startNs: number;
  /** When response headers arrived; undefined when none did. */
  headersNs: number | undefined;
  /** When the body ended, or the failure was seen. */
  endNs: number;
  /**
   * When the request went out on an open connection; undefined when it never reached one (or
   * the sample did not come from the client). With `connectNs` and `tlsNs`, the request's
   * phases: blocked, connecting, TLS, waiting, receiving.
   */
  sentNs?: number | undefined;
  /** TCP connect time of the new connection this request opened; 0 on a reused one. */
  connectNs?: number;
  /** TLS handshake time of that connection; 0 on a reused or plain one. */
  tlsNs?: number;
  /** HTTP status; 0 when no response arrived. */
  status: number;
  /** Error classification; undefined for a success. */
  errorCode: ErrorCode | undefined;
  /** Rate-limit headers of the response; undefined when no response arrived. */
  rateLimit: RateLimitInfo | undefined;
  /** The response's `Server` and `Via` headers, when sent: what answered (a gateway or the service). */
  server?: string | undefined;
  via?: string | undefined;
  /**
   * Set by the rate-limit analyser on a 429 with evidence that something in front of the service
   * answered it (a foreign body, another Server or Via, the service's headers missing).
   */
  gateway?: boolean;
  /** Contract violations found in the body (empty when none). */
  violations: readonly ContractViolation[];
  /** True when the request was sent to provoke an error on purpose (negative test). */
  negative: boolean;
  /**
   * True for a request that does not count toward availability (`vu.http` to another origin by
   * default): it is counted and timed under its name, and excluded from the SLO.
   */
  outsideSlo?: boolean;
  /** True for a request to another origin than the API's (`vu.http`): left out of the rate-limit analysis. */
  otherOrigin?: boolean;
  /** For `run` and `getRun`: the run's status in the body. */
  runStatus: RunStatus | undefined;
  /** For `stream`: its timing. */
  stream: StreamTiming | undefined;
  /** For `stream` with a known input: the prompt's length in `tokenUnit`. */
  inputTokens?: number;
  /** For a `stream` that returned its text: the output's length in `tokenUnit`. */
  outputTokens?: number;
  /** The unit of `inputTokens` and `outputTokens`: `words` (when absent) or a tokenizer's name. */
  tokenUnit?: string;
}

/** How a request counts against the 99.9 % objective (docs/measuring.md, "SLI"). */
export type SliClass = 'good' | 'bad' | 'excluded';

/**
 * What a 429 meant: none (not a 429); expected (the client had used the advertised limit);
 * premature (it had not, or the service's own Remaining said requests were left); uncertain
 * (requests in flight at the same time make the order unknowable). See docs/measuring.md.
 */
export type ThrottleClass = 'none' | 'expected' | 'premature' | 'uncertain';

/** The collectors' judgement of one sample, passed on to exporters. */
export interface Verdict {
  readonly sli: SliClass;
  readonly throttle: ThrottleClass;
}
