/**
 * Options of the Prometheus SLO rules (and of the dashboards that query them), validated once,
 * and the rule-file shapes. Shared by the probe rules, the load rules and the file writers, so
 * none of them imports another.
 */
import { InvalidArgumentError } from '../core/errors.js';
import { parseDurationMs } from '../core/units.js';
import { isLatencyTarget, latencyTargetMetric, type LatencyTarget } from './metric-names.js';

/** A latency objective: `objective` of `operation`'s requests finish within `thresholdS`. */
export interface LatencyObjective {
  /** An operation name (`run`, `getRun`, …) or a stream timing (`stream.ttft`, `stream.itl`, `stream.time_to_start`). */
  readonly operation: string;
  readonly thresholdS: number;
  /** Ratio 0–1, e.g. 0.99. */
  readonly objective: number;
}

/** Options of `generatePrometheusRules` (and of the dashboards, which query the rules). */
export interface SloRuleOptions {
  /** Availability objective as a ratio, e.g. 0.999: the probes' uptime objective, and the load runs'. */
  readonly objective: number;
  /** SLO period as a Prometheus duration, e.g. `30d`. */
  readonly period: string;
  /** Latency objectives of load runs (recorded; alerts only with `loadAlerts`). */
  readonly latencyObjectives?: readonly LatencyObjective[];
  /** How often the probe runs (`--interval`, the CronJob schedule); stale after twice this. Default `1m`. */
  readonly probeInterval?: string;
  /** How long every probe of a check must fail before `FlowgaugeProbeDown`. Default `5m`. */
  readonly probeDownFor?: string;
  /** Certificate expiry warning (a ticket) when fewer than this are left. Default `14d`. */
  readonly certExpiryWarning?: string;
  /**
   * Certificate expiry critical (a page) when fewer than this are left. Default none: an
   * expiring certificate is a ticket, and one that expired fails the checks (`TLS_ERROR`), which
   * pages as downtime.
   */
  readonly certExpiryCritical?: string;
  /**
   * The `job` Prometheus scrapes the probe daemon's /metrics under (its `job_name`, or the
   * Service's name with a ServiceMonitor): `FlowgaugeProberDown` pages when it is down. Default
   * `flowgauge-probe`; '' leaves the alert out.
   */
  readonly probeScrapeJob?: string;
  /**
   * The `job` the probe CronJob pushes under (`flowgauge_probe`): `FlowgaugeProbeAbsent` pages
   * when its probe series, there within the day, are gone. Default `flowgauge_probe`; '' leaves
   * the alert out.
   */
  readonly probePushJob?: string;
  /**
   * Burn-rate alerts on the load-run SLI series too, at `severity: info`. Off by default: a load
   * test drives the service hard on purpose and its verdict is the report's thresholds, not a page.
   */
  readonly loadAlerts?: boolean;
}

/** Options validated once: durations normalised, latency targets resolved. */
export interface ResolvedSloRuleOptions {
  readonly objective: number;
  /** Error budget as a ratio: 1 − objective. */
  readonly budget: number;
  /** Normalised Prometheus duration (`30d`, `12h`). */
  readonly period: string;
  readonly periodMs: number;
  /** Every window a ratio is recorded over, shortest first, the period last. */
  readonly windows: readonly string[];
  readonly latencyObjectives: readonly ResolvedLatencyObjective[];
  readonly probeIntervalS: number;
  /** Normalised duration, e.g. `5m`. */
  readonly probeDownFor: string;
  readonly certExpiryWarningS: number;
  /** Undefined: no critical row (the default). */
  readonly certExpiryCriticalS: number | undefined;
  /** '' when the alert is left out. */
  readonly probeScrapeJob: string;
  /** '' when the alert is left out. */
  readonly probePushJob: string;
  readonly loadAlerts: boolean;
}

/** A latency objective with its histogram resolved. */
export interface ResolvedLatencyObjective {
  readonly target: LatencyTarget;
  readonly thresholdS: number;
  readonly objective: number;
  readonly budget: number;
  /**
   * Label values the latency rules carry: `{ operation, threshold_seconds }`. Not `target`: the
   * recorded series keep the run's `target` (`--target-name`), which names the service.
   */
  readonly labels: { readonly operation: string; readonly threshold_seconds: string };
}

/** A recording rule. */
export interface RecordingRule {
  record: string;
  expr: string;
  labels?: Record<string, string>;
}

/** An alerting rule. */
export interface AlertingRule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** A rule group of a Prometheus rule file. */
export interface RuleGroup {
  name: string;
  rules: (RecordingRule | AlertingRule)[];
}

/** A Prometheus rule file (`groups:`), ready for YAML. */
export interface RuleFile {
  groups: RuleGroup[];
}

/** Windows the SLI ratios are recorded over (the period is added). */
export const SLO_WINDOWS = ['5m', '30m', '1h', '2h', '6h', '1d', '3d'] as const;

/** Defaults of the probe alerts. */
export const PROBE_ALERT_DEFAULTS = {
  probeInterval: '1m',
  probeDownFor: '5m',
  certExpiryWarning: '14d',
  probeScrapeJob: 'flowgauge-probe',
  probePushJob: 'flowgauge_probe',
} as const;

/** How long the probe daemon's scrape must fail before `FlowgaugeProberDown` pages. */
export const PROBER_DOWN_FOR = '3m';

/** How long the pushed probe series must be missing before `FlowgaugeProbeAbsent` pages. */
export const PROBE_ABSENT_FOR = '5m';

/** How far back `FlowgaugeProbeAbsent` looks for pushed series that were there (and are gone). */
export const PROBE_ABSENT_MEMORY = '1d';

const JOB_NAME = /^[A-Za-z0-9_.:-]*$/;

/** Trims binary-float noise (1 − 0.999 = 0.0010000000000000009) for rule text. */
export function formatNumber(x: number): string {
  return String(Number(x.toPrecision(12)));
}

/** Formats ms as the shortest exact Prometheus duration (`30d`, `36h`, `90s`). */
export function formatPromDuration(ms: number): string {
  const units: [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ];
  for (const [u, f] of units) if (ms % f === 0) return `${ms / f}${u}`;
  return `${ms}ms`;
}

/** A whole number of seconds, at least `minS`; `what` names the option in the error. */
function wholeSeconds(what: string, value: string, minS: number): number {
  const ms = parseDurationMs(value);
  if (typeof value !== 'string' || ms === undefined || ms % 1000 !== 0 || ms / 1000 < minS) {
    throw new InvalidArgumentError(`${what} must be a whole duration of at least ${formatPromDuration(minS * 1000)} such as "1m" or "14d", got "${value}"`);
  }
  return ms / 1000;
}

/** A job label value a matcher can quote as it is; '' leaves its alert out. */
function jobName(what: string, value: string): string {
  if (typeof value !== 'string' || !JOB_NAME.test(value) || value.length > 100) {
    throw new InvalidArgumentError(`${what} must be a Prometheus job name of letters, digits, '_', '.', ':' and '-' (or '' to leave its alert out), got "${String(value)}"`);
  }
  return value;
}

/** Validates and normalises rule options; throws `InvalidArgumentError` naming what is allowed. */
export function resolveSloRuleOptions(options: SloRuleOptions): ResolvedSloRuleOptions {
  const { objective } = options;
  if (!(objective > 0 && objective < 1)) {
    throw new InvalidArgumentError(`objective must be a ratio strictly between 0 and 1 (e.g. 0.999), got ${objective}`);
  }
  const periodMs = parseDurationMs(options.period);
  if (typeof options.period !== 'string' || periodMs === undefined || periodMs < 3_600_000 || periodMs % 1000 !== 0) {
    throw new InvalidArgumentError(`period must be a whole duration of at least 1h such as "30d" or "28d", got "${options.period}"`);
  }
  const period = formatPromDuration(periodMs);
  const windows = [...SLO_WINDOWS.filter((w) => parseDurationMs(w) !== periodMs), period];
  const latencyObjectives = (options.latencyObjectives ?? []).map((o): ResolvedLatencyObjective => {
    if (!isLatencyTarget(o.operation)) {
      throw new InvalidArgumentError(
        `latency objective target "${o.operation}" is not an operation name or one of stream.ttft, stream.itl, stream.time_to_start`,
      );
    }
    if (!(o.thresholdS > 0 && Number.isFinite(o.thresholdS))) {
      throw new InvalidArgumentError(`latency threshold of "${o.operation}" must be a positive number of seconds`);
    }
    if (!(o.objective > 0 && o.objective < 1)) {
      throw new InvalidArgumentError(`latency objective of "${o.operation}" must be a ratio strictly between 0 and 1`);
    }
    return {
      target: o.operation,
      thresholdS: o.thresholdS,
      objective: o.objective,
      budget: Number((1 - o.objective).toPrecision(12)),
      labels: { operation: o.operation, threshold_seconds: formatNumber(o.thresholdS) },
    };
  });
  const seen = new Set<string>();
  for (const o of latencyObjectives) {
    const key = `${o.labels.operation}@${o.labels.threshold_seconds}`;
    if (seen.has(key)) throw new InvalidArgumentError(`latency objective ${key} is given twice`);
    seen.add(key);
  }
  const d = PROBE_ALERT_DEFAULTS;
  const probeIntervalS = wholeSeconds('probe interval', options.probeInterval ?? d.probeInterval, 1);
  const probeDownForS = wholeSeconds('probe down duration', options.probeDownFor ?? d.probeDownFor, 60);
  const certExpiryWarningS = wholeSeconds('certificate expiry warning', options.certExpiryWarning ?? d.certExpiryWarning, 3600);
  const certExpiryCriticalS = options.certExpiryCritical === undefined ? undefined : wholeSeconds('certificate expiry critical', options.certExpiryCritical, 3600);
  if (certExpiryCriticalS !== undefined && certExpiryCriticalS >= certExpiryWarningS) {
    throw new InvalidArgumentError(
      `certificate expiry critical (${formatPromDuration(certExpiryCriticalS * 1000)}) must be shorter than the warning (${formatPromDuration(certExpiryWarningS * 1000)})`,
    );
  }
  return {
    objective,
    budget: Number((1 - objective).toPrecision(12)),
    period,
    periodMs,
    windows,
    latencyObjectives,
    probeIntervalS,
    probeDownFor: formatPromDuration(probeDownForS * 1000),
    certExpiryWarningS,
    certExpiryCriticalS,
    probeScrapeJob: jobName('probe scrape job', options.probeScrapeJob ?? d.probeScrapeJob),
    probePushJob: jobName('probe push job', options.probePushJob ?? d.probePushJob),
    loadAlerts: options.loadAlerts === true,
  };
}

/**
 * Latency objectives whose threshold is not a default bucket bound of their histogram. Their
 * rules only work when the run adds the threshold to its buckets (`latencyBucketsS`).
 */
export function thresholdsOutsideDefaultBuckets(objectives: readonly ResolvedLatencyObjective[]): ResolvedLatencyObjective[] {
  return objectives.filter((o) => !latencyTargetMetric(o.target).defaultBuckets.includes(o.thresholdS));
}
