/**
 * Tokens and clients of a run of several scenarios (tenants). A scenario that names a
 * `tokenEnv` uses that environment variable's token; against the embedded service, a tenant
 * without one gets the service's demo token of its tier. Tokens are never printed.
 */
import { createClient, type Client, type ClientOptions } from '../api/index.js';
import { isClosedModel } from '../load/index.js';
import type { ResolvedRunPlan, ResolvedScenario } from '../scenario/index.js';
import { UsageError } from './context.js';
import type { ResolvedTarget } from './target-options.js';

/** The embedded service's tier key for a scenario's tier. */
export function tierKeyOf(s: ResolvedScenario): 'free' | 'pro' | 'enterprise' {
  return typeof s.tier === 'string' ? s.tier : 'enterprise';
}

/**
 * Connections a scenario needs so the client never caps it: the closed model's concurrency,
 * the open model's in-flight limit. `--connections` stays an explicit cap.
 */
export function connectionsFor(scenarios: readonly ResolvedScenario[]): number {
  return Math.max(1, scenarios.reduce((n, s) => n + (isClosedModel(s.load) ? s.load.concurrency : s.load.maxInFlight), 0));
}

/** Checks, before anything starts, that every named token variable is set (for a real target). */
export function checkTenantTokens(plan: ResolvedRunPlan, env: Readonly<Record<string, string | undefined>>, embedded: boolean): void {
  const missing = Object.entries(plan.tokenEnv).filter(([, v]) => (env[v] ?? '') === '');
  if (missing.length > 0 && !embedded) {
    throw new UsageError(`${missing.map(([s, v]) => `scenario "${s}" takes its token from ${v}, which is not set`).join('; ')}`);
  }
}

/**
 * The token of a run whose every scenario names its own `tokenEnv`, all set: the first
 * scenario's (it reads for the run what no scenario owns); undefined otherwise.
 */
export function ownTokenOf(plan: ResolvedRunPlan, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const tokens = plan.scenarios.map((s) => (plan.tokenEnv[s.name] === undefined ? '' : (env[plan.tokenEnv[s.name] as string] ?? '')));
  return tokens.length > 0 && tokens.every((t) => t !== '') ? tokens[0] : undefined;
}

/**
 * The target flags with `own` as the token when a real target is named without `--token` or
 * `FLOWGAUGE_TOKEN`: a run whose scenarios all bring their own tokens needs none given.
 */
export function withOwnToken<A extends { readonly 'base-url'?: string | undefined; readonly token?: string | undefined; readonly 'token-file'?: string | undefined }>(
  args: A,
  env: Readonly<Record<string, string | undefined>>,
  own: string | undefined,
): A {
  const given = args.token ?? args['token-file'] ?? env.FLOWGAUGE_TOKEN;
  if (own === undefined || args['base-url'] === undefined || (given !== undefined && given !== '')) return args;
  return { ...args, token: own };
}

/** The token of each scenario of a run of several (tenants): its own variable's, else the embedded service's of its tier. */
export function tenantTokens(plan: ResolvedRunPlan, target: ResolvedTarget, env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  if (plan.scenarios.length < 2) return {};
  const out: Record<string, string> = {};
  for (const s of plan.scenarios) {
    const fromEnv = plan.tokenEnv[s.name] === undefined ? undefined : env[plan.tokenEnv[s.name] as string];
    out[s.name] = fromEnv !== undefined && fromEnv !== '' ? fromEnv : target.service !== undefined ? target.service.tokens[tierKeyOf(s)] : target.token;
  }
  return out;
}

/**
 * One client per token of a run of several scenarios: scenarios with the same token share it, so
 * the run sees them as one tenant (one rate-limit window, one audit), as the service does.
 */
export function tenantClients(
  plan: ResolvedRunPlan,
  target: ResolvedTarget,
  env: Readonly<Record<string, string | undefined>>,
  options: Omit<ClientOptions, 'baseUrl' | 'token'>,
): Record<string, Client> {
  const tokens = tenantTokens(plan, target, env);
  const byToken = new Map<string, ResolvedScenario[]>();
  for (const s of plan.scenarios) {
    const token = tokens[s.name];
    if (token !== undefined) byToken.set(token, [...(byToken.get(token) ?? []), s]);
  }
  const out: Record<string, Client> = {};
  for (const [token, scenarios] of byToken) {
    const client = createClient({ connections: connectionsFor(scenarios), ...options, baseUrl: target.baseUrl, token });
    for (const s of scenarios) out[s.name] = client;
  }
  return out;
}

/**
 * One worker's share of the connections: the scenario's need (or `--connections`) split over
 * the workers, rounded up, so together they never cap the load.
 */
export function workerConnections(
  scenarios: readonly ResolvedScenario[],
  workers: number,
  cap: number | undefined,
): { readonly total: number; readonly byScenario: Readonly<Record<string, number>> } {
  const share = (n: number): number => Math.max(1, Math.ceil(n / workers));
  return {
    total: share(cap ?? connectionsFor(scenarios)),
    byScenario: Object.fromEntries(scenarios.map((s) => [s.name, share(cap ?? connectionsFor([s]))])),
  };
}
