/**
 * k6's `options` as flowgauge's load: `vus`/`duration`, `stages`, `iterations` and each
 * scenario's executor (constant-vus, ramping-vus, constant-arrival-rate, ramping-arrival-rate,
 * per-vu-iterations, shared-iterations), with a comment where the two differ and a note for
 * what has no flowgauge form. Values not written as literals fall back to the literal after
 * `||`/`??` when there is one, noted. Pure.
 */
import { parseDurationMs } from '../../core/units.js';
import { isRecord } from '../../core/is-record.js';
import { Unread } from './js-read.js';

/** One scenario of the converted file. */
export interface ConvertedScenario {
  /** Its flowgauge name (k6's, in lower case with dashes). */
  readonly name: string;
  /** The exported function each iteration runs (`default` for the default export). */
  readonly exec: string;
  readonly load: Readonly<Record<string, unknown>>;
  readonly startAfter?: string;
  /** Lines explaining how the load was read. */
  readonly comments: readonly string[];
  /** What was not converted. */
  readonly notes: readonly string[];
}

/** What `options` became. */
export interface ConvertedOptions {
  readonly scenarios: readonly ConvertedScenario[];
  /** k6's thresholds as written (converted once the requests are known). */
  readonly thresholds: unknown;
  /** Options with no flowgauge form. */
  readonly notes: readonly string[];
}

/** Options that belong elsewhere in flowgauge, and where. */
const ELSEWHERE: Readonly<Record<string, string>> = {
  insecureSkipTLSVerify: 'give --insecure to flowgauge run (or --ca with your CA)',
  rps: 'an arrival-rate load sets the rate itself',
  userAgent: 'set a user-agent header in the requests',
  noConnectionReuse: 'flowgauge keeps connections (--connections caps them)',
  summaryTrendStats: 'report.json keeps p50, p90, p95, p99, p99.9, max and mean',
  discardResponseBodies: 'flowgauge reads every body (validate: sample or off checks fewer)',
  setupTimeout: 'setup runs in the first iteration, under the request deadlines',
  teardownTimeout: 'there is no teardown',
  tags: 'flowgauge labels by scenario and operation',
  hosts: 'point --base-url at the host',
  cloud: 'there is no k6 Cloud here',
  ext: 'there is no k6 Cloud here',
};

/** A scenario's name in flowgauge's form: lower-case letters, digits and dashes. */
export function scenarioName(name: string): string {
  const out = name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return out === '' ? 'converted' : out;
}

/** Reads option values, noting those not written as literals. */
class Reader {
  readonly notes: string[] = [];

  constructor(private readonly where: string) {}

  /** The value of `key`, its fallback when it was no literal (noted), `undefined` when absent or unreadable. */
  get(o: Record<string, unknown>, key: string): unknown {
    const v = o[key];
    if (!(v instanceof Unread)) return v;
    if (v.fallback !== undefined) {
      this.notes.push(`${this.where}${key} is ${v.text}; its value in the script, ${JSON.stringify(v.fallback)}, is used (a .ts scenario reads process.env itself)`);
      return v.fallback;
    }
    this.notes.push(`${this.where}${key} = ${v.text} (not a literal)`);
    return undefined;
  }

  num(o: Record<string, unknown>, key: string, dflt: number): number {
    const v = this.get(o, key);
    return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : dflt;
  }

  duration(o: Record<string, unknown>, key: string): string | number | undefined {
    const v = this.get(o, key);
    return (typeof v === 'string' || typeof v === 'number') && parseDurationMs(v) !== undefined ? v : undefined;
  }

  stages(o: Record<string, unknown>): { duration: string | number; target: number }[] | undefined {
    const v = this.get(o, 'stages');
    if (!Array.isArray(v)) return undefined;
    const out: { duration: string | number; target: number }[] = [];
    for (const [i, s] of v.entries()) {
      const duration = isRecord(s) ? this.duration(s, 'duration') : undefined;
      const target = isRecord(s) ? this.get(s, 'target') : undefined;
      if (duration === undefined || typeof target !== 'number' || !(target >= 0)) {
        this.notes.push(`${this.where}stages[${i}] (a stage needs a duration and a target)`);
        continue;
      }
      out.push({ duration, target });
    }
    return out.length === 0 ? undefined : out;
  }
}

/** A rate of `n` per `timeUnit` as flowgauge writes it: `30/s`, `100/min`, `5000/h`, else per second. */
function rateOf(n: number, timeUnit: unknown): string {
  const unit = typeof timeUnit === 'string' || typeof timeUnit === 'number' ? parseDurationMs(timeUnit) : 1000;
  if (unit === 1000 || unit === undefined) return `${n}/s`;
  if (unit === 60_000) return `${n}/min`;
  if (unit === 3_600_000) return `${n}/h`;
  return `${round(n / (unit / 1000))}/s`;
}

const round = (n: number): number => Math.round(n * 1000) / 1000;

/** Every executor's common fields, and what has no flowgauge form. */
const COMMON = new Set(['executor', 'exec', 'startTime', 'gracefulStop', 'env', 'tags', 'gracefulRampDown']);

/** One k6 scenario (or the top-level options read as one) as a flowgauge load. */
function loadOf(s: Record<string, unknown>, r: Reader, sleepS: number): { load: Record<string, unknown>; comments: string[] } {
  const executor = typeof s.executor === 'string' ? s.executor : 'constant-vus';
  const gracefulStop = r.duration(s, 'gracefulStop');
  const grace = gracefulStop === undefined ? {} : { gracefulStop };
  const comments: string[] = [];
  for (const key of Object.keys(s)) {
    const known = ['vus', 'duration', 'stages', 'startVUs', 'rate', 'timeUnit', 'preAllocatedVUs', 'maxVUs', 'startRate', 'iterations', 'maxDuration'];
    if (!COMMON.has(key) && !known.includes(key)) r.notes.push(`${key} of the ${executor} executor`);
  }
  if (s.env !== undefined) r.notes.push('env (a .ts scenario reads process.env; -e NAME=VALUE sets it for a run)');
  if (s.tags !== undefined) r.notes.push('tags (flowgauge labels by scenario and operation)');
  const maxVUs = r.num(s, 'maxVUs', r.num(s, 'preAllocatedVUs', 0));
  const inFlight = maxVUs > 0 ? { maxInFlight: Math.ceil(maxVUs) } : {};
  switch (executor) {
    case 'constant-arrival-rate':
      comments.push(`k6's constant-arrival-rate: ${JSON.stringify(s.rate)} iterations per ${JSON.stringify(s.timeUnit ?? '1s')}; maxVUs caps the iterations in flight`);
      return { load: { executor: 'constant-arrival-rate', rate: rateOf(r.num(s, 'rate', 1), r.get(s, 'timeUnit')), duration: r.duration(s, 'duration') ?? '30s', ...inFlight, ...grace }, comments };
    case 'ramping-arrival-rate': {
      const unit = r.get(s, 'timeUnit');
      const stages = (r.stages(s) ?? [{ duration: '30s', target: 1 }]).map((st) => ({ duration: st.duration, target: rateOf(st.target, unit) }));
      comments.push("k6's ramping-arrival-rate: the same stages of iterations started per time unit; maxVUs caps the iterations in flight");
      return { load: { executor: 'ramping-arrival-rate', startRate: rateOf(r.num(s, 'startRate', 0), unit), stages, ...inFlight, ...grace }, comments };
    }
    case 'ramping-vus': {
      // flowgauge ramps rates, not workers: a VU that takes `per` seconds an iteration starts 1/per a second.
      const per = Math.max(1, sleepS);
      const stages = r.stages(s) ?? [{ duration: '30s', target: 1 }];
      const peak = Math.max(r.num(s, 'startVUs', 1), ...stages.map((st) => st.target));
      comments.push(
        `k6's ramping-vus (${stages.map((st) => `${st.target} VUs over ${st.duration}`).join(', ')}) as a ramp of iterations started per second: ` +
          `flowgauge ramps rates, not workers. Each VU was taken to start an iteration every ${per} s (the script's sleeps${sleepS < 1 ? ', at least 1 s' : ''}); ` +
          `maxInFlight caps the iterations in flight at the VUs' peak`,
      );
      return {
        load: { executor: 'ramping-arrival-rate', startRate: `${round(r.num(s, 'startVUs', 1) / per)}/s`, stages: stages.map((st) => ({ duration: st.duration, target: `${round(st.target / per)}/s` })), maxInFlight: Math.max(1, Math.ceil(peak)), ...grace },
        comments,
      };
    }
    case 'per-vu-iterations':
    case 'shared-iterations': {
      const vus = Math.max(1, Math.round(r.num(s, 'vus', 1)));
      const iterations = r.num(s, 'iterations', 1);
      const each = executor === 'per-vu-iterations' ? ` each of ${vus} VUs` : ` ${vus} VUs share`;
      r.notes.push(`iterations: ${iterations} (${executor}:${each} a count of iterations; flowgauge schedules by time, so the ${vus} workers run for maxDuration)`);
      return { load: { executor: 'constant-concurrency', concurrency: vus, duration: r.duration(s, 'maxDuration') ?? '10m', ...grace }, comments };
    }
    case 'externally-controlled':
      r.notes.push('the externally-controlled executor (flowgauge runs its schedule; the workers below are its vus)');
      break;
    case 'constant-vus':
      break;
    default:
      r.notes.push(`the executor ${JSON.stringify(executor)} (unknown to this converter)`);
  }
  const vus = Math.max(1, Math.round(r.num(s, 'vus', 1)));
  comments.push(`k6's ${vus} VU${vus === 1 ? '' : 's'} as a closed model: each worker starts its next iteration when the last one ends`);
  return { load: { executor: 'constant-concurrency', concurrency: vus, duration: r.duration(s, 'duration') ?? '30s', ...grace }, comments };
}

/**
 * `options` (read with `literalOf`; undefined when the script has none) as the file's scenarios.
 * `sleepS` gives the seconds an exported function sleeps per iteration, for ramping-vus.
 */
export function convertOptions(options: unknown, sleepS: (exec: string) => number): ConvertedOptions {
  const notes: string[] = [];
  if (options instanceof Unread) notes.push(`options = ${options.text} (not an object written out; the default load is used)`);
  const o = isRecord(options) ? options : {};
  const top = new Reader('options.');
  for (const key of Object.keys(o)) {
    const why = ELSEWHERE[key];
    if (why !== undefined) notes.push(`options.${key} (${why})`);
    else if (!['vus', 'duration', 'stages', 'iterations', 'scenarios', 'thresholds'].includes(key)) notes.push(`options.${key}`);
  }
  const scenarios = top.get(o, 'scenarios');
  if (isRecord(scenarios) && Object.keys(scenarios).length > 0) {
    const out = Object.entries(scenarios).map(([k6Name, v]): ConvertedScenario => {
      const r = new Reader(`scenarios.${k6Name}.`);
      const s = isRecord(v) ? v : {};
      if (!isRecord(v)) r.notes.push(`scenarios.${k6Name} (not an object written out)`);
      const exec = typeof s.exec === 'string' ? s.exec : 'default';
      const { load, comments } = loadOf(s, r, sleepS(exec));
      const startTime = r.duration(s, 'startTime');
      return { name: scenarioName(k6Name), exec, load, ...(startTime !== undefined && parseDurationMs(startTime) !== 0 ? { startAfter: String(startTime) } : {}), comments, notes: r.notes };
    });
    return { scenarios: out, thresholds: o.thresholds, notes: [...notes, ...top.notes] };
  }
  // The top-level shortcuts, as k6 reads them: stages, else iterations, else vus and duration.
  const s: Record<string, unknown> =
    o.stages !== undefined ? { executor: 'ramping-vus', stages: o.stages, startVUs: o.vus ?? 1 }
    : o.iterations !== undefined ? { executor: 'shared-iterations', vus: o.vus, iterations: o.iterations, maxDuration: o.duration }
    : { executor: 'constant-vus', vus: o.vus, duration: o.duration };
  const { load, comments } = loadOf(s, top, sleepS('default'));
  if (o.duration === undefined && o.stages === undefined && o.iterations === undefined) comments.push("k6 runs one iteration without a duration; flowgauge schedules by time: 30s (change it, or give -d)");
  return { scenarios: [{ name: '', exec: 'default', load, comments, notes: [] }], thresholds: o.thresholds, notes: [...notes, ...top.notes] };
}
