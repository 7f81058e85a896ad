/**
 * Where reports go: `--out DIR`, or `reports/<scenario>-<timestamp>/` under the working
 * directory with `reports/latest` pointing at the newest. Writes are atomic (temp + rename)
 * so a reader never sees half a report.
 */
import { constants } from 'node:fs';
import { access, mkdir, rename, rm, stat, symlink } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { UsageError } from './context.js';
import { reasonWords, writeFilesAtomically } from './safe-write.js';

const EXPORTS = 'it exports Prometheus metrics (--metrics-port to be scraped, --pushgateway URL to push) and OTLP spans (--otel URL)';

/** k6's outputs (`--out <name>[=<target>]`) and flowgauge's way to each. */
const K6_OUTPUTS: Readonly<Record<string, (target: string) => string>> = {
  json: (t) =>
    `flowgauge's --out takes a directory and writes report.json, report.md and report.html into it: --out ${dirFor(t, 'json')} ` +
    `(the report is then ${join(dirFor(t, 'json'), 'report.json')}), or --json > ${t === '' ? 'report.json' : t} for report.json on stdout; ` +
    'report.json is the whole summary (histograms, per-second slices, thresholds), not a line per data point',
  csv: (t) =>
    `flowgauge writes no CSV: report.json holds every figure, per-second ones in its slices; --out ${dirFor(t, 'csv')} puts the reports in that directory`,
  'experimental-prometheus-rw': () => `flowgauge does not remote-write; ${EXPORTS}`,
  'experimental-opentelemetry': () => 'flowgauge exports a span per request over OTLP/HTTP: --otel URL',
  'web-dashboard': () => 'flowgauge serves its live dashboard with --dashboard [PORT]',
  influxdb: () => `flowgauge has no InfluxDB output: ${EXPORTS}`,
  statsd: () => `flowgauge has no StatsD output: ${EXPORTS}`,
  datadog: () => `flowgauge has no Datadog output: ${EXPORTS}`,
  kafka: () => `flowgauge has no Kafka output: ${EXPORTS}`,
  cloud: () => `flowgauge has no cloud output: ${EXPORTS}; the reports stay on disk`,
};

/** Outputs k6 names alone (`--out influxdb`); `json`, `csv` and `cloud` alone may be directories. */
const K6_BARE = new Set(['experimental-prometheus-rw', 'experimental-opentelemetry', 'web-dashboard', 'influxdb', 'statsd', 'datadog', 'kafka']);

/** `x.json` → `x`: the directory a k6 output file becomes. */
function dirFor(target: string, ext: string): string {
  if (target === '') return 'reports/run';
  const stripped = target.endsWith(`.${ext}`) ? target.slice(0, -(ext.length + 1)) : target;
  return stripped === '' ? 'reports/run' : stripped;
}

/**
 * Checks a run's `--out` before anything starts: a directory, never k6's `--out json=FILE` (or
 * another k6 output) silently turned into a directory named `json=FILE`. Returns `out`; throws a
 * `UsageError` (exit 2) naming flowgauge's way.
 */
export function checkOutFlag(out: string | undefined): string | undefined {
  if (out === undefined) return undefined;
  const m = /^([a-z][a-z0-9-]*)(?:=(.*))?$/s.exec(out.trim());
  if (m === null) return out;
  const name = m[1] as string;
  const answer = K6_OUTPUTS[name];
  if (answer === undefined || (m[2] === undefined && !K6_BARE.has(name))) return out;
  throw new UsageError(`--out ${out} is k6's output form; ${answer(m[2] ?? '')}`);
}

/**
 * Makes `dir` and its missing parents, one level at a time, and checks it can be written.
 * Not \`mkdir(dir, { recursive: true })\`: on Node 20 that loops forever at 100 % CPU on a path
 * such as /proc/1/x (its parent exists but refuses new entries with ENOENT). Throws a
 * `UsageError` (exit 2) naming the directory, the reason and `shown` (what to do instead).
 */
export async function makeDirectory(dir: string, shown: string, what = 'reports'): Promise<void> {
  const missing: string[] = [];
  let at = dir;
  for (;;) {
    const info = await stat(at).catch((err: NodeJS.ErrnoException) => err);
    if (!(info instanceof Error)) {
      if (!info.isDirectory()) throw new UsageError(`cannot write ${what} to ${dir} (a file is in the way${at === dir ? '' : `: ${at}`}); ${shown}`);
      break;
    }
    // ENOTDIR: a file further up is in the way; the walk up finds it and says so.
    if (info.code !== 'ENOENT' && info.code !== 'ENOTDIR') throw new UsageError(`cannot write ${what} to ${dir} (${reasonWords(info)}: ${at}); ${shown}`);
    const parent = dirname(at);
    if (parent === at) break;
    missing.push(at);
    at = parent;
  }
  for (const d of missing.reverse()) {
    try {
      await mkdir(d);
    } catch (err) {
      if ((err as { code?: unknown }).code === 'EEXIST' && (await stat(d).catch(() => undefined))?.isDirectory() === true) continue;
      throw new UsageError(`cannot write ${what} to ${dir} (${reasonWords(err)}: ${d}); ${shown}`);
    }
  }
  try {
    await access(dir, constants.W_OK);
  } catch (err) {
    throw new UsageError(`cannot write ${what} to ${dir} (${reasonWords(err)}); ${shown}`);
  }
}

/** The directory a run's report goes to. */
function reportDir(cwd: string, scenario: string, startedAtMs: number, out: string | undefined): string {
  if (out !== undefined) return resolve(cwd, out);
  const stamp = new Date(startedAtMs).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return resolve(cwd, 'reports', `${scenario}-${stamp}`);
}

/** How many runs of one scenario may start in one second and each keep its own directory. */
const SAME_SECOND_RUNS = 1000;

/**
 * Claims a new directory for a run's report under `<cwd>/reports` (`reportDir` without `--out`):
 * created exclusively, so two runs of one scenario started in the same second (a shell loop, a
 * CI matrix on one machine) never share one and replace each other's report: the second gets
 * `<scenario>-<timestamp>-2`, and so on. Throws a `UsageError` (exit 2) as `makeDirectory` does.
 */
export async function claimReportDir(cwd: string, scenario: string, startedAtMs: number): Promise<string> {
  const base = reportDir(cwd, scenario, startedAtMs, undefined);
  const shown = 'give a writable directory with --out';
  await makeDirectory(dirname(base), shown);
  for (let n = 1; n <= SAME_SECOND_RUNS; n++) {
    const dir = n === 1 ? base : `${base}-${n}`;
    try {
      await mkdir(dir);
      return dir;
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'EEXIST') throw new UsageError(`cannot write reports to ${dir} (${reasonWords(err)}); ${shown}`);
    }
  }
  throw new UsageError(`cannot write reports to ${base}: ${SAME_SECOND_RUNS} runs of ${scenario} started in that second already have directories there; ${shown}`);
}

/**
 * The directory a command's report goes to: `--out` as given, or a new one claimed under
 * `<cwd>/reports` (`claimReportDir`): run, capacity and conformance alike.
 */
export function chooseReportDir(cwd: string, name: string, startedAtMs: number, out: string | undefined): Promise<string> {
  return out !== undefined ? Promise.resolve(reportDir(cwd, name, startedAtMs, out)) : claimReportDir(cwd, name, startedAtMs);
}

/**
 * Writes `files` (name → content) into `dir` atomically, the whole set or none of it; a write
 * that fails rejects with `FG_OUTPUT_FAILED` (exit 2) naming the path and the reason.
 */
export async function writeReportFiles(dir: string, files: Readonly<Record<string, string>>): Promise<string[]> {
  await makeDirectory(dir, 'give a writable directory with --out');
  return writeFilesAtomically(dir, files);
}

/**
 * Points `reports/latest` at `dir` when `dir` lies under `<cwd>/reports`. Best effort: resolves
 * to the link's path when it was made, else `undefined`.
 */
export async function updateLatest(cwd: string, dir: string): Promise<string | undefined> {
  const reports = resolve(cwd, 'reports');
  const rel = relative(reports, dir);
  if (rel.startsWith('..') || rel === '') return undefined;
  const link = join(reports, 'latest');
  const tmp = `${link}.tmp-${process.pid}`;
  try {
    await rm(tmp, { force: true });
    await symlink(rel, tmp);
    await rename(tmp, link);
    return link;
  } catch {
    // A filesystem without symlinks still has the report itself; nothing is lost.
    await rm(tmp, { force: true }).catch(() => undefined);
    return undefined;
  }
}
