/**
 * Parsing of the human units used in scenarios, flags and thresholds. Each parser returns
 * `undefined` for input it cannot read, so callers can collect every problem with its path;
 * the `*_HELP` strings say what is allowed.
 */

const DURATION_RE = /^\s*(\d+(?:\.\d+)?)\s*(ns|us|µs|ms|s|m|min|h|d)?\s*$/;
const DURATION_UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** What `parseDurationMs` accepts, for error messages. */
export const DURATION_HELP = 'a duration such as "500ms", "30s", "2m", "1h", "30d" (or a number of milliseconds)';

/**
 * Reads a duration into milliseconds. A bare number (or numeric string) means milliseconds.
 * Returns `undefined` for anything else, including negative and non-finite values.
 */
export function parseDurationMs(input: unknown): number | undefined {
  if (typeof input === 'number') return Number.isFinite(input) && input >= 0 ? input : undefined;
  if (typeof input !== 'string') return undefined;
  const m = DURATION_RE.exec(input);
  if (m === null) return undefined;
  const value = Number(m[1]);
  const unit = m[2] ?? 'ms';
  const factor = DURATION_UNIT_MS[unit];
  return factor === undefined ? undefined : value * factor;
}

const RATE_RE = /^\s*(\d+(?:\.\d+)?)\s*\/\s*(s|sec|second|m|min|minute|h|hour)\s*$/;
const RATE_UNIT_S: Readonly<Record<string, number>> = {
  s: 1,
  sec: 1,
  second: 1,
  m: 60,
  min: 60,
  minute: 60,
  h: 3600,
  hour: 3600,
};

/** What `parseRatePerS` accepts, for error messages. */
export const RATE_HELP = 'a rate such as "100/min", "16.7/s" or "5000/h" (or a number per second)';

/** Reads a rate into requests per second; `undefined` when unreadable or negative. */
export function parseRatePerS(input: unknown): number | undefined {
  if (typeof input === 'number') return Number.isFinite(input) && input >= 0 ? input : undefined;
  if (typeof input !== 'string') return undefined;
  const m = RATE_RE.exec(input);
  if (m === null) return undefined;
  const per = RATE_UNIT_S[m[2] as string];
  return per === undefined ? undefined : Number(m[1]) / per;
}

const PERCENT_RE = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/;

/** Reads `"120%"` as 1.2; `undefined` otherwise. */
export function parsePercent(input: unknown): number | undefined {
  if (typeof input !== 'string') return undefined;
  const m = PERCENT_RE.exec(input);
  return m === null ? undefined : Number(m[1]) / 100;
}

/** Formats milliseconds for people: `850µs`, `12.3ms`, `4.20s`, `3m05s`. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms < 1) return `${Math.round(ms * 1000)}µs`;
  if (ms < 100) return `${ms.toFixed(1)}ms`;
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)}s`;
  const totalS = Math.round(ms / 1000);
  const m = Math.floor(totalS / 60);
  const s = totalS % 60;
  return `${m}m${String(s).padStart(2, '0')}s`;
}
