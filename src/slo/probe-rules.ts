/**
 * Rules on the uptime probes: the service's availability objective (99.9 % by default) as
 * Prometheus sees it, per target (`--target-name`) and check, labelled `sli_source="probe"`.
 * Good = `result="success"` of the cumulative `flowgauge_probe_total`; anything else is bad.
 *
 * What pages (`severity: critical`) and what is a ticket (`warning`):
 * - the target down while the prober runs: burn-rate alerts per target and check, and
 *   `FlowgaugeProbeDown` (every probe of a check failing);
 * - the prober dead, three ways: the scraped daemon's scrape failing (`FlowgaugeProberDown`,
 *   `up == 0`: its series vanish, so no probe rule can see it), a pushing CronJob stopped
 *   (`FlowgaugeProbeStale`: the Pushgateway keeps the last push, whose last-run time ages), and
 *   the pushed series gone (`FlowgaugeProbeAbsent`: a Pushgateway restarted without
 *   persistence, a deleted group, where no last-run time is left to age);
 * - findings that are not downtime, as tickets: a certificate near expiry and TLS below 1.3.
 */
import { burnAlerts } from './burn-alerts.js';
import { ALERT_NAMES, PROBE_METRICS, RECORDING_RULES, SLI_SOURCE } from './metric-names.js';
import { formatPromDuration, PROBE_ABSENT_FOR, PROBE_ABSENT_MEMORY, PROBER_DOWN_FOR, type AlertingRule, type RecordingRule, type ResolvedSloRuleOptions } from './rule-options.js';

const SOURCE = { [SLI_SOURCE.label]: SLI_SOURCE.probe };

/** failed / all probes; a check without failures reads 0, not "no data". */
function probeErrorRatioExpr(window: string, by: string): string {
  const m = PROBE_METRICS.total.name;
  const agg = `sum by (${by})`;
  const bad = `${agg} (rate(${m}{result!="success"}[${window}]))`;
  const good = `${agg} (rate(${m}{result="success"}[${window}]))`;
  const all = `${agg} (rate(${m}[${window}]))`;
  return `(${bad} or ${good} * 0) / ${all}`;
}

/**
 * Recording rules of the probe SLI, per window: per target (every check together), and per
 * target and check. Never across targets: staging's outage is not production's.
 */
export function probeRecordingRules(r: ResolvedSloRuleOptions): RecordingRule[] {
  return r.windows.flatMap((w) => [
    { record: RECORDING_RULES.probeErrorRatio(w), expr: probeErrorRatioExpr(w, 'target'), labels: { ...SOURCE } },
    { record: RECORDING_RULES.probeErrorRatioByCheck(w), expr: probeErrorRatioExpr(w, 'target, check'), labels: { ...SOURCE } },
  ]);
}

const OF = 'check {{ $labels.check }} of target {{ $labels.target }}';

/** The prober's own alerts: dead daemon, stopped CronJob, vanished pushed series. */
function proberAlerts(r: ResolvedSloRuleOptions): AlertingRule[] {
  const p = PROBE_METRICS;
  const staleS = 2 * r.probeIntervalS;
  const interval = formatPromDuration(r.probeIntervalS * 1000);
  const page = { severity: 'critical', ...SOURCE };
  const out: AlertingRule[] = [
    {
      alert: ALERT_NAMES.probeStale,
      expr: `time() - ${p.lastRun.name} > ${staleS}`,
      labels: { ...page },
      annotations: {
        summary: `No probe of ${OF} has run for {{ $value | humanizeDuration }}`,
        description:
          `The last probe of ${OF} finished {{ $value | humanizeDuration }} ago; probes should run every ${interval} ` +
          `and the check is stale after ${formatPromDuration(staleS * 1000)}. The prober stopped (a pushing CronJob suspended or failing, a daemon ` +
          `whose rounds hang; a scraped daemon that died is ${ALERT_NAMES.proberDown}): until it runs again, nothing watches the service and the uptime rules read old data.`,
        runbook:
          'A pushing CronJob: `kubectl get cronjob flowgauge-probe` (suspended? last schedule?) and the logs of its last pods ' +
          '(`kubectl logs job/<last job>`): a failed pod says why (2 bad flags, 3 unreachable, 70 could not store the history, 76 wrong --base-url path). ' +
          'A systemd timer: `systemctl list-timers flowgauge-probe.timer`, `journalctl -u flowgauge-probe.service`. ' +
          'A target retired on purpose: delete its Pushgateway group (`curl -X DELETE <pushgateway>/metrics/job/flowgauge_probe/target/<name>`), which keeps the last push for ever.',
      },
    },
  ];
  if (r.probeScrapeJob !== '') {
    out.push({
      alert: ALERT_NAMES.proberDown,
      expr: `up{job="${r.probeScrapeJob}"} == 0`,
      for: PROBER_DOWN_FOR,
      labels: { ...page },
      annotations: {
        summary: `The probe daemon {{ $labels.instance }} (job ${r.probeScrapeJob}) has not answered a scrape for ${PROBER_DOWN_FOR}`,
        description:
          `Prometheus cannot scrape the probe daemon at {{ $labels.instance }}: its flowgauge_probe_* series are gone, so no probe rule ` +
          '(uptime, probe down, stale) can fire, and nothing watches the service. Its history keeps what it recorded; the outage of the prober is not counted as downtime.',
        runbook:
          '`kubectl get pods -l app.kubernetes.io/component=probe-daemon` (CrashLoopBackOff? OOMKilled? Pending on its volume?), ' +
          '`kubectl logs deploy/flowgauge-probe --previous`; exit 2 means bad flags, 70 a history it cannot write. ' +
          'Restarted, it continues its counters and open incidents from the history.',
      },
    });
  }
  if (r.probePushJob !== '') {
    const pushed = `${p.lastRun.name}{job="${r.probePushJob}"}`;
    out.push({
      alert: ALERT_NAMES.probeAbsent,
      // Only once some were pushed (within the day): a setup that scrapes and never pushes is not paged.
      expr: `absent(${pushed}) and on () count(max_over_time(${pushed}[${PROBE_ABSENT_MEMORY}]))`,
      for: PROBE_ABSENT_FOR,
      labels: { ...page },
      annotations: {
        summary: `No pushed probe series (job ${r.probePushJob}) for ${PROBE_ABSENT_FOR}`,
        description:
          `Prometheus had pushed probe series (${pushed}) within the last ${PROBE_ABSENT_MEMORY} and has none now: the Pushgateway ` +
          `lost its groups (restarted without --persistence.file, groups deleted) or is no longer scraped, and no CronJob has pushed since. ` +
          `${ALERT_NAMES.probeStale} cannot see this: there is no last-run time left to age. It resolves a ${PROBE_ABSENT_MEMORY} after the last series, or when a push arrives.`,
        runbook:
          'Is the Pushgateway up and scraped with honor_labels (`up{job=~".*pushgateway.*"}`)? Does the CronJob run (`kubectl get cronjob flowgauge-probe`) ' +
          'and push (its log warns when a push was not delivered)?',
      },
    });
  }
  return out;
}

/** Findings that are not downtime, as tickets: the certificate and the TLS version. */
function findingAlerts(r: ResolvedSloRuleOptions): AlertingRule[] {
  const p = PROBE_METRICS;
  const left = `${p.tlsCertExpiry.name} - time()`;
  const crit = r.certExpiryCriticalS;
  const cert = (severity: string, expr: string, within: string): AlertingRule => ({
    alert: ALERT_NAMES.certExpiry,
    expr,
    labels: { severity, ...SOURCE },
    annotations: {
      summary: `The certificate of target {{ $labels.target }} (check {{ $labels.check }}) expires in {{ $value | humanizeDuration }}`,
      description:
        `The leaf certificate the probe of ${OF} was served expires within ${within} ` +
        `(${p.tlsCertExpiry.name}). Renew it: clients refuse an expired certificate, which is an outage. ` +
        'Until then the service answers and uptime is not affected: a finding, not downtime (the prober does not fail for it).',
      runbook:
        'Renewal has been failing for a while (tools renew 30 days ahead): check the certificate manager (cert-manager: `kubectl describe certificate`), ' +
        'the ACME challenge, and that the renewed certificate is deployed where the target terminates TLS.',
    },
  });
  const warn = formatPromDuration(r.certExpiryWarningS * 1000);
  return [
    cert('warning', crit === undefined ? `${left} < ${r.certExpiryWarningS}` : `${left} < ${r.certExpiryWarningS} and ${left} >= ${crit}`, warn),
    ...(crit === undefined ? [] : [cert('critical', `${left} < ${crit}`, formatPromDuration(crit * 1000))]),
    {
      alert: ALERT_NAMES.tlsVersion,
      expr: `${p.tlsVersion.name}{version!="TLSv1.3"} == 1`,
      for: '15m',
      labels: { severity: 'warning', ...SOURCE },
      annotations: {
        summary: 'Target {{ $labels.target }} negotiated {{ $labels.version }}, below the TLSv1.3 target (check {{ $labels.check }})',
        description:
          `The last probe of ${OF} negotiated {{ $labels.version }}; the service's stated target is TLS 1.3 in transit. ` +
          'The answers were good, so uptime is not affected: a finding for whoever runs the TLS termination.',
        runbook: 'Enable TLS 1.3 where the target terminates TLS (nginx: ssl_protocols TLSv1.3; a load balancer: its TLS policy).',
      },
    },
  ];
}

/**
 * Uptime burn-rate alerts per target and check, probe down, the prober's own alerts, and the
 * findings that are tickets.
 */
export function probeAlertingRules(r: ResolvedSloRuleOptions): AlertingRule[] {
  const p = PROBE_METRICS;
  return [
    ...burnAlerts(
      {
        alert: ALERT_NAMES.uptime,
        what: 'uptime',
        record: RECORDING_RULES.probeErrorRatioByCheck,
        matchers: '',
        subject: { label: 'check', noun: 'check', of: { label: 'target', noun: 'target' } },
        budget: r.budget,
        objective: r.objective,
        labels: { slo: 'uptime', ...SOURCE },
      },
      r,
    ),
    {
      alert: ALERT_NAMES.probeDown,
      expr: `${p.success.name} == 0`,
      for: r.probeDownFor,
      labels: { severity: 'critical', ...SOURCE },
      annotations: {
        summary: `Every probe of ${OF} has failed for ${r.probeDownFor}`,
        description:
          `${p.success.name} of ${OF} has been 0 for at least ${r.probeDownFor}: the service fails this check, and the prober is up to see it. ` +
          `${ALERT_NAMES.uptime} says how fast that spends the error budget.`,
        runbook:
          'The probe log and `flowgauge slo status --history <dir>` name the failure code of each check (SERVICE_UNAVAILABLE, CONNECTION_REFUSED, TLS_ERROR, …) ' +
          'and whether a gateway answered instead of the service.',
      },
    },
    ...proberAlerts(r),
    ...findingAlerts(r),
  ];
}
