/**
 * Names, help texts, label names and default buckets of every Prometheus metric flowgauge
 * exports, plus the names of the recording rules built on them. The exporters
 * (`src/export/`), the rule generator and the dashboard generator all read this one table,
 * so a renamed metric cannot leave a rule or a panel querying nothing.
 *
 * Labels are bounded on purpose: operation, flow, tier, code, status_class, outcome, kind,
 * check, phase, result, scenario, target (a name, never a URL). Never run ids, request ids or tokens.
 */
import { OPS, type OpName } from '../core/ops.js';

/** The three Prometheus metric types flowgauge uses. */
export type MetricType = 'counter' | 'gauge' | 'histogram';

/** One exported metric. */
export interface MetricSpec {
  readonly name: string;
  readonly type: MetricType;
  readonly help: string;
  readonly labelNames: readonly string[];
  /**
   * How the series of several registries (the workers of one run) combine into one: counters
   * and histograms add, and so does a gauge unless it says otherwise. prom-client's names.
   */
  readonly aggregator?: 'sum' | 'min' | 'max';
}

const RUN = ['scenario', 'tier'] as const;

/** Metrics of a load run (`createRunMetrics`). `scenario` and `tier` are fixed per run. */
export const RUN_METRICS = {
  requests: {
    name: 'flowgauge_requests_total',
    type: 'counter',
    help: 'Requests completed, by operation, flow, HTTP status class, error code ("none" on success) and SLI outcome (good, bad, excluded).',
    labelNames: [...RUN, 'operation', 'flow', 'status_class', 'code', 'outcome'],
  },
  requestDuration: {
    name: 'flowgauge_request_duration_seconds',
    type: 'histogram',
    help: 'Request latency measured from the intended start on the schedule (no coordinated omission), of the answers the service served: every request but a 429 (errors and timeouts included); 429s are in flowgauge_rate_limited_duration_seconds.',
    labelNames: [...RUN, 'operation'],
  },
  rateLimitedDuration: {
    name: 'flowgauge_rate_limited_duration_seconds',
    type: 'histogram',
    help: 'Latency of the 429 answers (refusals by the rate limiter), from the intended start; left out of flowgauge_request_duration_seconds.',
    labelNames: [...RUN, 'operation'],
  },
  requestPhase: {
    name: 'flowgauge_request_phase_seconds',
    type: 'histogram',
    help: 'Where the time of requests that reached a connection went, by phase: blocked (queued for a free connection in the client), connect, tls (new connections only, else 0), wait (request sent to response head), receive (head to last byte).',
    labelNames: [...RUN, 'operation', 'phase'],
  },
  streamTtft: {
    name: 'flowgauge_stream_ttft_seconds',
    type: 'histogram',
    help: 'Stream time to first token event, from the intended start.',
    labelNames: RUN,
  },
  streamItl: {
    name: 'flowgauge_stream_itl_seconds',
    type: 'histogram',
    help: 'Stream inter-token latency: every gap between consecutive token events (streams delivered in one read left out).',
    labelNames: RUN,
  },
  streamTpot: {
    name: 'flowgauge_stream_tpot_seconds',
    type: 'histogram',
    help: 'Stream time per output token: (end - first token) / (tokens - 1), per stream of two tokens or more; streams delivered in one read are left out.',
    labelNames: RUN,
  },
  streamTokensPerSecond: {
    name: 'flowgauge_stream_output_tokens_per_second',
    type: 'histogram',
    help: 'Output tokens per second of each completed stream: tokens / (end - first token); streams delivered in one read are left out.',
    labelNames: RUN,
  },
  streamTimeToStart: {
    name: 'flowgauge_stream_time_to_start_seconds',
    type: 'histogram',
    help: 'Stream time to the start event, from the intended start.',
    labelNames: RUN,
  },
  streamTokens: {
    name: 'flowgauge_stream_tokens_total',
    type: 'counter',
    help: 'Token events received on streams.',
    labelNames: RUN,
  },
  streamIncomplete: {
    name: 'flowgauge_stream_incomplete_total',
    type: 'counter',
    help: 'Streams answered 2xx that did not complete: no end event, or an error event (a refused or failed answer opened no stream).',
    labelNames: RUN,
  },
  rateLimited: {
    name: 'flowgauge_rate_limited_total',
    type: 'counter',
    help: '429 responses by kind: expected (client over the advertised limit) or premature (under it).',
    labelNames: [...RUN, 'operation', 'kind'],
  },
  rateLimitRemaining: {
    name: 'flowgauge_ratelimit_remaining',
    type: 'gauge',
    help: 'Last X-RateLimit-Remaining value seen.',
    labelNames: RUN,
    // Workers share the tenant's window: the lowest last value is the closest to the latest.
    aggregator: 'min',
  },
  rateLimitLimit: {
    name: 'flowgauge_ratelimit_limit',
    type: 'gauge',
    help: 'Last X-RateLimit-Limit value seen (the advertised limit per window).',
    labelNames: RUN,
    aggregator: 'max',
  },
  dropped: {
    name: 'flowgauge_dropped_total',
    type: 'counter',
    help: 'Scheduled starts that could not happen because the in-flight limit was reached.',
    labelNames: RUN,
  },
  scheduled: {
    name: 'flowgauge_scheduled_total',
    type: 'counter',
    help: 'Starts the executor scheduled (started plus dropped).',
    labelNames: RUN,
  },
  sliEvents: {
    name: 'flowgauge_sli_events_total',
    type: 'counter',
    help: 'SLI events by class: good, bad, or excluded (expected 429s, negative tests). Availability = good / (good + bad).',
    labelNames: [...RUN, 'operation', 'sli'],
  },
  inFlight: {
    name: 'flowgauge_in_flight',
    type: 'gauge',
    help: 'Requests started and not yet finished.',
    labelNames: RUN,
  },
  contractViolations: {
    name: 'flowgauge_contract_violations_total',
    type: 'counter',
    help: 'Response fields that broke the interface contract.',
    labelNames: [...RUN, 'operation'],
  },
} as const satisfies Record<string, MetricSpec>;

/**
 * Metrics of outbound notifications received during a load run (`RunMetrics.observeNotification`).
 * `result` is the matcher's verdict on an accepted delivery (matched, early, pending, duplicate,
 * out-of-order, late, session, unknown-event, before-run) or the receiver's reason for refusing
 * one (missing-signature, malformed-signature, expired, bad-signature, replay, oversize,
 * bad-body, method, path): a bounded set.
 */
/** Journey metrics: iterations by outcome and named checks (check names are bounded by the collectors too). */
export const JOURNEY_METRICS = {
  iterations: {
    name: 'flowgauge_iterations_total',
    type: 'counter',
    help: 'Journey iterations that ended, by result: completed, failed, or interrupted by the run\'s stop.',
    labelNames: [...RUN, 'result'],
  },
  checks: {
    name: 'flowgauge_checks_total',
    type: 'counter',
    help: 'Journey checks evaluated, by check name and result (pass or fail).',
    labelNames: [...RUN, 'check', 'result'],
  },
} as const;

export const NOTIFICATION_METRICS = {
  notifications: {
    name: 'flowgauge_notifications_total',
    type: 'counter',
    help: 'Outbound notifications received during a run, by result: the verdict on an accepted delivery or the reason it was refused.',
    labelNames: [...RUN, 'result'],
  },
  deliveryLatency: {
    name: 'flowgauge_notification_delivery_seconds',
    type: 'histogram',
    help: 'Time from the client seeing a run finish to receiving its completion notification.',
    labelNames: RUN,
  },
} as const satisfies Record<string, MetricSpec>;

/** Default notification delivery latency buckets (seconds). */
export const NOTIFICATION_DELIVERY_BUCKETS_S: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60];

/**
 * Metrics of uptime probes (`createProbeMetrics`). Every series carries `target`, the probe's
 * `--target-name` (by default the base URL's host): one Prometheus, one Pushgateway and one set
 * of rules hold the probes of staging and production apart.
 */
export const PROBE_METRICS = {
  success: {
    name: 'flowgauge_probe_success',
    type: 'gauge',
    help: '1 when the last probe of the check succeeded, 0 when it failed.',
    labelNames: ['target', 'check'],
  },
  total: {
    name: 'flowgauge_probe_total',
    type: 'counter',
    help: 'Probes run, by target, check and result (success, failure), cumulative over the probe history.',
    labelNames: ['target', 'check', 'result'],
  },
  duration: {
    name: 'flowgauge_probe_duration_seconds',
    type: 'histogram',
    help: 'Probe duration by phase: dns, connect, tls, ttfb (first byte), ttft (first token), total (the HTTP request), check (the whole check).',
    labelNames: ['target', 'check', 'phase'],
  },
  tlsVersion: {
    name: 'flowgauge_probe_tls_version_info',
    type: 'gauge',
    help: 'TLS version negotiated by the last probe of the check (always 1; only the current version has a series).',
    labelNames: ['target', 'check', 'version'],
  },
  lastRun: {
    name: 'flowgauge_probe_last_run_timestamp_seconds',
    type: 'gauge',
    help: 'Unix time (seconds) the last probe of the check finished; alert when it stops moving.',
    labelNames: ['target', 'check'],
    aggregator: 'max',
  },
  lastSuccess: {
    name: 'flowgauge_probe_last_success_timestamp_seconds',
    type: 'gauge',
    help: 'Unix time (seconds) the last successful probe of the check finished (kept from the history): how long the check has been failing.',
    labelNames: ['target', 'check'],
    aggregator: 'max',
  },
  tlsCertExpiry: {
    name: 'flowgauge_probe_tls_cert_expiry_timestamp_seconds',
    type: 'gauge',
    help: "Unix time (seconds) the target's leaf certificate expires, as seen by the last probe of the check over TLS.",
    labelNames: ['target', 'check'],
    aggregator: 'min',
  },
} as const satisfies Record<string, MetricSpec>;

/**
 * What the probe daemon's blackbox-style `GET /probe?check=<name>` answers: the check run at the
 * scrape, in the blackbox exporter's names (so its alerts and dashboards read it), one series
 * each, labelled with the target and the check. Not in the history nor in the cumulative counters.
 */
export const PROBE_ENDPOINT_METRICS = {
  success: { name: 'probe_success', type: 'gauge', help: '1 when the check succeeded, 0 when it failed.', labelNames: ['target', 'check'] },
  duration: { name: 'probe_duration_seconds', type: 'gauge', help: 'How long the whole check took.', labelNames: ['target', 'check'] },
  httpStatus: { name: 'probe_http_status_code', type: 'gauge', help: "HTTP status of the check's request; 0 when no response arrived.", labelNames: ['target', 'check'] },
  httpDuration: {
    name: 'probe_http_duration_seconds',
    type: 'gauge',
    help: "Duration of each phase of the check's HTTP request: dns, connect, tls, ttfb (first byte), ttft (first token), total.",
    labelNames: ['target', 'check', 'phase'],
  },
  certExpiry: {
    name: 'probe_ssl_earliest_cert_expiry',
    type: 'gauge',
    help: 'Unix time (seconds) the leaf certificate the check saw expires (HTTPS targets only).',
    labelNames: ['target', 'check'],
  },
  tlsVersion: { name: 'probe_tls_version_info', type: 'gauge', help: 'TLS version the check negotiated (always 1).', labelNames: ['target', 'check', 'version'] },
} as const satisfies Record<string, MetricSpec>;

/** Every metric spec, for documentation and tests. */
export const ALL_METRICS: readonly MetricSpec[] = [
  ...Object.values(RUN_METRICS),
  ...Object.values(NOTIFICATION_METRICS),
  ...Object.values(JOURNEY_METRICS),
  ...Object.values(PROBE_METRICS),
];

/**
 * Default request-latency buckets (seconds). They include the usual latency objective
 * thresholds (0.1, 0.25, 0.5, 1, 2, 5 s) because a latency SLI reads the bucket whose `le`
 * equals the threshold.
 */
export const REQUEST_DURATION_BUCKETS_S: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 2.5, 3, 5, 10, 30, 60,
];
/** Default TTFT and time-to-start buckets (seconds). */
export const STREAM_TTFT_BUCKETS_S: readonly number[] = [
  0.01, 0.025, 0.05, 0.1, 0.2, 0.25, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30,
];
/** Default inter-token latency buckets (seconds). */
export const STREAM_ITL_BUCKETS_S: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2,
];
/** Default time-per-output-token buckets (seconds): the inter-token ones, TPOT being a mean gap. */
export const STREAM_TPOT_BUCKETS_S: readonly number[] = STREAM_ITL_BUCKETS_S;
/** Default output-tokens-per-second buckets (tokens/s, per stream): from a slow CPU model to a fast GPU one. */
export const STREAM_TOKENS_PER_S_BUCKETS: readonly number[] = [1, 2, 5, 10, 20, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1000, 2000, 5000];
/** Default probe phase buckets (seconds). */
export const PROBE_DURATION_BUCKETS_S: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 2.5, 5, 10, 30,
];

/** Merges extra bounds into default buckets: sorted, unique, positive and finite only. */
export function mergeBuckets(defaults: readonly number[], extra: readonly number[] = []): number[] {
  const all = [...defaults, ...extra].filter((b) => Number.isFinite(b) && b > 0);
  return [...new Set(all)].sort((a, b) => a - b);
}

/** Stream latency targets an objective can name besides an operation. */
export const STREAM_LATENCY_TARGETS = ['stream.ttft', 'stream.itl', 'stream.time_to_start'] as const;

/** What a latency objective measures: an operation's request latency, or a stream timing. */
export type LatencyTarget = OpName | (typeof STREAM_LATENCY_TARGETS)[number];

/** The histogram a latency target reads, its fixed label matchers, and its default buckets. */
export interface LatencyTargetMetric {
  readonly histogram: string;
  /** PromQL matchers without braces, e.g. `operation="run"`; empty for stream targets. */
  readonly matchers: string;
  readonly defaultBuckets: readonly number[];
}

/** True when `s` names a latency target. */
export function isLatencyTarget(s: string): s is LatencyTarget {
  return (OPS as readonly string[]).includes(s) || (STREAM_LATENCY_TARGETS as readonly string[]).includes(s);
}

/** Resolves a latency target to the histogram that measures it. */
export function latencyTargetMetric(target: LatencyTarget): LatencyTargetMetric {
  switch (target) {
    case 'stream.ttft':
      return { histogram: RUN_METRICS.streamTtft.name, matchers: '', defaultBuckets: STREAM_TTFT_BUCKETS_S };
    case 'stream.time_to_start':
      return { histogram: RUN_METRICS.streamTimeToStart.name, matchers: '', defaultBuckets: STREAM_TTFT_BUCKETS_S };
    case 'stream.itl':
      return { histogram: RUN_METRICS.streamItl.name, matchers: '', defaultBuckets: STREAM_ITL_BUCKETS_S };
    default:
      return {
        histogram: RUN_METRICS.requestDuration.name,
        matchers: `operation="${target}"`,
        defaultBuckets: REQUEST_DURATION_BUCKETS_S,
      };
  }
}

/**
 * Names of the recording rules (`generatePrometheusRules`), by window (`5m`, `30d`). Every
 * ratio keeps `target` (never summed across targets); the overall load ratios sum every tier of
 * a target, the `byTier` ones keep the `tier` label too.
 */
export const RECORDING_RULES = {
  /** SLI error ratio bad / (good + bad) per target, all tiers together. */
  sliErrorRatio: (window: string): string => `flowgauge:sli_error_ratio:rate${window}`,
  /** SLI error ratio per target and tier; the availability alerts read this one. */
  sliErrorRatioByTier: (window: string): string => `flowgauge:sli_error_ratio_by_tier:rate${window}`,
  /** Share of requests slower than a latency objective's threshold per target, all tiers together. */
  latencyErrorRatio: (window: string): string => `flowgauge:latency_error_ratio:rate${window}`,
  /** Share slower than the threshold, per target and tier; the latency alerts read this one. */
  latencyErrorRatioByTier: (window: string): string => `flowgauge:latency_error_ratio_by_tier:rate${window}`,
  /** Probe error ratio per target: probes that did not succeed / all probes, every check together. */
  probeErrorRatio: (window: string): string => `flowgauge:probe_error_ratio:rate${window}`,
  /** Probe error ratio per target and check; the uptime burn-rate alerts read this one. */
  probeErrorRatioByCheck: (window: string): string => `flowgauge:probe_error_ratio_by_check:rate${window}`,
} as const;

/**
 * The label every recorded SLI series carries, saying where its events came from: the uptime
 * probes (the service's objective; these page) or a load run (a test; these never page).
 */
export const SLI_SOURCE = { label: 'sli_source', probe: 'probe', load: 'load' } as const;

/** Alert names (`generatePrometheusRules`). */
export const ALERT_NAMES = {
  availability: 'FlowgaugeAvailabilityBudgetBurn',
  latency: 'FlowgaugeLatencyBudgetBurn',
  /** The probes' uptime objective burning (per check). */
  uptime: 'FlowgaugeUptimeBudgetBurn',
  /** Every probe of a check failing for a while: the target is down, the prober up. */
  probeDown: 'FlowgaugeProbeDown',
  /** A check's last probe too long ago: the prober (a pushing CronJob) stopped. */
  probeStale: 'FlowgaugeProbeStale',
  /** The probe daemon's scrape failing: the prober is dead and its series are gone. */
  proberDown: 'FlowgaugeProberDown',
  /** No pushed probe series at all: nothing pushes, or the Pushgateway lost them. */
  probeAbsent: 'FlowgaugeProbeAbsent',
  /** The target's certificate expires soon (a ticket). */
  certExpiry: 'FlowgaugeCertificateExpiry',
  /** The target negotiated TLS below 1.3 (a ticket). */
  tlsVersion: 'FlowgaugeTlsBelowTarget',
} as const;
