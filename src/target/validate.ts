/**
 * Small readers for untrusted configuration objects: each reports a problem with its path
 * into an issue list and returns `undefined`, so every problem is collected in one pass.
 */
import type { ConfigIssue } from '../core/errors.js';
import { DURATION_HELP, parseDurationMs } from '../core/units.js';

/** Issue list being filled. */
export type Issues = ConfigIssue[];

export { isRecord } from '../core/is-record.js';

/** Path of a child: `a.b` for keys, `a[2]` for indexes. */
export function at(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

/** Reports keys of `obj` outside `allowed`. */
export function checkKeys(obj: Record<string, unknown>, allowed: readonly string[], path: string, issues: Issues): void {
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) issues.push({ path: at(path, k), message: `unknown key (allowed: ${allowed.join(', ')})` });
  }
}

/** Bounds of a number. */
export interface NumberRule {
  readonly min?: number;
  readonly max?: number;
  readonly integer?: boolean;
}

/** A finite number within `rule`. */
export function readNumber(v: unknown, path: string, issues: Issues, rule: NumberRule = {}): number | undefined {
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    issues.push({ path, message: 'must be a finite number' });
    return undefined;
  }
  if (rule.integer === true && !Number.isInteger(v)) {
    issues.push({ path, message: 'must be an integer' });
    return undefined;
  }
  if ((rule.min !== undefined && v < rule.min) || (rule.max !== undefined && v > rule.max)) {
    issues.push({ path, message: `must be between ${rule.min ?? '-∞'} and ${rule.max ?? '∞'}` });
    return undefined;
  }
  return v;
}

/** A probability in [0, 1]. */
export function readRate(v: unknown, path: string, issues: Issues): number | undefined {
  return readNumber(v, path, issues, { min: 0, max: 1 });
}

/** A duration (number of ms or a string like `"1m"`), in ms. */
export function readDurationMs(v: unknown, path: string, issues: Issues): number | undefined {
  const ms = parseDurationMs(v);
  if (ms === undefined) issues.push({ path, message: `must be ${DURATION_HELP}` });
  return ms;
}

/** One of `allowed`. */
export function readEnum<T extends string>(v: unknown, allowed: readonly T[], path: string, issues: Issues): T | undefined {
  if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
  issues.push({ path, message: `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}` });
  return undefined;
}

/** A string, non-empty unless `allowEmpty`. */
export function readString(v: unknown, path: string, issues: Issues, allowEmpty = false): string | undefined {
  if (typeof v !== 'string' || (!allowEmpty && v === '')) {
    issues.push({ path, message: allowEmpty ? 'must be a string' : 'must be a non-empty string' });
    return undefined;
  }
  return v;
}

/** A boolean. */
export function readBoolean(v: unknown, path: string, issues: Issues): boolean | undefined {
  if (typeof v !== 'boolean') {
    issues.push({ path, message: 'must be true or false' });
    return undefined;
  }
  return v;
}
