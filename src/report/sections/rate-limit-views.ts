/**
 * The views of `rateLimit`: the 429 line (expected, premature and uncertain, with the uncertain
 * share), the limit of each tenant, one block per tenant of a run of several (limit, windows,
 * 429s, header findings, latency per operation), the first 429, the recovery and the windows.
 */
import { fmtDuration, fmtNumber } from '../format.js';
import type { HtmlChartData } from '../html-data.js';
import { badge, chart, code, facts, p, partialCaption, section, table, type Cell } from '../html-parts.js';
import { mdPlain as plain, mdTable } from '../markdown-kit.js';
import type { RateLimitReport, Report } from '../model.js';
import type { SectionViews, SummaryContext } from './view-kit.js';

/** `200 (199 expected, 0 premature, 1 uncertain: 0.5 %)`; `uncertain` only when there were any. */
function throttleCounts(rl: RateLimitReport): string {
  const uncertain = rl.uncertain429 ?? 0;
  const share = rl.responses429 > 0 ? `: ${((uncertain / rl.responses429) * 100).toFixed(1)} %` : '';
  return `${rl.responses429} (${rl.expected429} expected, ${rl.premature429} premature${uncertain > 0 ? `, ${uncertain} uncertain${share}` : ''})`;
}

/**
 * The advertised limit as the run's line shows it: one number for one tenant, each tenant's
 * own (`free 100, pro 1000`) for several, `—` when none was advertised.
 */
function limitText(r: Report): string {
  const tenants = Object.entries(r.scenarios ?? {});
  if (tenants.length === 0) return r.rateLimit.advertisedLimit === null ? '—' : String(r.rateLimit.advertisedLimit);
  return tenants.map(([name, s]) => `${name} ${s.rateLimit.advertisedLimit ?? '—'}`).join(', ');
}

/** The header findings of a `rateLimit`, commonest first, or `none`. */
function findingsText(rl: RateLimitReport): string {
  const hv = Object.entries(rl.headerViolations).sort((a, b) => b[1] - a[1]);
  return hv.length === 0 ? 'none' : hv.map(([k, n]) => `${k} ×${n}`).join(', ');
}

/** One tenant of a run of several, as plain strings. */
interface TenantRateLimitRow {
  readonly name: string;
  readonly limit: string;
  readonly reset: string;
  readonly windows: string;
  readonly responses429: string;
  readonly findings: string;
  /** `run p50 12 ms p99 40 ms; stream …` over the served answers. */
  readonly latency: string;
}

/** One row per tenant; empty for a run of one. */
function tenantRateLimitRows(r: Report): TenantRateLimitRow[] {
  return Object.entries(r.scenarios ?? {}).map(([name, s]) => ({
    name,
    limit: s.rateLimit.advertisedLimit === null ? 'none advertised' : String(s.rateLimit.advertisedLimit),
    reset: s.rateLimit.rolling === true ? `${s.rateLimit.resetSemantics}, rolling` : s.rateLimit.resetSemantics,
    windows: ((n) => `${n} window${n === 1 ? '' : 's'}`)(s.rateLimit.windows.length + (s.rateLimit.windowsDropped ?? 0)),
    responses429: throttleCounts(s.rateLimit),
    findings: findingsText(s.rateLimit),
    latency: Object.entries(s.ops)
      .filter(([, o]) => o !== undefined && o.latencyMs.count > 0)
      .map(([op, o]) => `${op} p50 ${fmtDuration(o?.latencyMs.p50 ?? 0)} p99 ${fmtDuration(o?.latencyMs.p99 ?? 0)}`)
      .join('; '),
  }));
}

/** Console lines of the per-tenant block (empty for a run of one). */
function tenantSummaryLines(r: Report): string[] {
  const rows = tenantRateLimitRows(r);
  if (rows.length === 0) return [];
  return [
    'rate limits by tenant:',
    ...rows.flatMap((t) => [
      `  ${t.name}: limit ${t.limit} (${t.reset}, ${t.windows}); 429s ${t.responses429}; header findings ${t.findings}`,
      ...(t.latency === '' ? [] : [`    latency ${t.latency}`]),
    ]),
  ];
}

function summaryRateLimit(r: Report, { paint }: SummaryContext): string[] {
  const rl = r.rateLimit;
  const counts = throttleCounts(rl);
  const shown = rl.premature429 > 0 ? counts.replace(`${rl.premature429} premature`, paint('red', `${rl.premature429} premature`)) : counts;
  return [`429s    ${shown}; limit ${limitText(r)}, reset ${rl.resetSemantics}`, ...tenantSummaryLines(r)];
}

function markdownRateLimit(r: Report): string[] {
  const rl = r.rateLimit;
  const out = [
    '## Rate limits',
    '',
    `- Advertised limit: ${r.scenarios === undefined ? (rl.advertisedLimit ?? 'none seen') : limitText(r)}; Reset semantics: \`${rl.resetSemantics}\`${rl.rolling === true ? ' (rolling: windows overlap, only Remaining judged)' : ''}`,
    `- 429 responses: ${throttleCounts(rl)}`,
  ];
  const tenants = tenantRateLimitRows(r);
  if (tenants.length > 0) {
    out.push(
      '',
      'Each tenant judged against its own limit, windows and headers:',
      '',
      mdTable(['tenant', 'limit', 'reset', 'windows', '429s', 'header findings', 'latency (served answers)'], tenants.map((t) => [plain(t.name), t.limit, plain(t.reset), t.windows, t.responses429, plain(t.findings), t.latency]), [3]),
    );
  }
  if (rl.first429 !== null) out.push(`- First 429: request #${rl.first429.index}, sent ${fmtDuration(rl.first429.atMs)} after the start`);
  if (rl.recoveryMs !== null) out.push(`- Recovery after the first rejected window reset: ${fmtDuration(rl.recoveryMs)}`);
  const hv = Object.entries(rl.headerViolations).sort((a, b) => b[1] - a[1]);
  if (hv.length > 0) out.push('', mdTable(['header finding', 'responses'], hv.map(([k, n]) => [plain(k), String(n)]), [1]));
  const shown = rl.windows.slice(-10);
  if (shown.length > 0) {
    out.push(
      '',
      `Last ${shown.length} of ${rl.windows.length + rl.windowsDropped} windows:`,
      '',
      mdTable(
        ['reset', 'limit', 'accepted', 'rejected', 'lowest remaining'],
        shown.map((w) => [plain(w.reset ?? '—'), fmtNumber(w.limit), String(w.accepted), String(w.rejected), fmtNumber(w.minRemaining)]),
        [1, 2, 3, 4],
      ),
    );
  }
  return out;
}

/** Request rate against 429s and the advertised limit, then the analyser's findings. */
function htmlRateLimit(r: Report, data: HtmlChartData): string {
  const rl = r.rateLimit;
  const body: string[] = [];
  if (data.rate !== null) {
    body.push(`<div class="charts wide">${chart('chart-rate', 'Request rate vs 429s', `Requests and 429 responses per second by intended start; ${data.rate.limitLabel}.${partialCaption(data, 'rate')}`)}</div>`);
  }
  const rows: [string, Cell][] = [
    ['advertised limit', r.scenarios !== undefined ? limitText(r) : rl.advertisedLimit === null ? 'none seen' : `${rl.advertisedLimit} per window`],
    ['reset semantics', rl.rolling === true ? `${rl.resetSemantics} (rolling: windows overlap, only Remaining judged)` : code(rl.resetSemantics)],
    ['429 responses', throttleCounts(rl)],
  ];
  if (rl.premature429 > 0) rows.push(['premature 429s', badge(false, `${rl.premature429} while under the advertised limit`)]);
  if (rl.first429 !== null && rl.first429 !== undefined) {
    rows.push(['first 429', `request #${rl.first429.index}, sent ${fmtDuration(rl.first429.atMs)} after the start`]);
  }
  if (rl.recoveryMs !== null && rl.recoveryMs !== undefined) rows.push(['recovery after reset', fmtDuration(rl.recoveryMs)]);
  body.push('<h3>Findings</h3>', facts(rows));
  const tenants = tenantRateLimitRows(r);
  if (tenants.length > 0) {
    body.push(
      '<h3>By tenant</h3>',
      p('Each tenant judged against its own limit, windows and headers.'),
      table(['tenant', 'limit', 'reset', 'windows', '429s', 'header findings', 'latency (served answers)'], tenants.map((t) => [t.name, t.limit, t.reset, t.windows, t.responses429, t.findings, t.latency]), [3]),
    );
  }
  const hv = Object.entries(rl.headerViolations).sort((a, b) => b[1] - a[1]);
  if (hv.length > 0) body.push('<h3>Header findings</h3>', table(['finding', 'responses'], hv.map(([k, n]) => [code(k), String(n)]), [1]));
  const shown = rl.windows.slice(-10);
  if (shown.length > 0) {
    const all = rl.windows.length + (rl.windowsDropped ?? 0);
    body.push(
      `<h3>Windows (last ${shown.length} of ${all})</h3>`,
      table(
        ['reset', 'limit', 'accepted', 'rejected', 'lowest remaining'],
        shown.map((w) => [w.reset ?? '—', fmtNumber(w.limit ?? null), String(w.accepted), String(w.rejected), fmtNumber(w.minRemaining ?? null)]),
        [1, 2, 3, 4],
      ),
    );
  }
  return section('ratelimit', 'Rate limits', body);
}

/** The views of `rateLimit`. */
export const rateLimitViews: SectionViews = {
  summary: { rateLimit: summaryRateLimit },
  markdown: { rateLimit: markdownRateLimit },
  html: { rateLimit: htmlRateLimit },
};
