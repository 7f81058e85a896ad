/**
 * What a person reads of the rate limits, decided once: the 429 line (expected, premature and
 * uncertain, with the uncertain share), the limit of each tenant, and one block per tenant of a
 * run of several (limit, windows, 429s, header findings, latency per operation). The console
 * summary, report.md and report.html each render these pieces.
 */
import { fmtDuration } from './format.js';
import type { RateLimitReport, Report } from './model.js';

/** `200 (199 expected, 0 premature, 1 uncertain: 0.5 %)`; `uncertain` only when there were any. */
export function throttleCounts(rl: RateLimitReport): string {
  const uncertain = rl.uncertain429 ?? 0;
  const share = rl.responses429 > 0 ? `: ${((uncertain / rl.responses429) * 100).toFixed(1)} %` : '';
  return `${rl.responses429} (${rl.expected429} expected, ${rl.premature429} premature${uncertain > 0 ? `, ${uncertain} uncertain${share}` : ''})`;
}

/**
 * The advertised limit as the run's line shows it: one number for one tenant, each tenant's
 * own (`free 100, pro 1000`) for several, `—` when none was advertised.
 */
export function limitText(r: Report): string {
  const tenants = Object.entries(r.scenarios ?? {});
  if (tenants.length === 0) return r.rateLimit.advertisedLimit === null ? '—' : String(r.rateLimit.advertisedLimit);
  return tenants.map(([name, s]) => `${name} ${s.rateLimit.advertisedLimit ?? '—'}`).join(', ');
}

/** The header findings of a `rateLimit`, commonest first, or `none`. */
export function findingsText(rl: RateLimitReport): string {
  const hv = Object.entries(rl.headerViolations).sort((a, b) => b[1] - a[1]);
  return hv.length === 0 ? 'none' : hv.map(([k, n]) => `${k} ×${n}`).join(', ');
}

/** One tenant of a run of several, as plain strings. */
export interface TenantRateLimitRow {
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
export function tenantRateLimitRows(r: Report): TenantRateLimitRow[] {
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
export function tenantSummaryLines(r: Report): string[] {
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
