/**
 * The load-run dashboard: throughput, scheduled against achieved rate, latency from the intended
 * start and where it went (phases), streams, 429 behaviour, errors, and the journeys' iterations
 * and checks. Filtered by scenario, tier and shard (pushed, sharded runs); a run carries no run
 * id label (labels stay bounded), so each run is marked by an annotation instead.
 */
import { q, quantiles, rate, type AnnotationSpec, type DashboardSpec, type VariableSpec } from './dashboard-kit.js';
import { JOURNEY_METRICS, RUN_METRICS } from './metric-names.js';

/** Scenario, tier and shard matchers: the filters every load panel applies. */
export const RUN_MATCHERS = 'scenario=~"$scenario",tier=~"$tier",shard=~"$shard"';

/**
 * The scenario, tier and shard variables. Requests carry each scenario's own name; the run-wide
 * series (scheduled, dropped, in flight) the run's, which in a run of several scenarios is the
 * plan's name: both are offered. shard exists only on series pushed by sharded runs ("All"
 * matches its absence).
 */
export function runVariables(): VariableSpec[] {
  const both = `__name__=~"${RUN_METRICS.requests.name}|${RUN_METRICS.scheduled.name}"`;
  return [
    { name: 'scenario', label: 'Scenario', metric: `{${both}}` },
    { name: 'tier', label: 'Tier', metric: `{${both},scenario=~"$scenario"}` },
    { name: 'shard', label: 'Shard', metric: `{${both},scenario=~"$scenario"}` },
  ];
}

/** Marks every load run: the steps where its scheduler was starting work. `matchers` filter the runs. */
export function loadRunAnnotation(matchers = RUN_MATCHERS): AnnotationSpec {
  return {
    name: 'Load runs',
    expr: `sum by (scenario, tier) (rate(${RUN_METRICS.scheduled.name}{${matchers}}[2m])) > 0`,
    title: 'load run {{scenario}} ({{tier}})',
    tagKeys: 'scenario,tier',
    color: 'rgba(255, 152, 48, 0.4)',
  };
}

/** The load-run dashboard's description. */
export function runDashboardSpec(): DashboardSpec {
  const m = RUN_METRICS;
  const j = JOURNEY_METRICS;
  const s = RUN_MATCHERS;
  const so = `${s},operation=~"$operation"`;
  const req = `${m.requests.name}{${so}}`;
  const sli = m.sliEvents.name;
  const scheduled = `sum(${rate(`${m.scheduled.name}{${s}}`)})`;
  const phaseMean = `sum by (phase) (${rate(`${m.requestPhase.name}_sum{${so}}`)}) / sum by (phase) (${rate(`${m.requestPhase.name}_count{${so}}`)})`;
  return {
    uid: 'flowgauge-run',
    title: 'flowgauge — load run',
    description: 'Throughput, scheduled vs achieved rate, latency from the intended start and its phases, streams (TTFT, ITL, TPOT, output tokens/s), 429 behaviour, errors, journey iterations and checks of flowgauge load runs.',
    variables: [...runVariables(), { name: 'operation', label: 'Operation', metric: `${m.requests.name}{scenario=~"$scenario"}` }],
    annotations: [loadRunAnnotation()],
    panels: [
      { title: 'Request rate', type: 'stat', w: 6, unit: 'reqps', queries: [q(`sum(${rate(req)})`)] },
      {
        title: 'Availability (time range)',
        type: 'stat',
        w: 6,
        unit: 'percentunit',
        thresholds: [[null, 'red'], [0.999, 'green']],
        queries: [q(`sum(increase(${sli}{${so},sli="good"}[$__range])) / sum(increase(${sli}{${so},sli=~"good|bad"}[$__range]))`)],
      },
      { title: 'In flight', type: 'stat', w: 6, queries: [q(`sum(${m.inFlight.name}{${s}})`)] },
      { title: 'Dropped starts (time range)', type: 'stat', w: 6, queries: [q(`sum(increase(${m.dropped.name}{${s}}[$__range]))`)] },
      {
        title: 'Scheduled vs achieved rate',
        type: 'timeseries',
        unit: 'ops',
        description:
          'Scheduled: starts the executor asked for. Started: scheduled minus dropped (the in-flight limit was reached). ' +
          'Completed: requests that finished. Started below scheduled means the client or the service could not keep up.',
        queries: [
          q(scheduled, 'scheduled/s'),
          q(`${scheduled} - sum(${rate(`${m.dropped.name}{${s}}`)})`, 'started/s'),
          q(`sum(${rate(`${m.requests.name}{${s}}`)})`, 'requests completed/s'),
        ],
      },
      { title: 'Requests by outcome', type: 'timeseries', unit: 'reqps', queries: [q(`sum by (outcome) (${rate(req)})`, '{{outcome}}')] },
      {
        title: 'Latency from intended start',
        type: 'timeseries',
        unit: 's',
        description: 'Measured from the scheduled start, so a stalled service shows here (no coordinated omission).',
        queries: quantiles(`${m.requestDuration.name}_bucket`, so),
      },
      { title: 'p99 latency by operation', type: 'timeseries', unit: 's', queries: quantiles(`${m.requestDuration.name}_bucket`, so, ', operation').slice(2) },
      {
        title: 'Where request time went (mean per phase)',
        type: 'timeseries',
        unit: 's',
        stack: true,
        description:
          'blocked: queued for a free connection in the client (high: the client pool was the limit); connect and tls: new connections; ' +
          'wait: request sent to response head (the service); receive: head to last byte.',
        queries: [q(phaseMean, '{{phase}}')],
      },
      {
        title: 'Request phases (p90)',
        type: 'timeseries',
        unit: 's',
        queries: [q(`histogram_quantile(0.9, sum by (le, phase) (${rate(`${m.requestPhase.name}_bucket{${so}}`)}))`, '{{phase}}')],
      },
      { title: 'Stream time to first token', type: 'timeseries', unit: 's', queries: quantiles(`${m.streamTtft.name}_bucket`, s) },
      { title: 'Stream inter-token latency', type: 'timeseries', unit: 's', queries: quantiles(`${m.streamItl.name}_bucket`, s) },
      {
        title: 'Stream time per output token (TPOT)',
        type: 'timeseries',
        unit: 's',
        description: '(end − first token) / (tokens − 1) per stream; streams delivered in one read are left out, as they are of ITL and tokens/s.',
        queries: quantiles(`${m.streamTpot.name}_bucket`, s),
      },
      {
        title: 'Stream output tokens per second (per stream)',
        type: 'timeseries',
        description: 'Tokens / (end − first token) of each completed stream (higher is better); the total token rate is in "Stream tokens and incomplete streams".',
        queries: quantiles(`${m.streamTokensPerSecond.name}_bucket`, s),
      },
      { title: 'Stream time to start event', type: 'timeseries', unit: 's', queries: quantiles(`${m.streamTimeToStart.name}_bucket`, s) },
      {
        title: '429s: expected vs premature, against request rate',
        type: 'timeseries',
        unit: 'reqps',
        description: 'Expected: the client was over the advertised limit (excluded from the SLI). Premature: under it (bad).',
        queries: [q(`sum by (kind) (${rate(`${m.rateLimited.name}{${so}}`)})`, '429 {{kind}}'), q(`sum(${rate(req)})`, 'all requests')],
      },
      {
        title: 'Rate-limit headers',
        type: 'timeseries',
        queries: [q(`max by (tier) (${m.rateLimitRemaining.name}{${s}})`, 'remaining {{tier}}'), q(`max by (tier) (${m.rateLimitLimit.name}{${s}})`, 'limit {{tier}}')],
      },
      { title: 'Errors by code', type: 'timeseries', unit: 'reqps', queries: [q(`sum by (code) (${rate(`${m.requests.name}{${so},code!="none"}`)})`, '{{code}}')] },
      {
        title: 'In flight and dropped',
        type: 'timeseries',
        queries: [q(`sum(${m.inFlight.name}{${s}})`, 'in flight'), q(`sum(${rate(`${m.dropped.name}{${s}}`)})`, 'dropped/s')],
      },
      {
        title: 'Stream tokens and incomplete streams',
        type: 'timeseries',
        queries: [q(`sum(${rate(`${m.streamTokens.name}{${s}}`)})`, 'tokens/s'), q(`sum(${rate(`${m.streamIncomplete.name}{${s}}`)})`, 'incomplete streams/s')],
      },
      {
        title: 'Contract violations by operation',
        type: 'timeseries',
        w: 24,
        queries: [q(`sum by (operation) (${rate(`${m.contractViolations.name}{${so}}`)})`, '{{operation}}')],
      },
      { row: 'Journeys: iterations and checks (journey and steps scenarios only)' },
      {
        title: 'Checks passed (time range)',
        type: 'stat',
        w: 8,
        unit: 'percentunit',
        thresholds: [[null, 'red'], [0.99, 'green']],
        queries: [q(`(sum(increase(${j.checks.name}{${s},result="pass"}[$__range])) or vector(0)) / sum(increase(${j.checks.name}{${s}}[$__range]))`)],
      },
      {
        title: 'Iterations completed (time range)',
        type: 'stat',
        w: 8,
        queries: [q(`sum(increase(${j.iterations.name}{${s},result="completed"}[$__range])) or vector(0)`)],
      },
      {
        title: 'Iterations failed (time range)',
        type: 'stat',
        w: 8,
        thresholds: [[null, 'green'], [1, 'red']],
        queries: [q(`sum(increase(${j.iterations.name}{${s},result="failed"}[$__range])) or vector(0)`)],
      },
      { title: 'Iterations by result', type: 'timeseries', unit: 'ops', queries: [q(`sum by (result) (${rate(`${j.iterations.name}{${s}}`)})`, '{{result}}')] },
      { title: 'Checks by name and result', type: 'timeseries', unit: 'ops', queries: [q(`sum by (check, result) (${rate(`${j.checks.name}{${s}}`)})`, '{{check}} {{result}}')] },
    ],
  };
}
