/**
 * The SLO status as text for a terminal (what `flowgauge slo status` prints without
 * `--json`/`--html`). Pure: returns a string.
 */
import type { IncidentStatus, SeriesStatus, SloStatus, TlsStatus } from './status.js';

/** Formats a ratio as a percentage with three decimals, `–` when absent. */
export function formatPercent(x: number | null): string {
  return x === null ? '–' : `${(x * 100).toFixed(3)} %`;
}

/** Formats minutes with two decimals. */
export function formatMinutes(m: number): string {
  return m.toFixed(2);
}

/** The verdict word of a series. */
export function verdictOf(s: SeriesStatus): 'OK' | 'BREACH' | 'NO DATA' {
  return s.withinObjective === null ? 'NO DATA' : s.withinObjective ? 'OK' : 'BREACH';
}

/** Describes a TLS finding in one phrase. */
export function describeTls(t: TlsStatus): string {
  const version = t.version === null ? 'unknown version' : `${t.version}${t.versionOk ? '' : ' (below the TLSv1.3 target)'}`;
  const min = t.certMinDays ?? 0;
  const under = t.certDaysLeft !== null && min > 0 && t.certDaysLeft < min ? ` (under the ${min}-day minimum)` : '';
  const days = t.certDaysLeft === null ? 'certificate expiry unknown' : `certificate expires in ${t.certDaysLeft.toFixed(1)} days${under}`;
  return `${version}, ${days}${t.authorized ? '' : ', certificate not verified'}`;
}

/** Names a window length for people: `30 days`, `6 hours`, `90 minutes`. */
export function formatWindow(days: number): string {
  const n = (x: number): string => String(Number(x.toFixed(2)));
  if (days >= 1) return `${n(days)} day${days === 1 ? '' : 's'}`;
  const hours = days * 24;
  return hours >= 1 ? `${n(hours)} hour${hours === 1 ? '' : 's'}` : `${n(hours * 60)} minutes`;
}

function pad(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
}

function incidentLine(name: string, i: IncidentStatus, rtoHours: number): string {
  const end = i.end ?? 'ongoing';
  const verdict = i.withinRto ? `within the ${rtoHours}h RTO` : `BREACHES the ${rtoHours}h RTO`;
  return `  ${name.padEnd(10)} ${i.start} → ${end}  ${formatMinutes(i.durationMinutes)} min  ${i.failures} failed probes  ${verdict}`;
}

/** A status's sections: one per target when it holds several, else itself. */
export function sectionsOf(s: SloStatus): readonly SloStatus[] {
  return s.targets !== undefined && s.targets.length > 1 ? s.targets : [s];
}

/** Renders the status for a terminal: one section per target when the history holds several. */
export function renderStatusText(s: SloStatus): string {
  const sections = sectionsOf(s);
  if (sections.length === 1) return sectionText(s);
  const name = (t: SloStatus): string => t.target ?? '(records naming no target)';
  const missed = sections.filter((t) => !t.withinObjective).map(name);
  return [
    `SLO status of ${sections.length} targets: ${sections.map(name).join(', ')} (one section each, never blended)`,
    ...sections.map((t) => `\n=== target ${name(t)} ===\n${sectionText(t).trimEnd()}`),
    '',
    missed.length === 0 ? 'Within objective on every target.' : `OBJECTIVE MISSED on ${missed.join(', ')} (the exit code is every target's).`,
    '',
  ].join('\n');
}

function sectionText(s: SloStatus): string {
  const lines: string[] = [];
  lines.push(`SLO status over ${formatWindow(s.window.days)} (${s.window.start} → ${s.window.end}), objective ${formatPercent(s.objective)}`);
  if (s.target !== undefined) lines.push(`target: ${s.target}`);
  lines.push('overall: a round is down when any check failed');
  lines.push('');
  const head = ['series', 'probes', 'probe uptime', 'time uptime', 'down min', 'budget left min', 'burn rate', 'observed min', 'coverage', 'verdict'];
  const rows = [s.overall, ...s.checks].map((c) => [
    c.name,
    String(c.probes),
    formatPercent(c.probeUptime),
    formatPercent(c.timeUptime),
    formatMinutes(c.downMinutes),
    formatMinutes(c.budgetLeftMinutes),
    c.burnRate === null ? '–' : c.burnRate.toFixed(2),
    formatMinutes(c.observedMinutes),
    `${(c.coverage * 100).toFixed(1)} %`,
    verdictOf(c),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  lines.push(pad(head, widths));
  for (const r of rows) lines.push(pad(r, widths));
  lines.push('');
  lines.push(`Error budget: ${formatMinutes(s.overall.allowedDowntimeMinutes)} min of downtime allowed over the window.`);
  lines.push(...budgetExplanation(s));
  for (const w of s.warnings) lines.push(`WARNING: ${w}`);

  const all = [s.overall, ...s.checks];
  const incidents = all.flatMap((c) => c.incidents.map((i) => incidentLine(c.name, i, s.rtoHours)));
  lines.push('');
  lines.push(`Incidents (${s.failuresToOpen} consecutive failures open one; RTO ${s.rtoHours}h):`);
  lines.push(...(incidents.length === 0 ? ['  none'] : incidents));
  const mttr = all.filter((c) => c.mttrMinutes !== null);
  if (mttr.length > 0) {
    lines.push('Mean time to recover:');
    for (const c of mttr) {
      lines.push(`  ${c.name.padEnd(10)} ${formatMinutes(c.mttrMinutes as number)} min (${c.mttrWithinRto === true ? 'within' : 'BREACHES'} the RTO)`);
    }
  }
  const tls = s.checks.filter((c) => c.tls !== null);
  if (tls.length > 0) {
    lines.push('');
    lines.push('TLS:');
    for (const c of tls) lines.push(`  ${c.name.padEnd(10)} ${describeTls(c.tls as TlsStatus)}`);
  }
  lines.push('');
  const h = s.history;
  lines.push(
    `History: ${h.records} records in the window from ${h.files} file${h.files === 1 ? '' : 's'}; ` +
      `${h.tornTails} torn tail${h.tornTails === 1 ? '' : 's'} and ${h.badLines} unreadable line${h.badLines === 1 ? '' : 's'} ignored.`,
  );
  lines.push(
    s.withinObjective
      ? `Within objective: overall uptime ${formatPercent(s.overall.timeUptime)} ≥ ${formatPercent(s.objective)}.`
      : s.overall.withinObjective === null
        ? 'No probe records in the window: cannot tell whether the objective is met.'
        : `OBJECTIVE MISSED: overall uptime ${formatPercent(s.overall.timeUptime)} < ${formatPercent(s.objective)}.`,
  );
  return `${lines.join('\n')}\n`;
}

/**
 * Why BREACH can stand beside budget left: the verdict judges uptime over the observed time,
 * the budget counts downtime against the whole window. Said whenever they could seem to disagree.
 */
export function budgetExplanation(s: SloStatus): string[] {
  const breachedWithBudget = [s.overall, ...s.checks].some((c) => c.withinObjective === false && c.budgetLeftMinutes > 0);
  if (!breachedWithBudget) return [];
  const o = s.overall;
  const windowMin = s.window.days * 1440;
  return [
    `The verdict judges uptime over the observed time (${formatMinutes(o.observedMinutes)} of ${formatMinutes(windowMin)} min, ${(o.coverage * 100).toFixed(1)} %); ` +
      'the budget counts observed downtime against the whole window. A series can BREACH with budget left: ' +
      'at its observed rate it would spend the whole budget (burn rate above 1) before the window ends.',
  ];
}
