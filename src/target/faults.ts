/**
 * Fault injection. Faults are set from options, in-process (`service.faults`) or over the admin
 * endpoint; all three go through `parseFaultPatch`, so they accept the same JSON shape. Every
 * random decision comes from a PRNG seeded from the service seed.
 */
import { NS_PER_MS, type Clock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import { OPS, type OpName } from '../core/ops.js';
import { createPrng, hash32 } from './prng.js';
import { at, checkKeys, isRecord, readDurationMs, readNumber, readRate, type Issues } from './validate.js';

/** An endpoint a per-endpoint fault applies to: an operation name, or `*` for all of them. */
export type FaultEndpoint = OpName | '*';

/** Every key allowed in `latencyMs` and `errors`. */
export const FAULT_ENDPOINTS: readonly FaultEndpoint[] = [...OPS, '*'];

/** Injected errors on one endpoint: a share `rate` of requests gets `status` (500 or 503). */
export interface ErrorFault {
  readonly rate: number;
  readonly status: 500 | 503;
}

/** A share `rate` of streams pauses `pauseMs` after `afterTokens` token events. */
export interface StreamStallFault {
  readonly afterTokens: number;
  readonly pauseMs: number;
  readonly rate: number;
}

/** A share `rate` of requests made while more than `aboveRemaining` requests remain gets a 429. */
export interface Premature429Fault {
  readonly rate: number;
  readonly aboveRemaining: number;
}

/** Current faults. `outage.durationMs` is the time left; absent means until cleared. */
export interface FaultSettings {
  readonly latencyMs?: Readonly<Partial<Record<FaultEndpoint, number>>>;
  readonly errors?: Readonly<Partial<Record<FaultEndpoint, ErrorFault>>>;
  readonly outage?: { readonly durationMs?: number };
  readonly streamStall?: StreamStallFault;
  readonly connectionResetRate?: number;
  readonly malformedJsonRate?: number;
  readonly truncatedStreamRate?: number;
  readonly premature429?: Premature429Fault;
  readonly missingRateLimitHeadersRate?: number;
  /** The limiter enforces min(throttleAfter, advertised limit) while the headers advertise the limit. */
  readonly throttleAfter?: number;
  /** `X-RateLimit-Remaining` is the true value plus this, clamped to [0, advertised limit]. */
  readonly remainingDrift?: number;
}

/**
 * A change to the faults. Keys left out stay as they are; `null` removes a fault. `latencyMs`
 * and `errors` merge per endpoint (an endpoint set to `null` is removed). `outage: true` lasts
 * until cleared, `{ durationMs }` ends by itself. Durations accept numbers (ms) or `"2s"`.
 */
export interface FaultPatch {
  readonly latencyMs?: Readonly<Partial<Record<FaultEndpoint, number | string | null>>> | null;
  readonly errors?: Readonly<Partial<Record<FaultEndpoint, { rate: number; status?: 500 | 503 } | null>>> | null;
  readonly outage?: boolean | { readonly durationMs?: number | string } | null;
  readonly streamStall?: { readonly afterTokens: number; readonly pauseMs: number | string; readonly rate?: number } | null;
  readonly connectionResetRate?: number | null;
  readonly malformedJsonRate?: number | null;
  readonly truncatedStreamRate?: number | null;
  readonly premature429?: { readonly rate: number; readonly aboveRemaining?: number } | null;
  readonly missingRateLimitHeadersRate?: number | null;
  /**
   * An integer ≥ 1: the limiter admits at most this many per window (fixed, sliding) or treats
   * the bucket's capacity as this (token-bucket), when below the advertised limit, while the
   * headers keep advertising the limit and count Remaining against it. Its 429s say Remaining 0.
   */
  readonly throttleAfter?: number | null;
  /** An integer, may be negative: added to `X-RateLimit-Remaining`, clamped to [0, advertised limit]. 0 removes it. */
  readonly remainingDrift?: number | null;
}

/** Sets faults at run time; the same effect as `PUT/GET/DELETE /admin/faults`. */
export interface FaultController {
  /** The faults in force now. */
  get(): FaultSettings;
  /** Applies a patch (see `FaultPatch`); throws `ConfigError` listing every problem. Returns the result. */
  set(patch: FaultPatch): FaultSettings;
  /** Removes every fault. */
  clear(): void;
}

/** What a stream should suffer, decided when it starts. */
export interface StreamFaultPlan {
  /** Pause after this many tokens (-1: none). */
  readonly stallAfter: number;
  readonly stallNs: number;
  /** Close the stream without `end` halfway through its tokens. */
  readonly truncate: boolean;
}

/** The fault controller plus the fast queries the request pipeline asks. */
export interface FaultEngine extends FaultController {
  /** False when no fault is set: the pipeline then skips every other query. */
  readonly active: boolean;
  resetConnection(): boolean;
  dropRateLimitHeaders(): boolean;
  /** Remaining outage in ns, `Infinity` until cleared, or -1 when there is none. */
  outageRemainingNs(nowNs: number): number;
  /** Status to inject for this request of `op`, or 0. */
  errorStatus(op: OpName): number;
  latencyMs(op: OpName): number;
  malformed(): boolean;
  premature(remaining: number): boolean;
  /** The limit the limiter enforces for an advertised `limit` (lower under `throttleAfter`). */
  enforcedLimit(limit: number): number;
  /** What to add to `X-RateLimit-Remaining` (0: nothing). */
  remainingDrift(): number;
  streamPlan(): StreamFaultPlan;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const PATCH_KEYS = [
  'latencyMs',
  'errors',
  'outage',
  'streamStall',
  'connectionResetRate',
  'malformedJsonRate',
  'truncatedStreamRate',
  'premature429',
  'missingRateLimitHeadersRate',
  'throttleAfter',
  'remainingDrift',
] as const;

const RATE_KEYS = ['connectionResetRate', 'malformedJsonRate', 'truncatedStreamRate', 'missingRateLimitHeadersRate'] as const;

/** Validates a patch from untrusted input; problems go to `issues` with paths under `path`. */
export function parseFaultPatch(raw: unknown, path: string, issues: Issues): FaultPatch {
  const out: Mutable<FaultPatch> = {};
  if (!isRecord(raw)) {
    issues.push({ path, message: 'must be an object' });
    return out;
  }
  checkKeys(raw, PATCH_KEYS, path, issues);
  if (raw.latencyMs !== undefined) out.latencyMs = readEndpointMap(raw.latencyMs, at(path, 'latencyMs'), issues, readLatency);
  if (raw.errors !== undefined) out.errors = readEndpointMap(raw.errors, at(path, 'errors'), issues, readErrorFault);
  if (raw.outage !== undefined) out.outage = readOutage(raw.outage, at(path, 'outage'), issues);
  if (raw.streamStall !== undefined) out.streamStall = raw.streamStall === null ? null : readStall(raw.streamStall, at(path, 'streamStall'), issues);
  for (const key of RATE_KEYS) {
    const v = raw[key];
    if (v !== undefined) out[key] = v === null ? null : (readRate(v, at(path, key), issues) ?? 0);
  }
  if (raw.premature429 !== undefined) {
    out.premature429 = raw.premature429 === null ? null : readPremature(raw.premature429, at(path, 'premature429'), issues);
  }
  if (raw.throttleAfter !== undefined) {
    // 0 would refuse every request and leave no time at which one is admitted (no Retry-After).
    const n = raw.throttleAfter === null ? null : readNumber(raw.throttleAfter, at(path, 'throttleAfter'), issues, { integer: true, min: 1 });
    if (n !== undefined) out.throttleAfter = n;
  }
  if (raw.remainingDrift !== undefined) {
    const n = raw.remainingDrift === null ? null : readNumber(raw.remainingDrift, at(path, 'remainingDrift'), issues, { integer: true });
    if (n !== undefined) out.remainingDrift = n;
  }
  return out;
}

function readEndpointMap<T>(
  raw: unknown,
  path: string,
  issues: Issues,
  readOne: (v: unknown, p: string, issues: Issues) => T | undefined,
): Partial<Record<FaultEndpoint, T | null>> | null {
  if (raw === null) return null;
  if (!isRecord(raw)) {
    issues.push({ path, message: `must be an object keyed by endpoint (${FAULT_ENDPOINTS.join(', ')})` });
    return {};
  }
  checkKeys(raw, FAULT_ENDPOINTS, path, issues);
  const out: Partial<Record<FaultEndpoint, T | null>> = {};
  for (const ep of FAULT_ENDPOINTS) {
    const v = raw[ep];
    if (v === undefined) continue;
    if (v === null) out[ep] = null;
    else {
      const r = readOne(v, at(path, ep), issues);
      if (r !== undefined) out[ep] = r;
    }
  }
  return out;
}

function readLatency(v: unknown, path: string, issues: Issues): number | undefined {
  return readDurationMs(v, path, issues);
}

function readErrorFault(v: unknown, path: string, issues: Issues): ErrorFault | undefined {
  if (!isRecord(v)) {
    issues.push({ path, message: 'must be an object { rate, status? }' });
    return undefined;
  }
  checkKeys(v, ['rate', 'status'], path, issues);
  const rate = readRate(v.rate, at(path, 'rate'), issues);
  const status = v.status === undefined ? 500 : readNumber(v.status, at(path, 'status'), issues, { integer: true });
  if (status !== undefined && status !== 500 && status !== 503) issues.push({ path: at(path, 'status'), message: 'must be 500 or 503' });
  if (rate === undefined || (status !== 500 && status !== 503)) return undefined;
  return { rate, status };
}

function readOutage(v: unknown, path: string, issues: Issues): { durationMs?: number } | null {
  if (v === null || v === false) return null;
  if (v === true) return {};
  if (!isRecord(v)) {
    issues.push({ path, message: 'must be true, false, null or { durationMs }' });
    return null;
  }
  checkKeys(v, ['durationMs'], path, issues);
  if (v.durationMs === undefined) return {};
  const d = readDurationMs(v.durationMs, at(path, 'durationMs'), issues);
  return d === undefined ? null : { durationMs: d };
}

function readStall(v: unknown, path: string, issues: Issues): StreamStallFault | null {
  if (!isRecord(v)) {
    issues.push({ path, message: 'must be an object { afterTokens, pauseMs, rate? }' });
    return null;
  }
  checkKeys(v, ['afterTokens', 'pauseMs', 'rate'], path, issues);
  const afterTokens = readNumber(v.afterTokens, at(path, 'afterTokens'), issues, { integer: true, min: 0 });
  const pauseMs = readDurationMs(v.pauseMs, at(path, 'pauseMs'), issues);
  const rate = v.rate === undefined ? 1 : readRate(v.rate, at(path, 'rate'), issues);
  if (afterTokens === undefined || pauseMs === undefined || rate === undefined) return null;
  return { afterTokens, pauseMs, rate };
}

function readPremature(v: unknown, path: string, issues: Issues): Premature429Fault | null {
  if (!isRecord(v)) {
    issues.push({ path, message: 'must be an object { rate, aboveRemaining? }' });
    return null;
  }
  checkKeys(v, ['rate', 'aboveRemaining'], path, issues);
  const rate = readRate(v.rate, at(path, 'rate'), issues);
  const above = v.aboveRemaining === undefined ? 0 : readNumber(v.aboveRemaining, at(path, 'aboveRemaining'), issues, { integer: true, min: 0 });
  if (rate === undefined || above === undefined) return null;
  return { rate, aboveRemaining: above };
}

/** Creates the fault engine, seeded, starting from `initial` (already validated). */
export function createFaultEngine(clock: Clock, seed: number, initial: FaultPatch = {}): FaultEngine {
  const prng = createPrng(hash32('faults', seed));
  const latency = new Map<FaultEndpoint, number>();
  const errors = new Map<FaultEndpoint, ErrorFault>();
  let outageEndNs = -1; // -1 none, Infinity until cleared
  let stall: StreamStallFault | undefined;
  let premature: Premature429Fault | undefined;
  let throttleAfter = 0; // 0: none
  let drift = 0;
  const rates = { connectionResetRate: 0, malformedJsonRate: 0, truncatedStreamRate: 0, missingRateLimitHeadersRate: 0 };

  const refresh = (): void => {
    engine.active =
      latency.size > 0 ||
      errors.size > 0 ||
      outageEndNs >= 0 ||
      stall !== undefined ||
      premature !== undefined ||
      throttleAfter > 0 ||
      drift !== 0 ||
      rates.connectionResetRate > 0 ||
      rates.malformedJsonRate > 0 ||
      rates.truncatedStreamRate > 0 ||
      rates.missingRateLimitHeadersRate > 0;
  };
  const chance = (rate: number): boolean => rate > 0 && (rate >= 1 || prng.next() < rate);

  const apply = (p: FaultPatch): void => {
    if (p.latencyMs === null) latency.clear();
    else if (p.latencyMs !== undefined) mergeMap(latency, p.latencyMs as Partial<Record<FaultEndpoint, number | null>>, (v) => v > 0);
    if (p.errors === null) errors.clear();
    else if (p.errors !== undefined) mergeMap(errors, p.errors as Partial<Record<FaultEndpoint, ErrorFault | null>>, (v) => v.rate > 0);
    if (p.outage === null || p.outage === false) outageEndNs = -1;
    else if (p.outage === true) outageEndNs = Infinity;
    else if (p.outage !== undefined) {
      const d = p.outage.durationMs;
      outageEndNs = d === undefined ? Infinity : clock.nowNs() + Number(d) * NS_PER_MS;
    }
    if (p.streamStall !== undefined) stall = p.streamStall === null ? undefined : (p.streamStall as StreamStallFault);
    if (p.premature429 !== undefined) premature = p.premature429 === null ? undefined : (p.premature429 as Premature429Fault);
    if (p.throttleAfter !== undefined) throttleAfter = p.throttleAfter ?? 0;
    if (p.remainingDrift !== undefined) drift = p.remainingDrift ?? 0;
    for (const key of RATE_KEYS) {
      const v = p[key];
      if (v !== undefined) rates[key] = v ?? 0;
    }
    refresh();
  };

  const engine: Mutable<FaultEngine> = {
    active: false,
    get() {
      const out: Mutable<FaultSettings> = {};
      if (latency.size > 0) out.latencyMs = Object.fromEntries(latency);
      if (errors.size > 0) out.errors = Object.fromEntries(errors);
      const left = engine.outageRemainingNs(clock.nowNs());
      if (left >= 0) out.outage = left === Infinity ? {} : { durationMs: Math.ceil(left / NS_PER_MS) };
      if (stall !== undefined) out.streamStall = stall;
      if (premature !== undefined) out.premature429 = premature;
      if (throttleAfter > 0) out.throttleAfter = throttleAfter;
      if (drift !== 0) out.remainingDrift = drift;
      for (const key of RATE_KEYS) if (rates[key] > 0) out[key] = rates[key];
      return out;
    },
    set(patch) {
      const issues: Issues = [];
      const parsed = parseFaultPatch(patch, '', issues);
      if (issues.length > 0) throw new ConfigError(issues, 'fault settings');
      apply(parsed);
      return engine.get();
    },
    clear() {
      latency.clear();
      errors.clear();
      outageEndNs = -1;
      stall = undefined;
      premature = undefined;
      throttleAfter = 0;
      drift = 0;
      for (const key of RATE_KEYS) rates[key] = 0;
      refresh();
    },
    resetConnection: () => chance(rates.connectionResetRate),
    dropRateLimitHeaders: () => chance(rates.missingRateLimitHeadersRate),
    outageRemainingNs(nowNs) {
      if (outageEndNs < 0) return -1;
      if (nowNs >= outageEndNs) {
        outageEndNs = -1;
        refresh();
        return -1;
      }
      return outageEndNs === Infinity ? Infinity : outageEndNs - nowNs;
    },
    errorStatus(op) {
      const f = errors.get(op) ?? errors.get('*');
      return f !== undefined && chance(f.rate) ? f.status : 0;
    },
    latencyMs: (op) => latency.get(op) ?? latency.get('*') ?? 0,
    malformed: () => chance(rates.malformedJsonRate),
    premature: (remaining) => premature !== undefined && remaining > premature.aboveRemaining && chance(premature.rate),
    enforcedLimit: (limit) => (throttleAfter > 0 && throttleAfter < limit ? throttleAfter : limit),
    remainingDrift: () => drift,
    streamPlan() {
      const s = stall !== undefined && chance(stall.rate) ? stall : undefined;
      return {
        stallAfter: s === undefined ? -1 : s.afterTokens,
        stallNs: s === undefined ? 0 : s.pauseMs * NS_PER_MS,
        truncate: chance(rates.truncatedStreamRate),
      };
    },
  };
  apply(initial);
  return engine;
}

function mergeMap<T>(target: Map<FaultEndpoint, T>, patch: Partial<Record<FaultEndpoint, T | null>>, keep: (v: T) => boolean): void {
  for (const ep of FAULT_ENDPOINTS) {
    const v = patch[ep];
    if (v === undefined) continue;
    if (v === null || !keep(v)) target.delete(ep);
    else target.set(ep, v);
  }
}
