/**
 * The zod pieces of the input units — a rate (absolute, or a share of the tier still to be
 * resolved), a duration — and the strict object whose unknown-field message lists what is
 * allowed. Shared by the scenario format and the executors' own schema pieces (`load/`), so
 * every message names what is allowed in the same words.
 */
import { z } from 'zod';
import { DURATION_HELP, parseDurationMs, parsePercent, parseRatePerS, RATE_HELP } from './units.js';

/** A rate before the tier is known. */
export type RateSpec =
  | { readonly perS: number; readonly fraction?: undefined }
  | { readonly fraction: number; readonly perS?: undefined };

/** Longest schedule: the monotonic clock holds integer ns exactly for 104 days. */
export const MAX_DURATION_MS = 90 * 86_400_000;

/** Highest absolute rate one process can schedule (per second). */
export const MAX_RATE_PER_S = 100_000;

/** Rate forms, for messages. */
export const RATE_FORMS = `${RATE_HELP}, or a share of the tier limit such as "100%" or "120%"`;

/** Formats any input for a message without throwing (bigint, symbols, cycles). */
export function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' || v === null || v === undefined) {
    return String(v);
  }
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** A strict object whose unknown-field issue lists the allowed fields. */
export function strict<S extends z.core.$ZodLooseShape>(shape: S, what = 'allowed') {
  const allowed = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (iss) => (iss.code === 'unrecognized_keys' ? `${what}: ${allowed}` : undefined),
  });
}

/** A rate: absolute (per second) or a share of the tier (`"120%"`), resolved against the tier later. */
export function rate(min: 'positive' | 'non-negative') {
  return z
    .union([z.number(), z.string()], { error: (iss) => `${show(iss.input)} is not a rate; use ${RATE_FORMS}` })
    .transform((v, ctx): RateSpec => {
      const perS = parseRatePerS(v);
      const fraction = perS === undefined ? parsePercent(v) : undefined;
      const value = perS ?? fraction;
      if (value === undefined || !Number.isFinite(value)) {
        ctx.addIssue({ code: 'custom', message: `${show(v)} is not a rate; use ${RATE_FORMS}` });
        return z.NEVER;
      }
      if (min === 'positive' && value === 0) {
        ctx.addIssue({ code: 'custom', message: 'must be > 0' });
        return z.NEVER;
      }
      if (perS !== undefined && perS > MAX_RATE_PER_S) {
        ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_RATE_PER_S.toLocaleString('en-US')}/s: one process cannot schedule more (run shards)` });
        return z.NEVER;
      }
      return perS !== undefined ? { perS } : { fraction: value };
    });
}

/** A duration in ms, from `"500ms"`, `"2m"` or a number of ms; at most 90 days. */
export function duration(min: 'positive' | 'non-negative') {
  return z
    .union([z.number(), z.string()], { error: (iss) => `${show(iss.input)} is not a duration; use ${DURATION_HELP}` })
    .transform((v, ctx): number => {
      const ms = parseDurationMs(v);
      if (ms === undefined || !Number.isFinite(ms)) {
        ctx.addIssue({ code: 'custom', message: `${show(v)} is not a duration; use ${DURATION_HELP}` });
        return z.NEVER;
      }
      if (min === 'positive' && ms === 0) ctx.addIssue({ code: 'custom', message: 'must be longer than 0' });
      else if (ms > MAX_DURATION_MS) ctx.addIssue({ code: 'custom', message: 'must be at most 90d' });
      return ms;
    });
}

/** Converts a rate spec to requests per second against a tier limit. */
export function ratePerS(spec: RateSpec, tierLimitPerMinute: number): number {
  return spec.perS ?? (spec.fraction * tierLimitPerMinute) / 60;
}
