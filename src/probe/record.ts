/**
 * One line of the probe history (`probe-YYYY-MM-DD.jsonl`): what one check of one round found.
 * The record is a contract read back by `flowgauge slo status` months later, so fields are only
 * ever added, and `parseProbeRecord` accepts any line that carries the fields the math needs.
 */
import type { ErrorCode } from '../core/codes.js';
import { isRecord } from '../core/is-record.js';
import { isTargetName } from '../core/target-name.js';

/** Version of the record format (`v`). */
export const PROBE_RECORD_VERSION = 1;

/** The checks a probe can run, one operation each. */
export const CHECK_NAMES = ['listFlows', 'getFlow', 'run', 'stream', 'trigger'] as const;

/** A check, named after the client operation it exercises. */
export type CheckName = (typeof CHECK_NAMES)[number];

/** True when `s` names a check. */
export function isCheckName(s: unknown): s is CheckName {
  return typeof s === 'string' && (CHECK_NAMES as readonly string[]).includes(s);
}

/**
 * Why a check failed: the interface's codes and the transport codes (core `ErrorCode`), plus
 * failures only a probe judges: a run that ended `failed`, a body that broke the contract,
 * no published flow to probe, and a certificate closer to expiry than the probe's minimum.
 */
export type ProbeErrorCode = ErrorCode | 'RUN_FAILED' | 'CONTRACT_VIOLATION' | 'NO_FLOW';

/**
 * Durations of the consecutive phases of the check's HTTP request, in ms. They add up to
 * `total`; a phase that did not happen (no DNS for an IP address, no TLS over http) is null.
 * `ttfb` is the wait from the connection being ready to the response head (as browsers' "Waiting").
 */
export interface PhasesMs {
  readonly dns: number | null;
  readonly connect: number | null;
  readonly tls: number | null;
  readonly ttfb: number | null;
  readonly transfer: number | null;
  readonly total: number;
}

/** What the TLS handshake of an HTTPS check showed. */
export interface TlsFinding {
  /** Negotiated protocol, e.g. `TLSv1.3`. */
  readonly version: string | null;
  /** False below TLSv1.3, the service's stated target. */
  readonly versionOk: boolean;
  /** `valid_to` of the peer certificate, ISO 8601. */
  readonly certValidTo: string | null;
  /** Days from the check to the certificate's expiry (negative once expired). */
  readonly certDaysLeft: number | null;
  /** Whether the certificate chain was verified (false with `--insecure` and an unknown CA). */
  readonly authorized: boolean;
  /**
   * The probe's minimum of days left (`--cert-min-days`) in force for this check; 0 when
   * switched off. Absent in records written before it existed.
   */
  readonly certMinDays?: number;
  /**
   * False when the certificate had fewer days left than `certMinDays`: a finding against the
   * service's certificate target (`probe --once` exits 1, `slo status` warns), never downtime,
   * since the answer was good. Absent in records written before it existed.
   */
  readonly certOk?: boolean;
}

/** One check of one round. */
export interface ProbeRecord {
  readonly v: typeof PROBE_RECORD_VERSION;
  /**
   * The probed target's name (`--target-name`, by default the base URL's host), so one history
   * can hold several targets apart. Absent in records written before it existed: those belong
   * to whichever target reads them (see `targetOf`).
   */
  readonly target?: string;
  /** Wall-clock start of the check, ISO 8601 UTC. */
  readonly time: string;
  /** Monotonic ns of the start on the writing process's clock; comparable only within one `instance`. */
  readonly mono: number;
  /** Id of the probe process that wrote the record (a restart starts a new one). */
  readonly instance: string;
  /** Round number within the instance; the checks of one round ran together. */
  readonly round: number;
  readonly check: CheckName;
  readonly success: boolean;
  /** HTTP status of the check's request; 0 when no response arrived. */
  readonly status: number;
  readonly error: ProbeErrorCode | null;
  /** The probe interval: the span of time this outcome stands for. */
  readonly intervalMs: number;
  readonly phasesMs: PhasesMs;
  /** The whole check, which may span several requests (flow discovery); absent in older records. */
  readonly checkMs?: number;
  /** Time to the first `token` event from the request start (stream check only). */
  readonly ttftMs: number | null;
  /** TLS findings (HTTPS targets only). */
  readonly tls: TlsFinding | null;
  /** A short note of the toolkit's own (never text from the server). */
  readonly detail?: string;
}

/**
 * Reads one history line. Returns undefined for a line that is not a record (torn or foreign);
 * only the fields the uptime and incident math need are required.
 */
export function parseProbeRecord(line: string): ProbeRecord | undefined {
  return parseProbeLine(line)?.record;
}

/**
 * `parseProbeRecord` with the record's time (ms) it had to read anyway: a history fold reads
 * millions of lines and needs each time several times.
 */
export function parseProbeLine(line: string): { readonly record: ProbeRecord; readonly timeMs: number } | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isRecord(v)) return undefined;
  const timeMs = typeof v.time === 'string' ? Date.parse(v.time) : Number.NaN;
  if (!Number.isFinite(timeMs)) return undefined;
  if (!isCheckName(v.check) || typeof v.success !== 'boolean') return undefined;
  if (typeof v.intervalMs !== 'number' || !(v.intervalMs > 0)) return undefined;
  if (typeof v.instance !== 'string' || !Number.isInteger(v.round)) return undefined;
  if (v.target !== undefined && !isTargetName(v.target)) return undefined;
  return { record: v as unknown as ProbeRecord, timeMs };
}

/** The key of a record's target: its name, or '' for a record written before targets were kept. */
export function targetOf(r: ProbeRecord): string {
  return r.target ?? '';
}

/** Wall time of a record in ms since the epoch. */
export function recordTimeMs(r: ProbeRecord): number {
  return Date.parse(r.time);
}
