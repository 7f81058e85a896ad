/**
 * The SLO status as a self-contained HTML status page: one file, inline CSS, no scripts, no
 * external resources, so it can be served from anywhere or opened from disk. Pure.
 */
import { escapeHtml } from '../core/html-escape.js';
import type { SeriesStatus, SloStatus } from './status.js';
import { budgetExplanation, describeTls, formatMinutes, formatPercent, formatWindow, sectionsOf, verdictOf } from './status-text.js';
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

/** The figures of one target (or of the only one): banner, budget, timeline, tables; subsections under `h`. */
function sectionHtml(s: SloStatus, h: 'h2' | 'h3'): string[] {
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
  return [
    `<div class="banner ${bannerClass}">${escapeHtml(banner)}</div>`,
    `<p>Error budget: ${escapeHtml(formatMinutes(s.overall.allowedDowntimeMinutes))} minutes allowed, ` +
      `${escapeHtml(formatMinutes(s.overall.budgetLeftMinutes))} left. Observed ${escapeHtml(formatMinutes(s.overall.observedMinutes))} min ` +
      `(${escapeHtml((s.overall.coverage * 100).toFixed(1))} % of the window).</p>`,
    ...budgetExplanation(s).map((t) => `<p class="muted">${escapeHtml(t)}</p>`),
    ...s.warnings.map((w) => `<p class="warn">${escapeHtml(w)}</p>`),
    renderTimelineHtml(s.timeline, escapeHtml, h),
    `<${h}>Uptime</${h}><table><thead><tr><th>Series</th><th>Probes</th><th>Probe uptime</th><th>Time uptime</th>` +
      '<th>Down (min)</th><th>Budget left (min)</th><th>Burn rate</th><th>Verdict</th></tr></thead><tbody>',
    ...all.map(seriesRow),
    '</tbody></table>',
    `<${h}>Incidents</${h}><p class="muted">${s.failuresToOpen} consecutive failures open an incident; ` +
      `recovery time objective ${s.rtoHours} hours.</p>`,
    incidents.length === 0
      ? '<p>No incidents in the window.</p>'
      : '<table><thead><tr><th>Series</th><th>Start</th><th>End</th><th>Duration (min)</th><th>Failed probes</th><th>RTO</th></tr></thead>' +
        `<tbody>${incidents.join('')}</tbody></table>`,
    tls.length === 0
      ? ''
      : `<${h}>TLS</${h}><table><tbody>${tls.map((c) => `<tr><td>${escapeHtml(c.name)}</td><td>${escapeHtml(describeTls(c.tls!))}</td></tr>`).join('')}</tbody></table>`,
  ];
}

/** An id for a target's section. */
const anchor = (name: string): string => `target-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;

/** Renders the status page: one section per target when the history holds several. */
export function renderStatusHtml(s: SloStatus): string {
  const sections = sectionsOf(s);
  const several = sections.length > 1;
  const name = (t: SloStatus): string => t.target ?? '(records naming no target)';
  const body = several
    ? [
        '<table><thead><tr><th>Target</th><th>Time uptime</th><th>Verdict</th></tr></thead><tbody>',
        ...sections.map(
          (t) =>
            `<tr><td><a href="#${escapeHtml(anchor(name(t)))}">${escapeHtml(name(t))}</a></td><td>${escapeHtml(formatPercent(t.overall.timeUptime))}</td>` +
            `<td><span class="tag ${tagClass(t.overall)}">${escapeHtml(verdictOf(t.overall))}</span></td></tr>`,
        ),
        '</tbody></table>',
        ...sections.flatMap((t) => [`<h2 id="${escapeHtml(anchor(name(t)))}">Target ${escapeHtml(name(t))}</h2>`, ...sectionHtml(t, 'h3')]),
      ]
    : sectionHtml(s, 'h2');
  const title = several ? `${sections.filter((t) => t.withinObjective).length} of ${sections.length} targets OK` : verdictOf(s.overall);
  const parts = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">',
    `<title>Service status: ${escapeHtml(title)}</title><style>${CSS}</style></head><body>`,
    `<h1>Service status${!several && s.target !== undefined ? `: ${escapeHtml(s.target)}` : ''}</h1>`,
    `<p class="muted">Window of ${escapeHtml(formatWindow(s.window.days))}, ${escapeHtml(s.window.start)} to ${escapeHtml(s.window.end)}. ` +
      `Objective ${escapeHtml(formatPercent(s.objective))}; overall is down when any check fails.` +
      `${several ? ` ${sections.length} targets, each on its own (never blended).` : ''}</p>`,
    ...body,
    `<p class="muted">Generated ${escapeHtml(s.generatedAt)} by flowgauge from ${sections.reduce((n, t) => n + t.history.records, 0)} probe records.</p>`,
    '</body></html>',
  ];
  return `${parts.filter((p) => p !== '').join('\n')}\n`;
}
