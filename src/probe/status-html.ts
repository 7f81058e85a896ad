/**
 * The SLO status as a self-contained HTML status page: one file, inline CSS, no scripts, no
 * external resources, so it can be served from anywhere or opened from disk. Pure.
 */
import { escapeHtml } from '../core/html-escape.js';
import type { SeriesStatus, SloStatus } from './status.js';
import { budgetExplanation, describeTls, formatMinutes, formatPercent, formatWindow, verdictOf } from './status-text.js';
import { renderTimelineHtml, TIMELINE_CSS } from './status-timeline-html.js';


const CSS = `
body{font:15px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:64rem;padding:0 1rem;color:#1b1f24;background:#fff}
h1{font-size:1.5rem;margin:0 0 .25rem}h2{font-size:1.1rem;margin:2rem 0 .5rem}
.banner{padding:1rem 1.25rem;border-radius:.5rem;font-weight:600;margin:1rem 0}
.ok{background:#e6f4ea;color:#0d652d}.bad{background:#fce8e6;color:#a50e0e}.none{background:#f1f3f4;color:#3c4043}
table{border-collapse:collapse;width:100%}th,td{padding:.35rem .6rem;border-bottom:1px solid #e0e0e0;text-align:right}
th:first-child,td:first-child{text-align:left}th{font-weight:600;background:#f8f9fa}
.tag{display:inline-block;padding:0 .5rem;border-radius:.75rem;font-size:.85em}
.muted{color:#5f6368;font-size:.9em}.warn{background:#fef7e0;color:#7a4f01;padding:.5rem .75rem;border-radius:.35rem}${TIMELINE_CSS}`;

function tagClass(s: SeriesStatus): string {
  return s.withinObjective === null ? 'none' : s.withinObjective ? 'ok' : 'bad';
}

function seriesRow(s: SeriesStatus): string {
  const cells = [
    s.name,
    String(s.probes),
    formatPercent(s.probeUptime),
    formatPercent(s.timeUptime),
    formatMinutes(s.downMinutes),
    formatMinutes(s.budgetLeftMinutes),
    s.burnRate === null ? '–' : s.burnRate.toFixed(2),
  ].map((c) => `<td>${escapeHtml(c)}</td>`);
  return `<tr>${cells.join('')}<td><span class="tag ${tagClass(s)}">${escapeHtml(verdictOf(s))}</span></td></tr>`;
}

/** Renders the status page. */
export function renderStatusHtml(s: SloStatus): string {
  const all = [s.overall, ...s.checks];
  const bannerClass = s.overall.withinObjective === null ? 'none' : s.withinObjective ? 'ok' : 'bad';
  const banner =
    s.overall.withinObjective === null
      ? 'No probe records in the window'
      : s.withinObjective
        ? `Operational: uptime ${formatPercent(s.overall.timeUptime)} meets the ${formatPercent(s.objective)} objective`
        : `Objective missed: uptime ${formatPercent(s.overall.timeUptime)} is below ${formatPercent(s.objective)}`;
  const incidents = all.flatMap((c) =>
    c.incidents.map(
      (i) =>
        `<tr><td>${escapeHtml(c.name)}</td><td>${escapeHtml(i.start)}</td><td>${escapeHtml(i.end ?? 'ongoing')}</td>` +
        `<td>${escapeHtml(formatMinutes(i.durationMinutes))}</td><td>${i.failures}</td>` +
        `<td><span class="tag ${i.withinRto ? 'ok' : 'bad'}">${i.withinRto ? 'within RTO' : 'RTO breached'}</span></td></tr>`,
    ),
  );
  const tls = s.checks.filter((c) => c.tls !== null);
  const parts = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">',
    `<title>Service status: ${escapeHtml(verdictOf(s.overall))}</title><style>${CSS}</style></head><body>`,
    '<h1>Service status</h1>',
    `<p class="muted">Window of ${escapeHtml(formatWindow(s.window.days))}, ${escapeHtml(s.window.start)} to ${escapeHtml(s.window.end)}. ` +
      `Objective ${escapeHtml(formatPercent(s.objective))}; overall is down when any check fails.</p>`,
    `<div class="banner ${bannerClass}">${escapeHtml(banner)}</div>`,
    `<p>Error budget: ${escapeHtml(formatMinutes(s.overall.allowedDowntimeMinutes))} minutes allowed, ` +
      `${escapeHtml(formatMinutes(s.overall.budgetLeftMinutes))} left. Observed ${escapeHtml(formatMinutes(s.overall.observedMinutes))} min ` +
      `(${escapeHtml((s.overall.coverage * 100).toFixed(1))} % of the window).</p>`,
    ...budgetExplanation(s).map((t) => `<p class="muted">${escapeHtml(t)}</p>`),
    ...s.warnings.map((w) => `<p class="warn">${escapeHtml(w)}</p>`),
    renderTimelineHtml(s.timeline, escapeHtml),
    '<h2>Uptime</h2><table><thead><tr><th>Series</th><th>Probes</th><th>Probe uptime</th><th>Time uptime</th>' +
      '<th>Down (min)</th><th>Budget left (min)</th><th>Burn rate</th><th>Verdict</th></tr></thead><tbody>',
    ...all.map(seriesRow),
    '</tbody></table>',
    `<h2>Incidents</h2><p class="muted">${s.failuresToOpen} consecutive failures open an incident; ` +
      `recovery time objective ${s.rtoHours} hours.</p>`,
    incidents.length === 0
      ? '<p>No incidents in the window.</p>'
      : '<table><thead><tr><th>Series</th><th>Start</th><th>End</th><th>Duration (min)</th><th>Failed probes</th><th>RTO</th></tr></thead>' +
        `<tbody>${incidents.join('')}</tbody></table>`,
    tls.length === 0
      ? ''
      : `<h2>TLS</h2><table><tbody>${tls.map((c) => `<tr><td>${escapeHtml(c.name)}</td><td>${escapeHtml(describeTls(c.tls!))}</td></tr>`).join('')}</tbody></table>`,
    `<p class="muted">Generated ${escapeHtml(s.generatedAt)} by flowgauge from ${s.history.records} probe records.</p>`,
    '</body></html>',
  ];
  return `${parts.filter((p) => p !== '').join('\n')}\n`;
}
