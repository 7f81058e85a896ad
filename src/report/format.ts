/** Number formatting shared by the Markdown and terminal writers. */
import { formatMs } from '../core/units.js';
import { parseMetricKey, unitOf } from '../slo/threshold-grammar.js';
import type { ThresholdUnit } from '../slo/threshold-grammar.js';

/** A ratio as a percentage; more decimals near 100 %, where the objective lives. */
export function fmtRatio(r: number | null | undefined): string {
  if (r === null || r === undefined || !Number.isFinite(r)) return '—';
  const p = r * 100;
  const fixed = (p >= 99 && p < 100 ? p.toFixed(3) : p.toFixed(2)).replace(/\.?0+$/, '');
  return `${fixed}%`;
}

/** A share that may exceed 100 % (error budget consumed), one decimal. */
export function fmtShare(r: number): string {
  return Number.isFinite(r) ? `${(r * 100).toFixed(1)}%` : '—';
}

/** A duration in ms, or a dash for nothing. */
export function fmtDuration(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '—' : formatMs(ms);
}

/** A plain number: integers as they are, others with up to 3 decimals. */
export function fmtNumber(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 1000) / 1000);
}

/** The unit of a threshold metric key (count for unknown keys). */
export function thresholdUnit(metric: string): ThresholdUnit {
  const key = parseMetricKey(metric);
  return key === undefined ? 'count' : unitOf(key);
}

/** A threshold value or observation in its metric's unit. */
export function fmtThresholdValue(metric: string, v: number | null): string {
  if (v === null) return 'not observed';
  switch (thresholdUnit(metric)) {
    case 'ms':
      return formatMs(v);
    case 'ratio':
      return fmtRatio(v);
    case 'perS':
      return `${fmtNumber(v)}/s`;
    case 'count':
      return fmtNumber(v);
  }
}

/** good / (good + bad) as a percentage, or a dash when there were neither. */
export function fmtOk(good: number, bad: number): string {
  return good + bad === 0 ? '—' : fmtRatio(good / (good + bad));
}
