/**
 * Parsing of the human units used in scenarios, flags and thresholds. Each parser returns
 * `undefined` for input it cannot read, so callers can collect every problem with its path;
 * the `*_HELP` strings say what is allowed.
 */

// One or more number-and-unit parts, Go's and k6's form (`1m30s`, `1h2m`, `1.5s`): the
// units are read longest first so `ms` is never `m` and `s`.
const DURATION_PART_RE = /(\d+(?:\.\d+)?)(ns|us|µs|ms|min|s|m|h|d)/y;
const BARE_NUMBER_RE = /^\d+(?:\.\d+)?$/;
/**
 * Units as (power of ten, multiplier) of milliseconds. Scaling by a power of ten goes through
 * the decimal text (`"1.1e3"`), so `1.1s` is exactly 1100.
 */
const DURATION_UNIT_MS: Readonly<Record<string, readonly [number, number]>> = {
  ns: [-6, 1],
  us: [-3, 1],
  µs: [-3, 1],
  ms: [0, 1],
  s: [3, 1],
  m: [3, 60],
  min: [3, 60],
  h: [3, 3600],
  d: [3, 86_400],
};

/** `text` (digits, maybe a fraction) of `unit` in milliseconds; `undefined` for an unknown unit. */
export function durationPartMs(text: string, unit: string): number | undefined {
  const f = DURATION_UNIT_MS[unit];
  return f === undefined ? undefined : Number(`${text}e${f[0]}`) * f[1];
}

/** What `parseDurationMs` accepts, for error messages. */
export const DURATION_HELP =
  'a duration such as "500ms", "30s", "2m", "1h", "30d", "1.5s", or k6/Go\'s "1m30s" and "1h2m" (units ns, us, ms, s, m, h, d; a bare number means milliseconds)';

/**
 * Reads a duration into milliseconds: one unit (`30s`, `1.5m`) or several in a row as Go and k6
 * write them (`1m30s`, `1h2m3.5s`). A bare number (or numeric string) means milliseconds.
 * Returns `undefined` for anything else, including negative and non-finite values.
 */
export function parseDurationMs(input: unknown): number | undefined {
  if (typeof input === 'number') return Number.isFinite(input) && input >= 0 ? input : undefined;
  if (typeof input !== 'string') return undefined;
  const text = input.trim();
  if (BARE_NUMBER_RE.test(text)) return Number(text);
  // Spaces are allowed only between the number and a single unit (`30 s`), as before.
  const compact = /^\d+(?:\.\d+)?\s+[a-zµ]+$/.test(text) ? text.replace(/\s+/, '') : text;
  if (compact === '') return undefined;
  let total = 0;
  let at = 0;
  while (at < compact.length) {
    DURATION_PART_RE.lastIndex = at;
    const m = DURATION_PART_RE.exec(compact);
    if (m === null) return undefined;
    total += durationPartMs(m[1] as string, m[2] as string) ?? Number.NaN;
    at = DURATION_PART_RE.lastIndex;
  }
  return Number.isFinite(total) ? total : undefined;
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
