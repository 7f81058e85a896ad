/**
 * The conformance report, `flowgauge/conformance@1`: what a short battery of requests saw of
 * the behaviours the interface leaves unsaid (observations), and every departure from what it
 * does state (violations). Written as `conformance.json` and `conformance.md`.
 */

/** The schema identifier of this version. */
export const CONFORMANCE_SCHEMA = 'flowgauge/conformance@1';

/** Whether the battery could see the behaviour. */
export type ObservationStatus = 'observed' | 'not-observed' | 'unobservable';

/** One thing the interface leaves unsaid, and what this target did. */
export interface Observation {
  /** Stable key, e.g. `run.streamsByDefault`, `rateLimit.resetUnit`. */
  readonly id: string;
  /** Section of the interface it belongs to: `runs`, `lists`, `errors`, `rate limits`, … */
  readonly topic: string;
  /** What the interface leaves open, as a question. */
  readonly question: string;
  /** What was seen, in words. */
  readonly answer: string;
  readonly status: ObservationStatus;
  /** The observed value as data, when there is one. */
  readonly value?: unknown;
}

/** A departure from what the interface states. */
export interface Violation {
  /** Which statement: `errors.body`, `lists.defaultLimit`, `rateLimit.headers`, `schema.run`, … */
  readonly rule: string;
  /** Where: a body path, a header, or `status`. */
  readonly path: string;
  readonly expected: string;
  readonly got: string;
  /** The first request that showed it (`GET /flows?limit=101`). */
  readonly request: string;
  /** Responses that showed it. */
  readonly count: number;
}

/** `conformance.json`. */
export interface ConformanceReport {
  readonly schema: typeof CONFORMANCE_SCHEMA;
  /** The target; its URL never carries credentials or a query string. */
  readonly target: { readonly baseUrl: string; readonly embedded: boolean };
  readonly startedAt: string;
  readonly endedAt: string;
  /** False when no response came at all (exit 3). */
  readonly reachable: boolean;
  /** False when the target refused the token on the first request. */
  readonly tokenAccepted: boolean;
  /** Requests the battery sent. */
  readonly requests: number;
  readonly observations: readonly Observation[];
  readonly violations: readonly Violation[];
  /**
   * Set when the target answered, but not as the interface does: another protocol than
   * HTTP/1.1, or `GET /flows` in another shape. Nothing else was tried (exit 76).
   */
  readonly protocol?: string;
  /** Set when the battery's deadline passed: its length and the probe groups it cut. */
  readonly deadline?: { readonly ms: number; readonly cut: readonly string[] };
  /**
   * Set when the battery was stopped (Ctrl-C, SIGTERM, SIGHUP): the probe groups it cut. What it
   * saw until then is reported; the request in flight is not judged. Never a pass.
   */
  readonly interrupted?: { readonly cut: readonly string[] };
  readonly passed: boolean;
}
