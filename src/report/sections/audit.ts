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
import { z } from 'zod';
import { allFlag, anyOf, bySection, custom, fields, first, recompute, setting, sum, union, type Part, type Rule } from './merge-kit.js';
import { notProjected } from './project-kit.js';
import { bool, count, int, nullable, obj, str, written, type DeepReadonly } from './schema-kit.js';

const usageCounts = obj({ totalRuns: count, successfulRuns: count, failedRuns: count, totalTokens: count });
const usageDiff = obj({ totalRuns: int, successfulRuns: int, failedRuns: int, totalTokens: int });
const flowAudit = obj({
  flowId: str,
  service: nullable(usageCounts),
  client: usageCounts,
  /** service − client; null when the service could not be read. */
  diff: nullable(usageDiff),
});
const usageAudit = obj(
  {
    /** Range asked for (ISO 8601). */
    window: obj({ start: str, end: str }),
    service: nullable(usageCounts),
    client: usageCounts,
    /** service − client; the service may count other traffic of the account. */
    diff: nullable(usageDiff),
    /** True when every figure agreed. */
    exact: bool,
  },
  {
    /** `per-flow`: one query per flow the run used; `account`: one query for all (many flows). */
    scope: written(z.enum(['per-flow', 'account'])),
    flows: written(z.array(flowAudit)),
    /**
     * What the client could not count: runs that finished without a token count, and runs whose
     * end it never learnt (triggers without a notification, `running` runs not followed or given up).
     */
    clientUnknown: written(obj({ runsWithoutTokens: count, unresolved: count })),
    /** Queries that failed (`<flow>: <code>`). */
    errors: written(z.array(str)),
    /**
     * True when the service answered the per-flow queries as if `flow_id` were not there (they
     * added up to more than its answer for the whole account, or repeated each other): the
     * account's answer is compared instead (`scope` `account`, no `flows`). Absent otherwise.
     */
    filterIgnored: bool,
    /**
     * True when the service refused every usage query with 401 or 403: this token may not read
     * usage. Nothing was compared (`service` and `diff` are null); it is not a disagreement.
     * Absent otherwise.
     */
    forbidden: bool,
  },
);
const sessionAudit = obj(
  {
    sessions: count,
    /** Runs and streams that finished in those sessions. */
    runs: count,
    /** Histories read. */
    checked: count,
    /** Sessions whose user messages match the inputs in the order sent. */
    inOrder: count,
    /** Sessions whose roles alternate user, assistant, … (judged when no run failed). */
    alternating: count,
    /** Sessions with the expected number of messages. */
    countMatches: count,
  },
  {
    /** Sessions whose runs overlapped in time: their order and alternation are not judged. */
    concurrent: written(count),
    /** At most 50. */
    problems: written(z.array(obj({ sessionId: str, check: z.enum(['read', 'order', 'roles', 'count', 'timestamps', 'total']), expected: str, got: str }))),
  },
);

/** report@1 `audit`. */
export const auditSchema = obj(
  {},
  {
    /** The run's usage audit when it ran as one tenant (one token); absent when `tenants` is there. */
    usage: usageAudit,
    /** The run's sessions audit when it ran as one tenant (one token); absent when `tenants` is there. */
    sessions: sessionAudit,
    /**
     * A run of several tenants (scenarios with tokens of their own): one audit per tenant, each
     * read with its own token, since the figures of different accounts are not one comparison.
     */
    tenants: z.array(
      obj(
        {
          /** The scenarios of the run that used this token (the first names the tenant). */
          scenarios: z.array(str),
        },
        { usage: usageAudit, sessions: sessionAudit },
      ),
    ),
    /** True when the audit was cut by its deadline or a stop (Ctrl-C) before it had read everything. */
    incomplete: bool,
  },
);
/** `audit` (added in @1). */
export type AuditReport = DeepReadonly<z.output<typeof auditSchema>>;
/** `audit.usage`: `/analytics/usage` over the run's window against what the client saw finish. */
export type UsageAuditReport = DeepReadonly<z.output<typeof usageAudit>>;
/** The four usage figures the audit compares. */
export type UsageCounts = DeepReadonly<z.output<typeof usageCounts>>;
/** One flow's usage comparison. */
export type UsageFlowAudit = UsageAuditReport['flows'][number];
/** `audit.sessions`: histories of the sessions the mix ran in, read back and checked. */
export type SessionAuditReport = DeepReadonly<z.output<typeof sessionAudit>>;
/** One problem found in a session's history. */
export type SessionProblem = SessionAuditReport['problems'][number];
/** One tenant's audit (`audit.tenants[]`): the scenarios that ran with one token, read with it. */
export type TenantAuditReport = NonNullable<AuditReport['tenants']>[number];

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

/** `audit`: added by the run's observers after `buildReport` (`run/observers/`), merged by the rules above. */
export const auditSection = notProjected(bySection(auditMerge));
