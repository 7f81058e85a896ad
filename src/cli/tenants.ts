/**
 * Tokens of a run of several scenarios (tenants). A scenario that names a `tokenEnv` uses that
 * environment variable's token; against the embedded service, a tenant without one gets the
 * service's demo token of its tier. Tokens are never printed. The run session builds one
 * client per token from them (`run/run-clients.ts`).
 */
import type { ResolvedRunPlan, ResolvedScenario } from '../scenario/index.js';
import { UsageError } from './context.js';
import type { ResolvedTarget } from './target-options.js';

/** The embedded service's tier key for a scenario's tier. */
export function tierKeyOf(s: ResolvedScenario): 'free' | 'pro' | 'enterprise' {
  return typeof s.tier === 'string' ? s.tier : 'enterprise';
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
