/**
 * Checks of `flowgauge run`'s command line that must happen before any traffic: numeric
 * flags named as the user typed them, scenario override problems reported under their flag
 * (`--rate`, not `overrides.rate`), and a report directory that can be written, so a long run
 * never ends in an internal error with its results lost.
 */
import { resolve } from 'node:path';
import { ConfigError } from '../core/errors.js';
import { resolveRunPlan, type ResolvedRunPlan, type ResolvedScenario, type ScenarioOverrides } from '../scenario/index.js';
import { UsageError } from './context.js';
import { lockOutDir } from './out-lock.js';
import { makeDirectory } from './report-files.js';

/** Whole-number flags of `run`: the smallest and largest value each allows. */
const WHOLE_NUMBER_FLAGS: Readonly<Record<string, readonly [number, number]>> = {
  'max-in-flight': [1, Number.MAX_SAFE_INTEGER],
  connections: [1, 100_000],
  'metrics-port': [0, 65_535],
  shards: [1, 100_000],
};

/** Throws a `UsageError` naming the first whole-number flag out of its range (yargs turns `abc` into NaN). */
export function checkWholeNumberFlags(args: Readonly<Record<string, unknown>>): void {
  for (const [flag, [min, max]] of Object.entries(WHOLE_NUMBER_FLAGS)) {
    const v = args[flag];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      const got = typeof v === 'number' && Number.isNaN(v) ? 'something that is not a number' : JSON.stringify(v);
      throw new UsageError(`--${flag} must be a whole number from ${min} to ${max}, got ${got}`);
    }
  }
}

const OVERRIDE_FLAGS: Readonly<Record<string, string>> = {
  'overrides.rate': '--rate',
  'overrides.durationMs': '--duration',
  'overrides.maxInFlight': '--max-in-flight',
  'overrides.tier': '--tier',
};

/** `resolveScenario`, with override problems reported under the flag that set them. */
export function resolveWithFlags(raw: unknown, overrides: ScenarioOverrides, source?: string): ResolvedScenario | ResolvedRunPlan {
  try {
    // The source places a scenario's data file next to it.
    return resolveRunPlan(raw, overrides, source === undefined ? {} : { source });
  } catch (err) {
    if (!(err instanceof ConfigError) || !err.issues.some((i) => i.path in OVERRIDE_FLAGS)) throw err;
    const subject = /^invalid (.*) \(\d+ problems?\):/.exec(err.message)?.[1] ?? 'scenario';
    throw new ConfigError(
      err.issues.map((i) => ({ ...i, path: OVERRIDE_FLAGS[i.path] ?? i.path })),
      subject,
    );
  }
}

/**
 * Makes sure reports can be written where they will go (`--out`, else `<cwd>/reports`),
 * creating the directory, and takes `--out` for this command alone (`out-lock.ts`: a second
 * command on it is refused now, not at its end); a `UsageError` (exit 2) names the directory
 * and the reason.
 */
export async function checkReportDir(cwd: string, out: string | undefined, command = 'run'): Promise<void> {
  await makeDirectory(resolve(cwd, out ?? 'reports'), 'give a writable directory with --out');
  if (out !== undefined) await lockOutDir(resolve(cwd, out), '--out', command);
}
