/**
 * `audit`: the service's own account of the run against the client's.
 *
 * What the client counted adds up (each shard counted what it saw finish). What the service
 * said does not: each shard asked `/analytics/usage` about the account over its own window, and
 * the other shards' runs fell in that window too, so every shard's answer already holds (nearly)
 * the whole run. Adding them would count the run once per shard. The merged answer per flow is
 * therefore the highest any shard got (a lower bound of the service's figure over the union of
 * the windows, equal to it when one shard's window spans the others'), the per-flow total their
 * sum, and the difference and `exact` are computed again from the merged figures. Sessions
 * belong to the shard that made them: their counts add.
 */
import { allFlag, anyOf, bySection, custom, fields, first, recompute, setting, sum, union, type Part, type Rule } from './merge-kit.js';
import { fromPhase } from './project-kit.js';
import type { AuditReport, SessionAuditReport, TenantAuditReport, UsageAuditReport, UsageCounts, UsageFlowAudit } from './audit-schema.js';
import { auditViews } from './audit-views.js';

/** Problems the sessions audit keeps. */
const MAX_PROBLEMS = 50;

const FIGURES = ['totalRuns', 'successfulRuns', 'failedRuns', 'totalTokens'] as const;

const figures = (f: (k: (typeof FIGURES)[number]) => number): UsageCounts => ({ totalRuns: f('totalRuns'), successfulRuns: f('successfulRuns'), failedRuns: f('failedRuns'), totalTokens: f('totalTokens') });

const sub = (a: UsageCounts, b: UsageCounts): UsageCounts => figures((k) => a[k] - b[k]);

/** The service's figures: per figure the highest answer (see above); null when no shard could read them. */
function serviceOf(values: readonly (UsageCounts | null)[]): UsageCounts | null {
  const read = values.filter((v): v is UsageCounts => v !== null);
  if (read.length === 0) return null;
  if (read.length === 1) return read[0] as UsageCounts;
  return figures((k) => Math.max(...read.map((c) => c[k])));
}

const clientMerge = fields<UsageCounts>({ totalRuns: sum, successfulRuns: sum, failedRuns: sum, totalTokens: sum });

const flowMerge = fields<UsageFlowAudit>({
  flowId: first<string>(),
  service: custom('max', (parts) => serviceOf(parts.map((p) => p.value))),
  client: clientMerge,
  diff: recompute((m) => (m.service === undefined || m.service === null || m.client === undefined ? null : sub(m.service, m.client))),
});

const isoMin = custom<string>('min', (parts) => new Date(Math.min(...parts.map((p) => Date.parse(p.value)))).toISOString());

const isoMax = custom<string>('max', (parts) => new Date(Math.max(...parts.map((p) => Date.parse(p.value)))).toISOString());

const usageMerge: Rule<UsageAuditReport> = fields<UsageAuditReport>({
  // The union of the windows asked about.
  window: fields<UsageAuditReport['window']>({ start: isoMin, end: isoMax }),
  // A shard that had to ask for the whole account makes the merged comparison one of the account.
  scope: setting({ disagree: () => 'account' }),
  // Per flow: the sum of the merged flows' answers; for the account: the highest answer.
  service: recompute((m, parents) => {
    const flows = m.flows ?? [];
    if (parents.length > 1 && m.scope === 'per-flow') {
      return flows.some((f) => f.service === null) ? null : figures((k) => flows.reduce((n, f) => n + (f.service as UsageCounts)[k], 0));
    }
    return serviceOf(parents.map((p) => p.value.service));
  }),
  client: clientMerge,
  diff: recompute((m) => (m.service === undefined || m.service === null || m.client === undefined ? null : sub(m.service, m.client))),
  exact: recompute((m) => m.diff !== undefined && m.diff !== null && (m.errors ?? []).length === 0 && FIGURES.every((k) => (m.diff as UsageCounts)[k] === 0)),
  flows: custom('union', (parts, ctx) => {
    const byFlow = new Map<string, Part<UsageFlowAudit>[]>();
    for (const p of parts) for (const f of p.value) byFlow.set(f.flowId, [...(byFlow.get(f.flowId) ?? []), { value: f, source: p.source }]);
    return [...byFlow.values()].map((list) => flowMerge.merge(list, { ...ctx, parents: list.length }) as UsageFlowAudit);
  }),
  clientUnknown: fields<UsageAuditReport['clientUnknown']>({ runsWithoutTokens: sum, unresolved: sum }),
  errors: union<string>((e) => e),
  filterIgnored: anyOf,
  forbidden: allFlag,
  accountWide: anyOf,
});

const sessionsMerge: Rule<SessionAuditReport> = fields<SessionAuditReport>({
  sessions: sum,
  runs: sum,
  checked: sum,
  inOrder: sum,
  alternating: sum,
  countMatches: sum,
  concurrent: sum,
  problems: union((p) => JSON.stringify([p.sessionId, p.check, p.expected, p.got]), MAX_PROBLEMS),
});

const tenantMerge = fields<TenantAuditReport>({ scenarios: first<readonly string[]>(), usage: usageMerge, sessions: sessionsMerge });

/** How `audit` merges. */
export const auditMerge: Rule<AuditReport> = fields<AuditReport>({
  usage: usageMerge,
  sessions: sessionsMerge,
  // One audit per tenant (the scenarios that share a token), merged tenant by tenant.
  tenants: custom('union', (parts, ctx) => {
    const byTenant = new Map<string, Part<TenantAuditReport>[]>();
    for (const p of parts) for (const t of p.value) byTenant.set(JSON.stringify(t.scenarios), [...(byTenant.get(JSON.stringify(t.scenarios)) ?? []), { value: t, source: p.source }]);
    return [...byTenant.values()].map((list) => tenantMerge.merge(list, { ...ctx, parents: list.length }) as TenantAuditReport);
  }),
  incomplete: anyOf,
});

/** `audit`: projected by its phase of the run (`run/phases/`), merged by the rules above. */
export const auditSection = { ...fromPhase('audit', bySection(auditMerge)), views: auditViews };
