/**
 * The audit: what the client saw finish (runs, streams, triggers, tokens; the runs of each
 * session in order) is kept in a ledger, and after the schedule compared with the service's
 * own account (`/analytics/usage`, session histories), within the finishing deadline.
 * Owns the `audit` section. The audit belongs to an unsharded run: a shard sees only its share.
 *
 * One ledger per tenant (the scenarios that share a token, `PhaseContext.tenantOf`), each
 * read back with that tenant's client: another tenant's token may not read its runs, and two
 * accounts' figures are not one comparison. A run of one tenant reports `audit.usage` and
 * `audit.sessions` as ever; a run of several reports `audit.tenants`, one entry each.
 */
import type { StreamSummary, TriggerAck } from '../../api/index.js';
import type { AuditReport, TenantAuditReport } from '../../report/index.js';
import { auditSessions, auditUsage, createUsageLedger, markAccountWide, sessionBaseline, type UsageLedger } from '../audit.js';
import type { PhaseContext, RunPhase } from '../phase.js';
import { runIdOfAck } from '../run-ids.js';

/** What is kept for one tenant. */
interface Tenant {
  /** Its first scenario's name (whose client reads its account). */
  readonly name: string;
  readonly scenarios: string[];
  readonly ledger: UsageLedger;
  /** Accepted work whose end is learnt later (or never), by flow: what is left at the end is unresolved. */
  readonly pending: Map<string, number>;
  baseline: Map<string, number>;
}

const newTenant = (name: string): Tenant => ({ name, scenarios: [], ledger: createUsageLedger(), pending: new Map(), baseline: new Map() });

/** The audit phase. */
export function createAuditPhase(): RunPhase {
  const tenants: Tenant[] = [];
  const byScenario = new Map<string, Tenant>();
  // With several tenants: whose trigger a run id is, for ends that do not name their scenario (notifications).
  const triggerTenant = new Map<string, Tenant>();
  let ctx: PhaseContext | undefined;
  let section: AuditReport | undefined;

  const tenantOf = (scenario: string | undefined): Tenant => {
    const known = scenario === undefined ? undefined : byScenario.get(scenario);
    if (known !== undefined) return known;
    if (tenants.length === 0) tenants.push(newTenant(scenario ?? ''));
    return tenants[0] as Tenant;
  };
  const bump = (t: Tenant, flowId: string | undefined, by: number): void => {
    if (flowId === undefined) return;
    t.pending.set(flowId, (t.pending.get(flowId) ?? 0) + by);
  };
  /** The tenant an asynchronous end belongs to: its scenario's, its trigger's, else the one awaiting its flow. */
  const tenantOfEnd = (scenario: string | undefined, runId: string, flowId: string): Tenant => {
    if (scenario !== undefined && byScenario.has(scenario)) return byScenario.get(scenario) as Tenant;
    const byRun = triggerTenant.get(runId);
    if (byRun !== undefined) return byRun;
    return tenants.find((t) => (t.pending.get(flowId) ?? 0) > 0) ?? tenantOf(undefined);
  };

  return {
    name: 'audit',
    // What the service counts: runs, streams and triggers (a page of flows is never read).
    values: ['run', 'stream', 'trigger'],

    async start(c) {
      ctx = c;
      for (const name of c.scenarios) {
        const key = c.tenantOf(name);
        let t = tenants.find((x) => x.name === key);
        if (t === undefined) tenants.push((t = newTenant(key)));
        t.scenarios.push(name);
        byScenario.set(name, t);
      }
      if (c.sharded) return;
      for (const t of tenants) {
        const ids = [...new Set(t.scenarios.flatMap((s) => c.sessionIdsOf[s] ?? []))];
        if (ids.length > 0) t.baseline = await sessionBaseline(c.clientOf(t.name), ids);
      }
    },

    sample(s) {
      const t = tenantOf(s.scenario);
      const ledger = t.ledger;
      if (s.op === 'stream') {
        if (s.value !== undefined) {
          ledger.finished(s.flowId, 'completed', (s.value as StreamSummary).usage?.total_tokens);
          if (s.sessionId !== undefined) ledger.sessionRun(s.sessionId, s.input ?? '', 'completed', s.startNs, s.endNs);
        } else if (s.errorCode === 'STREAM_ERROR_EVENT') {
          // The service said the run failed; how many tokens it counts for it the client cannot know.
          ledger.finished(s.flowId, 'failed', undefined);
          if (s.sessionId !== undefined) ledger.sessionRun(s.sessionId, s.input ?? '', 'failed', s.startNs, s.endNs);
        }
        return;
      }
      if (s.value === undefined) return;
      if (s.op === 'trigger') {
        const runId = tenants.length > 1 ? runIdOfAck(s.value as TriggerAck) : undefined;
        if (runId !== undefined) triggerTenant.set(runId, t);
        return bump(t, s.flowId, 1);
      }
      if (s.op !== 'run') return;
      if (s.runStatus === 'running') return bump(t, s.flowId, 1);
      if (s.runStatus !== 'completed' && s.runStatus !== 'failed') return;
      ledger.finished(s.flowId, s.runStatus, (s.value as { usage?: { total_tokens?: number } }).usage?.total_tokens);
      if (s.sessionId !== undefined) ledger.sessionRun(s.sessionId, s.input ?? '', s.runStatus, s.startNs, s.endNs);
    },

    asyncEnd(e) {
      if (e.status === 'unresolved' || e.flowId === undefined) return;
      const t = tenantOfEnd(e.scenario, e.runId, e.flowId);
      triggerTenant.delete(e.runId);
      bump(t, e.flowId, -1);
      t.ledger.finished(e.flowId, e.status, e.totalTokens);
      if (e.sessionId !== undefined) t.ledger.sessionRun(e.sessionId, e.input ?? '', e.status, e.startNs, e.atNs);
    },

    async finish(f) {
      if (ctx === undefined || ctx.sharded || f.interrupted) return;
      const audits: TenantAuditReport[] = [];
      for (const t of tenants) {
        for (const [flowId, n] of t.pending) for (let i = 0; i < n; i++) t.ledger.unresolved(flowId);
        const a = { client: ctx.clientOf(t.name), clock: ctx.clock, signal: f.signal };
        // One tenant of several that sent no run has nothing to compare: no query is sent for it.
        const skip = tenants.length > 1 && t.ledger.flows.size === 0;
        const usage = skip ? undefined : await auditUsage(a, t.ledger, { startMs: ctx.startedAtMs, endMs: ctx.clock.wallMs() });
        const sessions = t.ledger.sessions.size > 0 ? await auditSessions(a, t.ledger, t.baseline) : undefined;
        audits.push({ scenarios: t.scenarios, ...(usage !== undefined ? { usage } : {}), ...(sessions !== undefined ? { sessions } : {}) });
      }
      // A service that answers every tenant with the account's usage matches their sum: said as such.
      const marked = markAccountWide(audits.map((a) => a.usage));
      audits.forEach((a, i) => {
        const u = marked[i];
        if (u !== undefined) audits[i] = { ...a, usage: u };
      });
      const incomplete = f.signal.aborted ? { incomplete: true } : {};
      const only = audits.length === 1 ? audits[0] : undefined;
      section =
        only !== undefined
          ? { ...(only.usage !== undefined ? { usage: only.usage } : {}), ...(only.sessions !== undefined ? { sessions: only.sessions } : {}), ...incomplete }
          : { tenants: audits, ...incomplete };
    },

    section: { key: 'audit', project: () => section },
  };
}
