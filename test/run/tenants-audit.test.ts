/**
 * Runs of several tenants (scenarios with tokens of their own) against the embedded service:
 * each run is followed with its own token, each tenant is audited with its own token, and the
 * audit says what it can know (a service that ignores `flow_id`, a token that may not read
 * usage) instead of reporting a disagreement.
 */
import { Ajv } from 'ajv';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type ApiResult, type Client, type UsageStats } from '../../src/api/index.js';
import { createFakeClock } from '../../src/core/clock.js';
import { REPORT_JSON_SCHEMA, renderHtml, renderMarkdown, renderSummary, type Report } from '../../src/report/index.js';
import { auditUsage, createUsageLedger, executeRun, type RunOptions } from '../../src/run/index.js';
import { loadScenarioFile, planOf, resolveRunPlan, resolveScenario, type ResolvedRunPlan } from '../../src/scenario/index.js';
import { startReferenceService, type ReferenceService, type ReferenceServiceOptions } from '../../src/target/index.js';

const TOKEN_A = 'fg_tenant_a';
const TOKEN_B = 'fg_tenant_b';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function service(options: ReferenceServiceOptions = {}): Promise<ReferenceService> {
  const s = await startReferenceService({
    latency: 'none',
    tokens: { [TOKEN_A]: { account: 'acct_a', tier: { limitPerMinute: 1_000_000 } }, [TOKEN_B]: { account: 'acct_b', tier: { limitPerMinute: 1_000_000 } } },
    ...options,
  });
  cleanups.push(() => s.close());
  return s;
}

function client(s: ReferenceService, token: string): Client {
  const c = createClient({ baseUrl: s.baseUrl, token, connections: 16 });
  cleanups.push(() => c.close());
  return c;
}

/** A plan of two scenarios `a` and `b`, each with its own token variable. */
function twoTenants(mix: (name: string) => Record<string, unknown>[], load: Record<string, unknown> = { executor: 'constant-arrival-rate', rate: '40/s', duration: '250ms' }): ResolvedRunPlan {
  return {
    kind: 'plan',
    name: 'two-tenants',
    description: '',
    scenarios: ['a', 'b'].map((name) => resolveScenario({ name, tier: 'pro', load, mix: mix(name) })),
    thresholds: [],
    objective: 0.999,
    tokenEnv: { a: 'TENANT_A_TOKEN', b: 'TENANT_B_TOKEN' },
  };
}

async function run(s: ReferenceService, plan: ResolvedRunPlan, clients: Record<string, Client>, extra: Partial<RunOptions> = {}, follow = { pollIntervalMs: 10 }) {
  return executeRun({
    scenario: plan,
    client: clients[plan.scenarios[0]?.name ?? ''] as Client,
    clients,
    target: { baseUrl: s.baseUrl, embedded: true },
    audit: true,
    follow,
    generator: true,
    ...extra,
  });
}

const validReport = new Ajv({ allErrors: true, strict: false }).compile(REPORT_JSON_SCHEMA);

/** Everything a person reads of the audit: the console summary, report.md and report.html. */
function rendered(report: Report): string {
  return [renderSummary(report), renderMarkdown(report), renderHtml(report, { uplotJs: '', uplotCss: '' })].join('\n');
}

describe('tenants: following and the audit with each tenant\'s own token', () => {
  it('follows every asynchronous run with the token of the tenant that started it', async () => {
    const s = await service({ runMode: 'async', latency: { ttftMs: 5, itlMs: 1, jitter: 0, runOverheadMs: 0 } });
    const polls = { a: 0, b: 0 };
    // Each tenant's client counts the polls made with it.
    const counted = (name: 'a' | 'b', token: string): Client => {
      const c = client(s, token);
      return { ...c, getRun: (id, o) => (polls[name]++, c.getRun(id, o)) };
    };
    const { report } = await run(s, twoTenants(() => [{ op: 'run' }]), { a: counted('a', TOKEN_A), b: counted('b', TOKEN_B) });
    const a = report.asyncRuns;
    const runs = report.ops.run?.count ?? 0;
    expect(runs).toBe(20);
    expect(a?.followed.run).toBe(runs);
    expect(a?.final).toMatchObject({ completed: runs, error: 0, timeout: 0, abandoned: 0 });
    expect(a?.polls.statuses['403'] ?? 0).toBe(0);
    expect(polls.a).toBeGreaterThanOrEqual(10);
    expect(polls.b).toBeGreaterThanOrEqual(10);
    expect(polls.a + polls.b).toBe(a?.polls.total);
    // And each tenant's runs are audited against its own account: exact, both.
    expect(report.audit?.usage).toBeUndefined();
    expect(report.audit?.tenants?.map((t) => [t.scenarios, t.usage?.exact, t.usage?.client.totalRuns, t.usage?.errors])).toEqual([
      [['a'], true, 10, []],
      [['b'], true, 10, []],
    ]);
    expect(validReport(report), JSON.stringify(validReport.errors)).toBe(true);
  });

  it('audits the shipped tenants scenario per tenant, without a false alarm', async () => {
    const FREE = 'fg_tenants_free';
    const PRO = 'fg_tenants_pro';
    const s = await startReferenceService({
      latency: 'none',
      rateLimit: { windowMs: 2000 },
      tokens: { [FREE]: { account: 'acct_a', tier: 'free' }, [PRO]: { account: 'acct_b', tier: 'pro' } },
    });
    cleanups.push(() => s.close());
    const raw = (await loadScenarioFile('scenarios/tenants.ts')) as Record<string, unknown>;
    const plan = planOf(resolveRunPlan(raw, { durationMs: 2000 }, { source: 'scenarios/tenants.ts' }));
    expect(plan.tokenEnv).toEqual({ free: 'FREE_TOKEN', pro: 'PRO_TOKEN' });
    const { report } = await run(s, plan, { free: client(s, FREE), pro: client(s, PRO) }, {}, { pollIntervalMs: 50 });
    const [free, pro] = report.audit?.tenants ?? [];
    expect(report.audit?.tenants).toHaveLength(2);
    // The free tenant only lists flows: nothing to compare, and no query sent with its token.
    expect(free).toEqual({ scenarios: ['free'] });
    expect(pro?.scenarios).toEqual(['pro']);
    expect(pro?.usage?.errors).toEqual([]);
    expect(pro?.usage?.forbidden).toBeUndefined();
    expect(pro?.usage?.diff).toMatchObject({ totalRuns: 0, successfulRuns: 0, failedRuns: 0 });
    expect(pro?.usage?.client.totalRuns).toBeGreaterThan(0);
    expect(validReport(report), JSON.stringify(validReport.errors)).toBe(true);
    const text = rendered(report);
    expect(text).not.toMatch(/\bdiffer\b|FORBIDDEN|could not be read/);
    expect(renderSummary(report)).toMatch(/^audit {3}pro: usage analytics agree: \d+ runs/m);
    expect(renderSummary(report)).toMatch(/^audit {3}free: no runs finished, nothing to compare$/m);
    expect(renderMarkdown(report)).toContain('### pro');
  });

  it('audits two scenarios with one token once, against that account', async () => {
    const s = await service();
    const shared = client(s, TOKEN_A);
    const plan = { ...twoTenants(() => [{ op: 'run' }]), tokenEnv: { a: 'SAME_TOKEN', b: 'SAME_TOKEN' } };
    // Separate client objects, one token (as the CLI builds them): the shared tokenEnv says so.
    const { report } = await run(s, plan, { a: shared, b: client(s, TOKEN_A) });
    const u = report.audit?.usage;
    expect(report.audit?.tenants).toBeUndefined();
    expect(u?.client.totalRuns).toBe(20);
    expect(u?.service?.totalRuns).toBe(20);
    expect(u?.exact).toBe(true);
  });
});

describe("issue 39: a service that answers account-wide usage to each tenant's audit", () => {
  it('two tenants on one account: each answer is the whole account, the tenants\' sum, shown as such and not as a difference', async () => {
    // Two tokens of one account: the service's usage analytics are the account's, every token's runs.
    const s = await startReferenceService({
      latency: 'none',
      tokens: { [TOKEN_A]: { account: 'acct_shared', tier: { limitPerMinute: 1_000_000 } }, [TOKEN_B]: { account: 'acct_shared', tier: { limitPerMinute: 1_000_000 } } },
    });
    cleanups.push(() => s.close());
    const { report } = await run(s, twoTenants(() => [{ op: 'run' }]), { a: client(s, TOKEN_A), b: client(s, TOKEN_B) });
    const [ta, tb] = report.audit?.tenants ?? [];
    // The truth: each tenant's client saw its own 10 runs; the service answers the account's 20.
    expect(ta?.usage?.client.totalRuns).toBe(10);
    expect(tb?.usage?.client.totalRuns).toBe(10);
    expect(ta?.usage?.service?.totalRuns).toBe(20);
    expect(ta?.usage).toMatchObject({ exact: false, accountWide: true });
    expect(tb?.usage).toMatchObject({ exact: false, accountWide: true });
    expect(validReport(report), JSON.stringify(validReport.errors)).toBe(true);
    const summary = renderSummary(report, { color: true });
    for (const name of ['a', 'b']) {
      const line = summary.split('\n').find((l) => l.startsWith(`audit   ${name}: `)) ?? '';
      expect(line).toContain("usage analytics are the whole account's (every tenant's runs): 20 runs");
      expect(line).not.toContain('\x1b[31m');
    }
    expect(rendered(report)).not.toMatch(/\bdiffer\b/);
  });

  it('a tenant of its own account whose answer is another figure still differs', async () => {
    const s = await service();
    const a = client(s, TOKEN_A);
    // The double adds 3 runs the client never sent: not the tenants' sum, a difference.
    const padded: Client = {
      ...a,
      getUsage: async (q, o) => {
        const r = await a.getUsage(q, o);
        if (!r.ok) return r;
        const m = r.value.metrics as Record<string, number>;
        return { ...r, value: { ...r.value, metrics: { ...m, total_runs: (m.total_runs ?? 0) + 3, successful_runs: (m.successful_runs ?? 0) + 3 } } } as ApiResult<UsageStats>;
      },
    };
    const { report } = await run(s, twoTenants(() => [{ op: 'run' }]), { a: padded, b: client(s, TOKEN_B) });
    const [ta] = report.audit?.tenants ?? [];
    expect(ta?.usage?.accountWide).toBeUndefined();
    expect(renderSummary(report)).toMatch(/^audit {3}a: usage analytics differ/m);
  });

  it('asynchronous runs whose usage the client never saw are no token difference', async () => {
    const s = await service({ runMode: 'async', latency: { ttftMs: 5, itlMs: 1, jitter: 0, runOverheadMs: 0 } });
    const a = client(s, TOKEN_A);
    // Following reads each run's end; the double's getRun leaves the usage out, as a service may.
    const bare: Client = {
      ...a,
      getRun: async (id, o) => {
        const r = await a.getRun(id, o);
        if (!r.ok) return r;
        const { usage: _u, ...rest } = r.value as unknown as Record<string, unknown>;
        return { ...r, value: rest } as typeof r;
      },
    };
    const { report } = await executeRun({
      scenario: resolveScenario({ name: 'async-tokens', tier: 'pro', load: { executor: 'constant-arrival-rate', rate: '40/s', duration: '250ms' }, mix: [{ op: 'run' }] }),
      client: bare,
      target: { baseUrl: s.baseUrl, embedded: true },
      audit: true,
      follow: { pollIntervalMs: 10 },
    });
    const u = report.audit?.usage;
    expect(u?.client.totalRuns).toBe(10);
    expect(u?.clientUnknown.runsWithoutTokens).toBe(10);
    expect(u?.diff).toMatchObject({ totalRuns: 0, successfulRuns: 0, failedRuns: 0 });
    expect(u?.diff?.totalTokens).toBeGreaterThan(0);
    expect(renderSummary(report)).toMatch(/^audit {3}usage analytics agree on 10 runs; tokens \+\d+ are of 10 runs the client saw without their usage/m);
    expect(rendered(report)).not.toMatch(/\bdiffer\b/);
  });
});

describe('the usage audit says what it can know', () => {
  it('finds a service that ignores flow_id: 40 runs over two flows are 40, not 80, and no disagreement', async () => {
    const s = await service();
    const real = client(s, TOKEN_A);
    const listed = await real.listFlows({ status: 'published', limit: 2 });
    const [f1, f2] = listed.ok ? listed.value.flows.map((f) => f.id) : [];
    expect(f1).toBeDefined();
    expect(f2).toBeDefined();
    // The double answers every usage query for the whole account, whatever flow_id says.
    const ignoring: Client = { ...real, getUsage: (q, o) => real.getUsage({ ...q, flow_id: undefined }, o) };
    const { report } = await executeRun({
      scenario: resolveScenario({ name: 'ignored-filter', tier: 'pro', load: { executor: 'constant-arrival-rate', rate: '80/s', duration: '500ms' }, mix: [{ op: 'run', flowId: f1 }, { op: 'run', flowId: f2 }] }),
      client: ignoring,
      target: { baseUrl: s.baseUrl, embedded: true },
      audit: true,
      follow: true,
      generator: true,
    });
    const u = report.audit?.usage;
    expect(report.ops.run?.count).toBe(40);
    expect(u).toMatchObject({ scope: 'account', filterIgnored: true, exact: true, flows: [], errors: [] });
    expect(u?.service?.totalRuns).toBe(40);
    expect(u?.client.totalRuns).toBe(40);
    expect(validReport(report), JSON.stringify(validReport.errors)).toBe(true);
    const text = rendered(report);
    expect(text).not.toMatch(/\bdiffer\b/);
    expect(renderSummary(report)).toMatch(/^audit {3}usage analytics agree: 40 runs, \d+ tokens \(the service ignores flow_id: its whole account read once\)$/m);
    expect(renderMarkdown(report)).toContain('the service ignores `flow_id`');
  });

  it('says a tenant whose token is refused usage (403) may not read it, not that the figures differ', async () => {
    const s = await service();
    const a = client(s, TOKEN_A);
    const b = client(s, TOKEN_B);
    const other = await b.listFlows({ limit: 1 });
    const foreign = other.ok ? other.value.flows[0]?.id : undefined;
    expect(foreign).toBeDefined();
    // Tenant a's token is refused every usage query by the service itself (403: another account's flow).
    const refused: Client = { ...a, getUsage: (q, o) => a.getUsage({ ...q, flow_id: foreign }, o) };
    const { report } = await run(s, twoTenants(() => [{ op: 'run' }]), { a: refused, b });
    const [ta, tb] = report.audit?.tenants ?? [];
    expect(ta?.usage).toMatchObject({ forbidden: true, service: null, diff: null, exact: false });
    expect(ta?.usage?.errors.every((e) => e.includes('HTTP 403'))).toBe(true);
    expect(ta?.usage?.client.totalRuns).toBe(10);
    expect(tb?.usage).toMatchObject({ exact: true, errors: [] });
    expect(tb?.usage?.forbidden).toBeUndefined();
    expect(validReport(report), JSON.stringify(validReport.errors)).toBe(true);
    const summary = renderSummary(report, { color: true });
    const line = summary.split('\n').find((l) => l.startsWith('audit   a: ')) ?? '';
    expect(line).toContain('usage analytics not compared: this token may not read usage');
    // Not painted as an alarm.
    expect(line).not.toContain('\x1b[31m');
    expect(summary).toMatch(/^audit {3}b: usage analytics agree: 10 runs/m);
    expect(rendered(report)).not.toMatch(/\bdiffer\b|could not be read/);
    expect(renderMarkdown(report)).toContain('this token may not read usage');
  });

  it('finds repeated per-flow answers when the account itself cannot be read', async () => {
    const clock = createFakeClock();
    const ledger = createUsageLedger();
    for (let i = 0; i < 20; i++) ledger.finished('f1', 'completed', 10);
    for (let i = 0; i < 20; i++) ledger.finished('f2', 'completed', 10);
    const meta = (status: number) => ({ status, requestId: undefined, rateLimit: { limit: undefined, remaining: undefined, reset: undefined, raw: {} }, startNs: 0, headersNs: 0, endNs: 0, sentNs: 0, connectNs: 0, tlsNs: 0 });
    const asked: (string | undefined)[] = [];
    const getUsage = (q?: { flow_id?: string }): Promise<ApiResult<UsageStats>> => {
      asked.push(q?.flow_id);
      if (q?.flow_id === undefined) return Promise.resolve({ ok: false, error: { code: 'INTERNAL_ERROR', status: 500 } as never, meta: meta(500), violations: [] } as never);
      const value = { period: { start: '', end: '' }, metrics: { total_runs: 40, successful_runs: 40, failed_runs: 0, total_tokens: 400, avg_response_time: 1, cost: 0 }, daily_breakdown: [] };
      return Promise.resolve({ ok: true, value, meta: meta(200), violations: [] } as never);
    };
    const u = await auditUsage({ client: { getUsage } as unknown as Client, clock }, ledger, { startMs: 0, endMs: 1000 });
    expect(asked).toEqual(['f1', 'f2', undefined]);
    expect(u).toMatchObject({ scope: 'account', filterIgnored: true, exact: true, service: { totalRuns: 40, totalTokens: 400 }, client: { totalRuns: 40 } });
  });
});
