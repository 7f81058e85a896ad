/**
 * Prometheus metrics of uptime probes: the last result per check, counts by result, and
 * duration per phase. A probe runs every few seconds at most, so no caching is needed here.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { InvalidArgumentError } from '../core/errors.js';
import { PROBE_DURATION_BUCKETS_S, PROBE_METRICS } from '../slo/metric-names.js';

/** Durations of one probe's phases, in seconds; absent when the phase did not happen. */
export interface ProbePhases {
  /** Name resolution (absent for IP literals). */
  readonly dns?: number;
  readonly connect?: number;
  readonly tls?: number;
  /** Time to the first response byte. */
  readonly ttfb?: number;
  /** The whole HTTP request. */
  readonly total: number;
}

/** What one probe of a check found. */
export interface ProbeResult {
  readonly success: boolean;
  /** The whole check, which may span several requests (observed as phase `check`). */
  readonly durationS: number;
  readonly phases: ProbePhases;
  /** Time to the first token event, for stream checks. */
  readonly ttftS?: number;
  /** Negotiated TLS version (`TLSv1.3`), for HTTPS targets. */
  readonly tlsVersion?: string;
}

/** Probe metrics in one registry. */
export interface ProbeMetrics {
  readonly registry: Registry;
  /** Records one probe of `check` (a short configured name, a bounded label). */
  record(check: string, result: ProbeResult): void;
}

/** Creates and registers the probe metrics. */
export function createProbeMetrics(options: { registry?: Registry } = {}): ProbeMetrics {
  const registry = options.registry ?? new Registry();
  const p = PROBE_METRICS;
  const success = new Gauge({ name: p.success.name, help: p.success.help, labelNames: [...p.success.labelNames], registers: [registry] });
  const total = new Counter({ name: p.total.name, help: p.total.help, labelNames: [...p.total.labelNames], registers: [registry] });
  const duration = new Histogram({
    name: p.duration.name,
    help: p.duration.help,
    labelNames: [...p.duration.labelNames],
    buckets: [...PROBE_DURATION_BUCKETS_S],
    registers: [registry],
  });
  const tls = new Gauge({ name: p.tlsVersion.name, help: p.tlsVersion.help, labelNames: [...p.tlsVersion.labelNames], registers: [registry] });
  const seen = new Set<string>();
  const lastTls = new Map<string, string>();

  const observe = (check: string, phase: string, s: number | undefined): void => {
    if (s !== undefined && Number.isFinite(s) && s >= 0) duration.labels(check, phase).observe(s);
  };

  return {
    registry,
    record(check, r) {
      if (typeof check !== 'string' || check === '') throw new InvalidArgumentError('probe check name must be a non-empty string');
      if (!seen.has(check)) {
        // Both results exist from the first probe on, so a failure ratio reads 0, not "no data".
        total.labels(check, 'success').inc(0);
        total.labels(check, 'failure').inc(0);
        seen.add(check);
      }
      success.labels(check).set(r.success ? 1 : 0);
      total.labels(check, r.success ? 'success' : 'failure').inc();
      observe(check, 'dns', r.phases.dns);
      observe(check, 'connect', r.phases.connect);
      observe(check, 'tls', r.phases.tls);
      observe(check, 'ttfb', r.phases.ttfb);
      observe(check, 'ttft', r.ttftS);
      observe(check, 'total', r.phases.total);
      observe(check, 'check', r.durationS);
      if (r.tlsVersion !== undefined && r.tlsVersion !== '') {
        const prev = lastTls.get(check);
        // An info metric: only the current version's series exists, always 1.
        if (prev !== undefined && prev !== r.tlsVersion) tls.remove(check, prev);
        tls.labels(check, r.tlsVersion).set(1);
        lastTls.set(check, r.tlsVersion);
      }
    },
  };
}
