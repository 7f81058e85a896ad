/**
 * The run's rate-limit figures when several tenants (tokens) ran at once. Each tenant's own
 * analyser judged its 429s and its headers against its own limit and windows; the run's total
 * only adds them up. Windows are a tenant's own and stay in its section; a limit or Reset
 * semantics is the run's only when every tenant saw the same one.
 */
import type { RateLimitSnapshot } from './rate-limit-analyser.js';

/** The run's `rateLimit` from its tally (`total`, counts only) and each tenant's analysis. */
export function combineTenantRateLimits(total: RateLimitSnapshot, tenants: readonly RateLimitSnapshot[]): RateLimitSnapshot {
  const limits = new Set(tenants.map((t) => t.advertisedLimit).filter((n): n is number => n !== null));
  const semantics = new Set(tenants.map((t) => t.resetSemantics).filter((s) => s !== 'unknown'));
  const headerViolations: Record<string, number> = {};
  for (const t of tenants) for (const [k, n] of Object.entries(t.headerViolations)) headerViolations[k] = (headerViolations[k] ?? 0) + n;
  const recoveries = tenants.map((t) => t.recoveryMs).filter((n): n is number => n !== null);
  // Evidence stays with each tenant (a scenario's section): the run's line only adds them up.
  const { evidence: _none, ...counts } = total;
  return {
    ...counts,
    advertisedLimit: limits.size === 1 ? ([...limits][0] as number) : null,
    resetSemantics: semantics.size === 1 ? ([...semantics][0] as RateLimitSnapshot['resetSemantics']) : 'unknown',
    ...(tenants.some((t) => t.rolling === true) ? { rolling: true } : {}),
    headerViolations,
    windows: [],
    windowsDropped: 0,
    recoveryMs: recoveries.length === 0 ? null : Math.max(...recoveries),
  };
}
