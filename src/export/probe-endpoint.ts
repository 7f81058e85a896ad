/**
 * The answer of the probe daemon's blackbox-style `GET /probe?check=<name>`: the check run at
 * the scrape, as the blackbox exporter's gauges (`probe_success`, `probe_duration_seconds`, …)
 * in a registry of its own, so nothing of it lands in the cumulative counters or the history
 * (a scrape every 15 s would otherwise count as probes the schedule never made).
 */
import type { Gauge } from 'prom-client';
import { promClient } from './prom-client-module.js';
import { PROBE_ENDPOINT_METRICS } from '../slo/metric-names.js';
import type { RouteAnswer } from './metrics-server.js';
import type { ProbeResult } from './probe-metrics.js';

/** What one check run for `/probe` found. */
export interface ProbeEndpointResult extends ProbeResult {
  /** HTTP status of the check's request; 0 when no response arrived. */
  readonly status: number;
}

const TEXT = 'text/plain; charset=utf-8';

/** The exposition of one check's result, labelled with the probe's target and the check. */
export async function renderProbeAnswer(target: string, check: string, r: ProbeEndpointResult): Promise<RouteAnswer> {
  const { Gauge, Registry } = promClient();
  const registry = new Registry();
  const m = PROBE_ENDPOINT_METRICS;
  const gauge = (s: { name: string; help: string; labelNames: readonly string[] }): Gauge =>
    new Gauge({ name: s.name, help: s.help, labelNames: [...s.labelNames], registers: [registry] });
  gauge(m.success).labels(target, check).set(r.success ? 1 : 0);
  if (r.durationS !== undefined) gauge(m.duration).labels(target, check).set(r.durationS);
  gauge(m.httpStatus).labels(target, check).set(r.status);
  const phases = gauge(m.httpDuration);
  const p = r.phases;
  for (const [phase, s] of [['dns', p.dns], ['connect', p.connect], ['tls', p.tls], ['ttfb', p.ttfb], ['ttft', r.ttftS], ['total', p.total]] as const) {
    if (s !== undefined && Number.isFinite(s)) phases.labels(target, check, phase).set(s);
  }
  if (r.certExpiryS !== undefined) gauge(m.certExpiry).labels(target, check).set(r.certExpiryS);
  if (r.tlsVersion !== undefined) gauge(m.tlsVersion).labels(target, check, r.tlsVersion).set(1);
  return { status: 200, contentType: registry.contentType, body: await registry.metrics() };
}

/** The 400 of a `/probe` request naming no check, or one the probe does not run. */
export function unknownCheckAnswer(given: string | null, allowed: readonly string[]): RouteAnswer {
  const what = given === null || given === '' ? 'no check given' : `unknown check "${given}"`;
  return { status: 400, contentType: TEXT, body: `${what}: use /probe?check=<name> with one of ${allowed.join(', ')}\n` };
}
