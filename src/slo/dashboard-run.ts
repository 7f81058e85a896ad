/**
 * The load-run dashboard: throughput, scheduled against achieved rate, latency from the intended
 * start and where it went (phases), streams, 429 behaviour, errors, and the journeys' iterations
 * and checks. Filtered by target, scenario, tier and shard (pushed, sharded runs); a run carries
 * no run id label (labels stay bounded), so each run is marked by an annotation instead. Every
 * figure is per target, never summed across targets: a staging load test and a production one
 * pushed into one Prometheus keep their own rates, latencies and ratios.
 */
import { aggregateBy, q, quantiles, rate, type AnnotationSpec, type DashboardSpec, type VariableSpec } from './dashboard-kit.js';
import { JOURNEY_METRICS, RUN_METRICS } from './metric-names.js';

/** Target, scenario, tier and shard matchers: the filters every load panel applies. */
export const RUN_MATCHERS = 'target=~"$target",scenario=~"$scenario",tier=~"$tier",shard=~"$shard"';

/**
 * The target, scenario, tier and shard variables. Requests carry each scenario's own name; the
 * run-wide series (scheduled, dropped, in flight) the run's, which in a run of several scenarios
 * is the plan's name: both are offered. shard exists only on series pushed by sharded runs, target
 * only on runs given a target name ("All" matches its absence).
 */
export function runVariables(): VariableSpec[] {
  const both = `__name__=~"${RUN_METRICS.requests.name}|${RUN_METRICS.scheduled.name}"`;
  return [
    { name: 'target', label: 'Target', metric: `{${both}}` },
    { name: 'scenario', label: 'Scenario', metric: `{${both},target=~"$target"}` },
    { name: 'tier', label: 'Tier', metric: `{${both},target=~"$target",scenario=~"$scenario"}` },
    { name: 'shard', label: 'Shard', metric: `{${both},target=~"$target",scenario=~"$scenario"}` },
  ];
}

/** Marks every load run: the steps where its scheduler was starting work. `matchers` filter the runs. */
export function loadRunAnnotation(matchers = RUN_MATCHERS): AnnotationSpec {
  return {
    name: 'Load runs',
    expr: `sum by (target, scenario, tier) (rate(${RUN_METRICS.scheduled.name}{${matchers}}[2m])) > 0`,
    title: 'load run {{scenario}} ({{tier}}) on {{target}}',
    tagKeys: 'target,scenario,tier',
    color: 'rgba(255, 152, 48, 0.4)',
  };
}

/** `sum by (target, …labels) (expr)`: never across targets. */
const sumT = (expr: string, ...labels: string[]): string => aggregateBy('sum', ['target', ...labels], expr);

/** The load-run dashboard's description. */
export function runDashboardSpec(): DashboardSpec {
  const m = RUN_METRICS;
  const j = JOURNEY_METRICS;
  const s = RUN_MATCHERS;
  const so = `${s},operation=~"$operation"`;
  const req = `${m.requests.name}{${so}}`;
  const sli = m.sliEvents.name;
  const scheduled = sumT(rate(`${m.scheduled.name}{${s}}`));
  const phaseMean = `${sumT(rate(`${m.requestPhase.name}_sum{${so}}`), 'phase')} / ${sumT(rate(`${m.requestPhase.name}_count{${so}}`), 'phase')}`;
  const inRange = (selector: string): string => sumT(`increase(${selector}[$__range])`);
  // A target with iterations or checks but none of this result reads 0, not "no data".
  const orZero = (part: string, whole: string): string => `${inRange(part)} or ${inRange(whole)} * 0`;
  const T = '{{target}}';
  return {
    uid: 'flowgauge-run',
    title: 'flowgauge — load run',
    description: 'Throughput, scheduled vs achieved rate, latency from the intended start and its phases, streams (TTFT, ITL, TPOT, output tokens/s), 429 behaviour, errors, journey iterations and checks of flowgauge load runs, per target.',
    variables: [...runVariables(), { name: 'operation', label: 'Operation', metric: `${m.requests.name}{target=~"$target",scenario=~"$scenario"}` }],
    annotations: [loadRunAnnotation()],
    panels: [
      { title: 'Request rate', type: 'stat', w: 6, unit: 'reqps', queries: [q(sumT(rate(req)), T)] },
      {
        title: 'Availability (time range)',
        type: 'stat',
        w: 6,
        unit: 'percentunit',
        thresholds: [[null, 'red'], [0.999, 'green']],
        queries: [q(`${inRange(`${sli}{${so},sli="good"}`)} / ${inRange(`${sli}{${so},sli=~"good|bad"}`)}`, T)],
      },
      { title: 'In flight', type: 'stat', w: 6, queries: [q(sumT(`${m.inFlight.name}{${s}}`), T)] },
      { title: 'Dropped starts (time range)', type: 'stat', w: 6, queries: [q(inRange(`${m.dropped.name}{${s}}`), T)] },
      {
        title: 'Scheduled vs achieved rate',
        type: 'timeseries',
        unit: 'ops',
        description:
          'Scheduled: starts the executor asked for. Started: scheduled minus dropped (the in-flight limit was reached). ' +
          'Completed: requests that finished. Started below scheduled means the client or the service could not keep up.',
        queries: [
          q(scheduled, `${T} scheduled/s`),
          q(`${scheduled} - ${sumT(rate(`${m.dropped.name}{${s}}`))}`, `${T} started/s`),
          q(sumT(rate(`${m.requests.name}{${s}}`)), `${T} requests completed/s`),
        ],
      },
      { title: 'Requests by outcome', type: 'timeseries', unit: 'reqps', queries: [q(sumT(rate(req), 'outcome'), `${T} {{outcome}}`)] },
      {
        title: 'Latency from intended start',
        type: 'timeseries',
        unit: 's',
        description: 'Measured from the scheduled start, so a stalled service shows here (no coordinated omission).',
        queries: quantiles(`${m.requestDuration.name}_bucket`, so, ['target']),
      },
      { title: 'p99 latency by operation', type: 'timeseries', unit: 's', queries: quantiles(`${m.requestDuration.name}_bucket`, so, ['target', 'operation']).slice(2) },
      {
        title: 'Where request time went (mean per phase)',
        type: 'timeseries',
        unit: 's',
        stack: true,
        description:
          'blocked: queued for a free connection in the client (high: the client pool was the limit); connect and tls: new connections; ' +
          'wait: request sent to response head (the service); receive: head to last byte. ' +
          'The stack adds up one request\'s time for one target: with several targets selected their stacks pile up, so choose one.',
        queries: [q(phaseMean, `${T} {{phase}}`)],
      },
      {
        title: 'Request phases (p90)',
        type: 'timeseries',
        unit: 's',
        queries: [q(`histogram_quantile(0.9, ${aggregateBy('sum', ['le', 'target', 'phase'], rate(`${m.requestPhase.name}_bucket{${so}}`))})`, `${T} {{phase}}`)],
      },
      { title: 'Stream time to first token', type: 'timeseries', unit: 's', queries: quantiles(`${m.streamTtft.name}_bucket`, s, ['target']) },
      { title: 'Stream inter-token latency', type: 'timeseries', unit: 's', queries: quantiles(`${m.streamItl.name}_bucket`, s, ['target']) },
      {
        title: 'Stream time per output token (TPOT)',
        type: 'timeseries',
        unit: 's',
        description: '(end − first token) / (tokens − 1) per stream; streams delivered in one read are left out, as they are of ITL and tokens/s.',
        queries: quantiles(`${m.streamTpot.name}_bucket`, s, ['target']),
      },
      {
        title: 'Stream output tokens per second (per stream)',
        type: 'timeseries',
        description: 'Tokens / (end − first token) of each completed stream (higher is better); the total token rate is in "Stream tokens and incomplete streams".',
        queries: quantiles(`${m.streamTokensPerSecond.name}_bucket`, s, ['target']),
      },
      { title: 'Stream time to start event', type: 'timeseries', unit: 's', queries: quantiles(`${m.streamTimeToStart.name}_bucket`, s, ['target']) },
      {
        title: '429s: expected vs premature, against request rate',
        type: 'timeseries',
        unit: 'reqps',
        description: 'Expected: the client was over the advertised limit (excluded from the SLI). Premature: under it (bad).',
        queries: [q(sumT(rate(`${m.rateLimited.name}{${so}}`), 'kind'), `${T} 429 {{kind}}`), q(sumT(rate(req)), `${T} all requests`)],
      },
      {
        title: 'Rate-limit headers',
        type: 'timeseries',
        queries: [
          q(aggregateBy('max', ['target', 'tier'], `${m.rateLimitRemaining.name}{${s}}`), `${T} remaining {{tier}}`),
          q(aggregateBy('max', ['target', 'tier'], `${m.rateLimitLimit.name}{${s}}`), `${T} limit {{tier}}`),
        ],
      },
      { title: 'Errors by code', type: 'timeseries', unit: 'reqps', queries: [q(sumT(rate(`${m.requests.name}{${so},code!="none"}`), 'code'), `${T} {{code}}`)] },
      {
        title: 'In flight and dropped',
        type: 'timeseries',
        queries: [q(sumT(`${m.inFlight.name}{${s}}`), `${T} in flight`), q(sumT(rate(`${m.dropped.name}{${s}}`)), `${T} dropped/s`)],
      },
      {
        title: 'Stream tokens and incomplete streams',
        type: 'timeseries',
        queries: [q(sumT(rate(`${m.streamTokens.name}{${s}}`)), `${T} tokens/s`), q(sumT(rate(`${m.streamIncomplete.name}{${s}}`)), `${T} incomplete streams/s`)],
      },
      {
        title: 'Contract violations by operation',
        type: 'timeseries',
        w: 24,
        queries: [q(sumT(rate(`${m.contractViolations.name}{${so}}`), 'operation'), `${T} {{operation}}`)],
      },
      { row: 'Journeys: iterations and checks (journey and steps scenarios only)' },
      {
        title: 'Checks passed (time range)',
        type: 'stat',
        w: 8,
        unit: 'percentunit',
        thresholds: [[null, 'red'], [0.99, 'green']],
        queries: [q(`(${orZero(`${j.checks.name}{${s},result="pass"}`, `${j.checks.name}{${s}}`)}) / ${inRange(`${j.checks.name}{${s}}`)}`, T)],
      },
      {
        title: 'Iterations completed (time range)',
        type: 'stat',
        w: 8,
        queries: [q(orZero(`${j.iterations.name}{${s},result="completed"}`, `${j.iterations.name}{${s}}`), T)],
      },
      {
        title: 'Iterations failed (time range)',
        type: 'stat',
        w: 8,
        thresholds: [[null, 'green'], [1, 'red']],
        queries: [q(orZero(`${j.iterations.name}{${s},result="failed"}`, `${j.iterations.name}{${s}}`), T)],
      },
      { title: 'Iterations by result', type: 'timeseries', unit: 'ops', queries: [q(sumT(rate(`${j.iterations.name}{${s}}`), 'result'), `${T} {{result}}`)] },
      { title: 'Checks by name and result', type: 'timeseries', unit: 'ops', queries: [q(sumT(rate(`${j.checks.name}{${s}}`), 'check', 'result'), `${T} {{check}} {{result}}`)] },
    ],
  };
}
