/**
 * The probe runner: rounds of checks on the schedule, each check turned into a record that is
 * written to the history (acknowledged only once on disk), exported as metrics, and fed to
 * the incident trackers. `stop()` finishes the round in flight, so no check is cut short and
 * every record it produced is flushed.
 */
import { NS_PER_MS, NS_PER_S } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import type { ProbeMetrics } from '../export/index.js';
import { discoverFlow, runCheck, type CheckContext, type CheckOutcome, type FlowLookup } from './checks.js';
import { phasesOf, timedRequest } from './http-timing.js';
import { createIncidentTracker, type IncidentTracker } from './incidents.js';
import { resolveProbeOptions, type ProbeOptions, type ResolvedProbeOptions } from './options.js';
import { PROBE_RECORD_VERSION, recordTimeMs, type CheckName, type ProbeRecord, type TlsFinding } from './record.js';
import { createProbeScheduler } from './scheduler.js';
import { createResumeFold, type FailureRun } from './resume.js';
import { OVERALL } from './series.js';
import { probeResultOf } from './probe-result.js';

/** The records of one round. */
export interface RoundResult {
  readonly round: number;
  readonly records: readonly ProbeRecord[];
  /** True when every check succeeded. */
  readonly success: boolean;
  /** Records the history could not store (each also told through `onHistoryError`). */
  readonly unstored: number;
}

/** Counts since creation. */
export interface ProbeRunnerStats {
  readonly rounds: number;
  readonly records: number;
  readonly failures: number;
  /** Grid points skipped because a round overran its interval. */
  readonly skipped: number;
  readonly historyErrors: number;
}

/** A probe runner. */
export interface ProbeRunner {
  readonly options: ResolvedProbeOptions;
  /** Runs one round now (for `--once`). */
  runRound(): Promise<RoundResult>;
  /**
   * Runs one check now, apart from the schedule (the daemon's `/probe`): its record (round -1)
   * is returned only, never written to the history, exported or fed to the incidents, so an
   * outside scraper cannot add probes the schedule never made. Calls for a check still in
   * flight share it. Never rejects.
   */
  checkNow(name: CheckName): Promise<{ readonly record: ProbeRecord; readonly checkS: number }>;
  /** Starts rounds on the schedule (the first at once). */
  start(): void;
  /** Stops scheduling and waits for the round in flight and its history writes. */
  stop(): Promise<void>;
  /** Resolves when no scheduled round is in flight. */
  whenIdle(): Promise<void>;
  stats(): ProbeRunnerStats;
}

const DAY_MS = 86_400_000;
const TLS_TARGET = 'TLSv1.3';

function tlsFinding(outcome: CheckOutcome, wallMs: number, certMinDays: number): TlsFinding | null {
  const t = outcome.response?.tls;
  if (t === undefined) return null;
  const validToMs = t.validTo === undefined ? Number.NaN : Date.parse(t.validTo);
  const known = Number.isFinite(validToMs);
  return {
    version: t.protocol,
    // Versions compare as text within the TLSv1.x family; anything else (SSLv3, unknown) is flagged.
    versionOk: t.protocol !== null && /^TLSv1\.\d$/.test(t.protocol) && t.protocol >= TLS_TARGET,
    certValidTo: known ? new Date(validToMs).toISOString() : null,
    certDaysLeft: known ? Math.round(((validToMs - wallMs) / DAY_MS) * 1000) / 1000 : null,
    authorized: t.authorized,
    certMinDays,
    // Below the minimum is a finding against the service's certificate target, not downtime:
    // the answer was good, and uptime must say so.
    certOk: !known || certMinDays <= 0 || (validToMs - wallMs) / DAY_MS >= certMinDays,
  };
}

/** Creates a runner. Throws `ConfigError` for invalid options. */
export function createProbeRunner(options: ProbeOptions): ProbeRunner {
  const o = resolveProbeOptions(options);
  const { clock } = o;
  // The token lives only in this header value, inside this closure.
  const authorization = `Bearer ${options.target.token}`;
  const { history, metrics, onRecord, onIncident, onHistoryError, lookup } = options;
  if (metrics !== undefined && metrics.target !== o.targetName) {
    throw new ConfigError([{ path: 'metrics', message: `are labelled target="${metrics.target}", but the probe's target is "${o.targetName}"` }], 'probe options');
  }

  let flowLookup: Promise<FlowLookup> | undefined = o.flowId === undefined ? undefined : Promise.resolve({ ok: true, id: o.flowId });
  const ctx: CheckContext = {
    baseUrl: o.baseUrl,
    webhookHost: o.webhookHost,
    send: (req) =>
      timedRequest({
        url: req.url,
        method: req.method,
        headers: {
          accept: req.accept ?? 'application/json',
          'user-agent': 'flowgauge-probe/0.1.0',
          ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(req.auth ? { authorization } : {}),
        },
        ...(req.body !== undefined ? { body: req.body } : {}),
        clock,
        timeoutMs: o.timeoutMs,
        tls: o.tls,
        ...(req.onChunk !== undefined ? { onChunk: req.onChunk } : {}),
        ...(lookup !== undefined ? { lookup } : {}),
      }),
    flowId() {
      flowLookup ??= discoverFlow(ctx).then((r) => {
        // Retry the discovery next round rather than remembering a failure.
        if (!r.ok) flowLookup = undefined;
        return r;
      });
      return flowLookup;
    },
    forgetFlow() {
      if (o.flowId === undefined) flowLookup = undefined;
    },
  };

  // Only where each series stands matters to a restart: its trailing run of failures.
  const tails = new Map<string, FailureRun>();
  if (options.previous !== undefined && options.previous.length > 0) {
    const fold = createResumeFold(Infinity);
    // Another target's records in the same history say nothing about this one.
    const own = options.previous.filter((r) => r.target === undefined || r.target === o.targetName);
    for (const r of own.sort((a, b) => recordTimeMs(a) - recordTimeMs(b))) fold.add(r);
    for (const [name, run] of fold.finish().tails) tails.set(name, run);
  }
  if (options.resume !== undefined) for (const [name, run] of options.resume) tails.set(name, run);
  const trackers = new Map<string, IncidentTracker>();
  const tracker = (name: string): IncidentTracker => {
    let t = trackers.get(name);
    if (t === undefined) {
      const resumeFrom = tails.get(name);
      // The runner reports incidents as events; keeping closed ones would grow with every flap.
      t = createIncidentTracker(name, { failuresToOpen: o.failuresToOpen, keepClosed: 0, ...(resumeFrom !== undefined ? { resumeFrom } : {}) });
      trackers.set(name, t);
    }
    return t;
  };

  let nextRound = 0;
  let rounds = 0;
  let records = 0;
  let failures = 0;
  let historyErrors = 0;

  const check = async (name: CheckName, round: number): Promise<{ record: ProbeRecord; checkS: number }> => {
    const startNs = clock.nowNs();
    const wallMs = clock.wallMs();
    const out = await runCheck(name, ctx);
    const endNs = clock.nowNs();
    const res = out.response;
    const phasesMs =
      res === undefined
        ? { dns: null, connect: null, tls: null, ttfb: null, transfer: null, total: (endNs - startNs) / NS_PER_MS }
        : phasesOf(res.instants);
    const ttftMs =
      out.firstTokenNs !== undefined && res !== undefined ? Math.round(((out.firstTokenNs - res.instants.startNs) / NS_PER_MS) * 1000) / 1000 : null;
    const tls = tlsFinding(out, wallMs, o.certMinDays);
    const checkS = (endNs - startNs) / NS_PER_S;
    // Key order is part of the format: the CronJob's script greps `"check":…,"success":`.
    const record: ProbeRecord = {
      v: PROBE_RECORD_VERSION,
      target: o.targetName,
      time: new Date(wallMs).toISOString(),
      mono: startNs,
      instance: o.instanceId,
      round,
      check: name,
      success: out.success,
      status: out.status,
      error: out.error,
      intervalMs: o.intervalMs,
      phasesMs,
      checkMs: Math.round(checkS * 1e6) / 1000,
      ttftMs,
      tls,
      ...(out.detail !== undefined ? { detail: out.detail } : {}),
    };
    return { record, checkS };
  };

  const exportRecord = (m: ProbeMetrics, r: ProbeRecord, checkS: number): void => m.record(r.check, probeResultOf(r, recordTimeMs(r), checkS));

  const runRound = async (): Promise<RoundResult> => {
    const round = nextRound++;
    // The checks of a round start together, so a slow one cannot delay the others.
    const done = await Promise.all(o.checks.map((name) => check(name, round)));
    let unstored = 0;
    // A record is reported only once the history acknowledged it (or failed to).
    for (const { record, checkS } of done) {
      let stored = true;
      if (history !== undefined) {
        const r = await history.append(record);
        if (!r.ok) {
          historyErrors++;
          unstored++;
          stored = false;
          onHistoryError?.(r.error, record);
        }
      }
      records++;
      if (!record.success) failures++;
      if (metrics !== undefined) exportRecord(metrics, record, checkS);
      onRecord?.(record, stored);
      const ev = tracker(record.check).observe({ timeMs: Date.parse(record.time), success: record.success, intervalMs: record.intervalMs });
      if (ev !== undefined) onIncident?.(ev);
    }
    const list = done.map((d) => d.record);
    const success = list.every((r) => r.success);
    const first = list[0];
    if (first !== undefined) {
      const ev = tracker(OVERALL).observe({ timeMs: Date.parse(first.time), success, intervalMs: o.intervalMs });
      if (ev !== undefined) onIncident?.(ev);
    }
    rounds++;
    return { round, records: list, success, unstored };
  };

  const adHoc = new Map<CheckName, Promise<{ record: ProbeRecord; checkS: number }>>();
  const checkNow = (name: CheckName): Promise<{ record: ProbeRecord; checkS: number }> => {
    let p = adHoc.get(name);
    if (p === undefined) {
      p = check(name, -1).finally(() => adHoc.delete(name));
      adHoc.set(name, p);
    }
    return p;
  };

  const scheduler = createProbeScheduler({ clock, intervalMs: o.intervalMs, job: async () => void (await runRound()) });

  return {
    options: o,
    runRound,
    checkNow,
    start: () => scheduler.start(),
    stop: () => scheduler.stop(),
    whenIdle: () => scheduler.whenIdle(),
    stats: () => ({ rounds, records, failures, skipped: scheduler.skipped, historyErrors }),
  };
}
