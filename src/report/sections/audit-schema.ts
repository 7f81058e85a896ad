/**
 * report@1 `audit`: the zod schema, and the types taken from it (`z.output`, readonly at every
 * depth). How the section is projected and merged is in `audit.ts`; the whole report's schema is
 * put together in `../report-schema.ts`.
 */
import { z } from 'zod';
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
    /**
     * A run of several tenants: true when the service answered this tenant with the usage of the
     * whole account (every tenant's runs; it matches the sum of what the tenants' clients saw),
     * which is the service's design, not a disagreement. Absent otherwise.
     */
    accountWide: bool,
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
