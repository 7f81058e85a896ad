/** The interface's rate-limit tiers (docs/reference-service.md, "Rate limits"). */

/** Named tiers with a published limit. */
export const TIER_LIMITS_PER_MINUTE = { free: 100, pro: 1000 } as const;

/** A tier by name, or a custom (enterprise) limit. */
export type Tier = keyof typeof TIER_LIMITS_PER_MINUTE | { readonly limitPerMinute: number };

/** Requests per minute a tier allows. */
export function tierLimitPerMinute(tier: Tier): number {
  return typeof tier === 'string' ? TIER_LIMITS_PER_MINUTE[tier] : tier.limitPerMinute;
}

/** A short label for metrics and reports: `free`, `pro`, or `custom`. */
export function tierLabel(tier: Tier): string {
  return typeof tier === 'string' ? tier : 'custom';
}
