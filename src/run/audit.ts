/**
 * The audit after a run: what the service says it served, against what the client saw.
 *
 * - `usage`: `/analytics/usage` over the run's window and flows, compared with the runs,
 *   streams and triggers the client saw finish and the tokens their `usage` reported. The
 *   service may count other traffic of the account, so both numbers and the difference are
 *   reported; nothing fails on it unless a threshold asks. One audit reads one account: a run
 *   of several tenants keeps one ledger per tenant, each read with its own token.
 * - `sessions`: for sessions the mix ran in, the history is read back and checked: messages
 *   in the order sent, roles alternating user/assistant, two messages per run.
 */
import { retryWaitSeconds, type ApiResult, type Client, type History, type UsageStats } from '../api/index.js';
import { NS_PER_MS, type Clock } from '../core/clock.js';
import type { SessionAuditReport, SessionProblem, UsageAuditReport, UsageCounts, UsageFlowAudit } from '../report/index.js';

/** The audit's report shapes live in report/ (report@1); re-exported for callers of the audit. */
export type { SessionAuditReport, UsageAuditReport, UsageCounts };

/** What the client saw finish, per flow and per session. */
export interface UsageLedger {
  /** A run, stream or trigger the client saw finish; `tokens` when its usage said. */
  finished(flowId: string | undefined, status: 'completed' | 'failed', tokens: number | undefined): void;
  /** A run or trigger accepted whose end the client never learnt. */
  unresolved(flowId: string): void;
  /** A run or stream in a session that finished (any status) between `startNs` and `endNs`. */
  sessionRun(sessionId: string, input: string, status: 'completed' | 'failed', startNs: number, endNs: number): void;
  readonly flows: ReadonlyMap<string, UsageCounts & { readonly tokensUnknown: number; readonly unresolved: number }>;
  readonly sessions: ReadonlyMap<string, readonly SessionRun[]>;
}

/** One run of a session, as sent. */
export interface SessionRun {
  readonly input: string;
  readonly status: 'completed' | 'failed';
  readonly startNs: number;
  readonly endNs: number;
}

type MutableCounts = { totalRuns: number; successfulRuns: number; failedRuns: number; totalTokens: number; tokensUnknown: number; unresolved: number };

/** Creates an empty ledger. */
export function createUsageLedger(): UsageLedger {
  const flows = new Map<string, MutableCounts>();
  const sessions = new Map<string, SessionRun[]>();
  const flow = (id: string): MutableCounts => {
    let c = flows.get(id);
    if (c === undefined) flows.set(id, (c = { totalRuns: 0, successfulRuns: 0, failedRuns: 0, totalTokens: 0, tokensUnknown: 0, unresolved: 0 }));
    return c;
  };
  return {
    finished(flowId, status, tokens) {
      const c = flow(flowId ?? '');
      c.totalRuns++;
      if (status === 'completed') c.successfulRuns++;
      else c.failedRuns++;
      if (tokens === undefined) c.tokensUnknown++;
      else c.totalTokens += tokens;
    },
    unresolved(flowId) {
      flow(flowId).unresolved++;
    },
    sessionRun(sessionId, input, status, startNs, endNs) {
      let list = sessions.get(sessionId);
      if (list === undefined) sessions.set(sessionId, (list = []));
      list.push({ input, status, startNs, endNs });
    },
    flows,
    sessions,
  };
}

const ZERO: UsageCounts = { totalRuns: 0, successfulRuns: 0, failedRuns: 0, totalTokens: 0 };
const MAX_FLOW_QUERIES = 10;
const MAX_PROBLEMS = 50;

function add(a: UsageCounts, b: UsageCounts): UsageCounts {
  return {
    totalRuns: a.totalRuns + b.totalRuns,
    successfulRuns: a.successfulRuns + b.successfulRuns,
    failedRuns: a.failedRuns + b.failedRuns,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

function sub(a: UsageCounts, b: UsageCounts): UsageCounts {
  return {
    totalRuns: a.totalRuns - b.totalRuns,
    successfulRuns: a.successfulRuns - b.successfulRuns,
    failedRuns: a.failedRuns - b.failedRuns,
    totalTokens: a.totalTokens - b.totalTokens,
  };
}

const counts = (c: UsageCounts): UsageCounts => ({ totalRuns: c.totalRuns, successfulRuns: c.successfulRuns, failedRuns: c.failedRuns, totalTokens: c.totalTokens });

function fromStats(s: UsageStats): UsageCounts | undefined {
  const m = s.metrics as Record<string, unknown> | undefined;
  const n = (k: string): number | undefined => (typeof m?.[k] === 'number' ? (m[k] as number) : undefined);
  const [a, b, c, d] = [n('total_runs'), n('successful_runs'), n('failed_runs'), n('total_tokens')];
  if (a === undefined || b === undefined || c === undefined || d === undefined) return undefined;
  return { totalRuns: a, successfulRuns: b, failedRuns: c, totalTokens: d };
}

/** What the audits need besides the client. */
export interface AuditContext {
  readonly client: Client;
  readonly clock: Clock;
  /** Aborting it ends the audit: requests in flight are cancelled, no window is waited for. */
  readonly signal?: AbortSignal;
  /**
   * Longest wait for a throttled query's window to reset (default 15 s); a longer window is
   * not waited for and the query is reported as failed, so a run at its limit ends promptly.
   */
  readonly maxWaitMs?: number;
}

/** The audit's requests obey the run's finish signal: a trickling answer cannot hold the report. */
const callOpts = (ctx: AuditContext): { signal?: AbortSignal } => (ctx.signal === undefined ? {} : { signal: ctx.signal });

/** Runs `call`; on a 429 waits out Retry-After (or a delta Reset) once, when that is within `maxWaitMs`. */
async function withRetry<T>(ctx: AuditContext, call: () => Promise<ApiResult<T>>): Promise<ApiResult<T>> {
  const first = await call();
  if (first.ok || first.meta.status !== 429 || ctx.signal?.aborted === true) return first;
  const waitS = retryWaitSeconds(first.meta.rateLimit) ?? 60;
  const waitMs = waitS * 1000 + 250;
  if (waitMs > (ctx.maxWaitMs ?? 15_000)) return first;
  await new Promise<void>((resolve) => {
    const h = ctx.clock.setTimer(ctx.clock.nowNs() + waitMs * NS_PER_MS, done);
    function done(): void {
      ctx.signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort(): void {
      ctx.clock.clearTimer(h);
      done();
    }
    ctx.signal?.addEventListener('abort', onAbort, { once: true });
  });
  return call();
}

/** What one usage query gave: figures, a refusal of the token (401/403), or a failure. */
type Answer =
  | { readonly kind: 'counts'; readonly counts: UsageCounts }
  | { readonly kind: 'denied'; readonly error: string }
  | { readonly kind: 'failed'; readonly error: string };

/** Statuses that say this token may not read usage (not that the figures differ). */
const DENIED = new Set([401, 403]);

const same = (a: UsageCounts, b: UsageCounts): boolean =>
  a.totalRuns === b.totalRuns && a.successfulRuns === b.successfulRuns && a.failedRuns === b.failedRuns && a.totalTokens === b.totalTokens;

const exceeds = (a: UsageCounts, b: UsageCounts): boolean =>
  a.totalRuns > b.totalRuns || a.successfulRuns > b.successfulRuns || a.failedRuns > b.failedRuns || a.totalTokens > b.totalTokens;

/**
 * Whether per-flow answers can only come from a service that ignored `flow_id`: the parts of
 * an account cannot add up to more than the account (asked after them, so it can only have
 * grown). When the account's answer is unknown: the answers repeat each other exactly and each
 * holds at least everything the client saw on all its flows.
 */
function filterIgnoredBy(answers: readonly UsageCounts[], account: UsageCounts | undefined, client: UsageCounts): boolean {
  if (answers.length < 2) return false;
  if (account !== undefined) return exceeds(answers.reduce(add, ZERO), account);
  const first = answers[0] as UsageCounts;
  return first.totalRuns > 0 && answers.every((a) => same(a, first)) && first.totalRuns >= client.totalRuns;
}

/**
 * Compares `/analytics/usage` over `[startMs, endMs)` with the ledger: one query per flow the
 * run used (or one for the whole account past ten flows). With two flows or more the account
 * is asked once too: per-flow answers that add up to more than it (or repeat each other) show
 * a service that ignores `flow_id`, and the account's answer is compared instead
 * (`filterIgnored`). A token refused every query (401/403) may not read usage (`forbidden`):
 * nothing is compared, which is not a disagreement.
 */
export async function auditUsage(ctx: AuditContext, ledger: UsageLedger, window: { readonly startMs: number; readonly endMs: number }): Promise<UsageAuditReport> {
  const start = new Date(Math.floor(window.startMs)).toISOString();
  const end = new Date(Math.ceil(window.endMs) + 1).toISOString();
  const flowIds = [...ledger.flows.keys()].filter((f) => f !== '');
  const perFlow = flowIds.length <= MAX_FLOW_QUERIES && !ledger.flows.has('');
  const ask = async (flowId: string | undefined): Promise<Answer> => {
    const q = { start_date: start, end_date: end, granularity: 'day' as const, ...(flowId !== undefined ? { flow_id: flowId } : {}) };
    const r = await withRetry(ctx, () => ctx.client.getUsage(q, callOpts(ctx)));
    const label = flowId ?? '(account)';
    if (!r.ok) {
      const error = `${label}: ${r.error.code}${r.meta.status > 0 ? ` (HTTP ${r.meta.status})` : ''}`;
      return { kind: DENIED.has(r.meta.status) ? 'denied' : 'failed', error };
    }
    const c = fromStats(r.value);
    return c === undefined ? { kind: 'failed', error: `${label}: metrics missing or not numbers` } : { kind: 'counts', counts: c };
  };
  const countsOf = (a: Answer): UsageCounts | null => (a.kind === 'counts' ? a.counts : null);
  const errorsOf = (list: readonly Answer[]): string[] => list.flatMap((a) => (a.kind === 'counts' ? [] : [a.error]));

  let runsWithoutTokens = 0;
  let unresolved = 0;
  let client = ZERO;
  for (const c of ledger.flows.values()) {
    client = add(client, c);
    runsWithoutTokens += c.tokensUnknown;
    unresolved += c.unresolved;
  }
  const clientUnknown = { runsWithoutTokens, unresolved };
  const result = (scope: 'per-flow' | 'account', service: UsageCounts | null, flows: UsageFlowAudit[], errors: string[], extra: { filterIgnored?: true; forbidden?: true } = {}): UsageAuditReport => {
    const diff = service === null ? null : sub(service, client);
    const exact = diff !== null && errors.length === 0 && Object.values(diff).every((v) => v === 0);
    return { window: { start, end }, scope, service, client, diff, exact, flows, clientUnknown, errors, ...extra };
  };
  const forbidden = (answers: readonly Answer[]): { forbidden?: true } => (answers.length > 0 && answers.every((a) => a.kind === 'denied') ? { forbidden: true } : {});

  if (!perFlow) {
    const a = await ask(undefined);
    return result('account', countsOf(a), [], errorsOf([a]), forbidden([a]));
  }
  const answers: Answer[] = [];
  for (const flowId of flowIds) answers.push(await ask(flowId));
  const read = answers.flatMap((a) => (a.kind === 'counts' ? [a.counts] : []));
  if (read.length >= 2) {
    const account = await ask(undefined);
    if (filterIgnoredBy(read, countsOf(account) ?? undefined, client)) {
      // The service answers for the whole account whatever the filter: its answer, once.
      return result('account', countsOf(account) ?? (read[0] as UsageCounts), [], [], { filterIgnored: true });
    }
  }
  const flows: UsageFlowAudit[] = [];
  let service: UsageCounts | null = ZERO;
  flowIds.forEach((flowId, i) => {
    const s = countsOf(answers[i] as Answer);
    const c = counts(ledger.flows.get(flowId) ?? ZERO);
    flows.push({ flowId, service: s, client: c, diff: s === null ? null : sub(s, c) });
    service = s === null || service === null ? null : add(service, s);
  });
  return result('per-flow', service, flows, errorsOf(answers), forbidden(answers));
}

/**
 * Reads back the history of every session the mix ran in and checks it against what was sent.
 * `baseline` is the number of messages each session had before the run (they are skipped).
 */
export async function auditSessions(ctx: AuditContext, ledger: UsageLedger, baseline: ReadonlyMap<string, number> = new Map()): Promise<SessionAuditReport> {
  const problems: SessionProblem[] = [];
  const problem = (p: SessionProblem): void => {
    if (problems.length < MAX_PROBLEMS) problems.push(p);
  };
  let runs = 0;
  let checked = 0;
  let inOrder = 0;
  let alternating = 0;
  let countMatches = 0;
  let concurrent = 0;
  for (const [sessionId, list] of ledger.sessions) {
    runs += list.length;
    const sent = [...list].sort((a, b) => a.startNs - b.startNs);
    const overlapped = sent.some((r, i) => i > 0 && r.startNs < (sent[i - 1] as SessionRun).endNs);
    if (overlapped) concurrent++;
    if (ctx.signal?.aborted === true) break;
    const r: ApiResult<History> = await withRetry(ctx, () => ctx.client.getHistory(sessionId, callOpts(ctx)));
    if (!r.ok) {
      problem({ sessionId, check: 'read', expected: 'history', got: r.error.code });
      continue;
    }
    checked++;
    const all = Array.isArray(r.value.messages) ? r.value.messages : [];
    if (typeof r.value.total === 'number' && r.value.total !== all.length) {
      problem({ sessionId, check: 'total', expected: `total = ${all.length} messages listed`, got: String(r.value.total) });
    }
    const messages = all.slice(baseline.get(sessionId) ?? 0);
    // A failed run is taken to leave its user message and no reply (the interface does not say).
    const completed = sent.filter((s) => s.status === 'completed').length;
    const expected = 2 * completed + (sent.length - completed);
    if (messages.length === expected) countMatches++;
    else problem({ sessionId, check: 'count', expected: `${expected} messages (2 × ${completed} completed runs + ${sent.length - completed} failed)`, got: String(messages.length) });

    const stamps = messages.map((m) => Date.parse(String(m.timestamp)));
    const badStamp = stamps.findIndex((t, i) => i > 0 && !(t >= (stamps[i - 1] as number)));
    if (badStamp > 0) problem({ sessionId, check: 'timestamps', expected: 'oldest first', got: `message ${badStamp} is older than message ${badStamp - 1}` });
    if (overlapped) continue;

    const roleAt = messages.findIndex((m, i) => m.role !== (i % 2 === 0 ? 'user' : 'assistant'));
    // Alternation may legitimately break after a failed run's lone user message; only judge sessions without failures.
    if (completed === sent.length) {
      if (roleAt < 0) alternating++;
      else problem({ sessionId, check: 'roles', expected: `message ${roleAt} from ${roleAt % 2 === 0 ? 'user' : 'assistant'}`, got: String(messages[roleAt]?.role) });
    }
    const userTexts = messages.filter((m) => m.role === 'user').map((m) => m.content);
    const sentTexts = sent.map((s) => s.input);
    const orderAt = sentTexts.findIndex((t, i) => userTexts[i] !== t);
    if (orderAt < 0 && userTexts.length === sentTexts.length) inOrder++;
    else problem({ sessionId, check: 'order', expected: `user message ${Math.max(orderAt, 0)} = input sent ${Math.max(orderAt, 0)}`, got: orderAt < 0 ? `${userTexts.length} user messages for ${sentTexts.length} inputs` : 'a different text' });
  }
  return { sessions: ledger.sessions.size, runs, checked, inOrder, alternating, countMatches, concurrent, problems };
}

/** Messages each session has before the run starts, so the audit judges only what the run added. */
export async function sessionBaseline(client: Client, sessionIds: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const id of sessionIds) {
    const r = await client.getHistory(id);
    if (r.ok && Array.isArray(r.value.messages)) out.set(id, r.value.messages.length);
  }
  return out;
}

/**
 * A run of several tenants whose service answers each with the usage of the whole account:
 * each tenant's answer that matches the sum of what every tenant's client saw (on the flows it
 * asked about) is marked `accountWide`, the service's design and not a disagreement. Tokens of
 * runs the clients saw finish without their usage (asynchronous ones) may make the service's
 * count higher.
 */
export function markAccountWide(usages: readonly (UsageAuditReport | undefined)[]): (UsageAuditReport | undefined)[] {
  const read = usages.filter((u): u is UsageAuditReport => u !== undefined);
  if (read.length < 2) return [...usages];
  const unknownTokens = read.reduce((n, u) => n + (u.clientUnknown?.runsWithoutTokens ?? 0), 0);
  return usages.map((u) => {
    if (u === undefined || u.service === null || u.exact || u.errors.length > 0) return u;
    const flows = new Set(u.scope === 'per-flow' ? u.flows.map((f) => f.flowId) : []);
    const seen = read.reduce((sum, other) => {
      if (flows.size === 0 || other.scope !== 'per-flow') return add(sum, other.client);
      return other.flows.filter((f) => flows.has(f.flowId)).reduce((s, f) => add(s, f.client), sum);
    }, ZERO);
    const s = u.service;
    const runsMatch = s.totalRuns === seen.totalRuns && s.successfulRuns === seen.successfulRuns && s.failedRuns === seen.failedRuns;
    const tokensMatch = s.totalTokens === seen.totalTokens || (unknownTokens > 0 && s.totalTokens > seen.totalTokens);
    return runsMatch && tokensMatch && !same(seen, u.client) ? { ...u, accountWide: true } : u;
  });
}

