/**
 * Options of the probe runner, resolved once. Every problem is collected into one
 * `ConfigError`; no message quotes the token, and the resolved options do not carry it.
 */
import type { LookupFunction } from 'node:net';
import { randomBytes } from 'node:crypto';
import { createSystemClock, type Clock } from '../core/clock.js';
import { ConfigError, type ConfigIssue } from '../core/errors.js';
import { isTargetName, TARGET_NAME_HELP, targetNameOf } from '../core/target-name.js';
import type { ProbeMetrics } from '../export/index.js';
import type { TlsSettings } from './http-timing.js';
import type { HistoryWriter } from './history-writer.js';
import { DEFAULT_FAILURES_TO_OPEN, type IncidentEvent } from './incidents.js';
import { CHECK_NAMES, isCheckName, type CheckName, type ProbeRecord } from './record.js';
import type { FailureRun } from './resume.js';

/** Where and how to reach the service. */
export interface ProbeTarget {
  /** API address ending in the version segment, e.g. `https://api.example.com/v1`. */
  readonly baseUrl: string;
  /** Origin of the trigger address; default the origin of `baseUrl`. */
  readonly webhookHost?: string;
  /** Bearer token; never recorded, logged or exported. */
  readonly token: string;
  readonly tls?: TlsSettings;
  /** The target's name in records and metrics; default the host of `baseUrl`. */
  readonly name?: string;
}

/** Options of `createProbeRunner`. */
export interface ProbeOptions {
  readonly target: ProbeTarget;
  /** Checks of each round (default all five). */
  readonly checks?: readonly CheckName[];
  /** Default 30 s. */
  readonly intervalMs?: number;
  /** Per check; default 10 s. */
  readonly timeoutMs?: number;
  /** Consecutive failures that open an incident; default 3. */
  readonly failuresToOpen?: number;
  /** Flow the flow checks address; default the first published flow. */
  readonly flowId?: string;
  /**
   * Fewest days a certificate may have left before the record says `certOk: false` (default
   * 14; 0 switches the judgement off, the days are still recorded). Uptime is not affected.
   */
  readonly certMinDays?: number;
  /** Default the system clock. */
  readonly clock?: Clock;
  /** Where records go; without it they are only reported. */
  readonly history?: HistoryWriter;
  readonly metrics?: ProbeMetrics;
  /** Earlier records, so a restart continues runs of failures and open incidents (a few; for a history use `resume`). */
  readonly previous?: readonly ProbeRecord[];
  /**
   * Where the history left each series (`readProbeResume`): a restart continues its runs of
   * failures and open incidents without holding the history. Taken after `previous`.
   */
  readonly resume?: ReadonlyMap<string, FailureRun>;
  /** Each record, once the history acknowledged it (`stored`) or failed to (`onHistoryError` said why). */
  readonly onRecord?: (record: ProbeRecord, stored: boolean) => void;
  readonly onIncident?: (event: IncidentEvent) => void;
  /** A record could not be written (the error is a code or a short message). */
  readonly onHistoryError?: (error: string, record: ProbeRecord) => void;
  /** DNS resolver for the checks' requests (tests). */
  readonly lookup?: LookupFunction;
  /** Id written into each record; default random. */
  readonly instanceId?: string;
}

/** Options with every default filled; the token is deliberately not part of it. */
export interface ResolvedProbeOptions {
  /** The target's name, written into every record. */
  readonly targetName: string;
  /** Without a trailing slash. */
  readonly baseUrl: string;
  /** Without a trailing slash. */
  readonly webhookHost: string;
  readonly checks: readonly CheckName[];
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly failuresToOpen: number;
  readonly flowId: string | undefined;
  readonly certMinDays: number;
  readonly tls: TlsSettings;
  readonly clock: Clock;
  readonly instanceId: string;
}

/** Days a certificate must have left, by default, for a check that sees it to pass. */
export const DEFAULT_CERT_MIN_DAYS = 14;

const BAD_TOKEN_RE = /[\u0000-\u001f\u007f]/;

function httpUrl(value: unknown, path: string, issues: ConfigIssue[]): URL | undefined {
  if (typeof value !== 'string' || value === '') {
    issues.push({ path, message: 'must be an http(s) URL' });
    return undefined;
  }
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') issues.push({ path, message: 'must use http or https' });
    else if (url.username !== '' || url.password !== '') issues.push({ path, message: 'must not carry credentials; use token' });
    else return url;
  } catch {
    issues.push({ path, message: 'is not a valid URL' });
  }
  return undefined;
}

function positive(value: number | undefined, fallback: number, path: string, issues: ConfigIssue[], integer = false): number {
  if (value === undefined) return fallback;
  if (!(typeof value === 'number' && Number.isFinite(value) && value > 0 && (!integer || Number.isInteger(value)))) {
    issues.push({ path, message: integer ? 'must be an integer >= 1' : 'must be a positive number' });
    return fallback;
  }
  return value;
}

/** Validates and fills defaults; throws `ConfigError` listing every problem. */
export function resolveProbeOptions(o: ProbeOptions): ResolvedProbeOptions {
  const issues: ConfigIssue[] = [];
  const base = httpUrl(o.target?.baseUrl, 'target.baseUrl', issues);
  if (base !== undefined && !/\/v\d+\/?$/.test(base.pathname)) issues.push({ path: 'target.baseUrl', message: 'must end with the version segment, e.g. /v1' });
  const hook = o.target?.webhookHost === undefined ? base : httpUrl(o.target.webhookHost, 'target.webhookHost', issues);
  const token = o.target?.token;
  if (typeof token !== 'string' || token.trim() === '') issues.push({ path: 'target.token', message: 'must be a non-empty string' });
  else if (BAD_TOKEN_RE.test(token)) issues.push({ path: 'target.token', message: 'must not contain control characters' });
  const checks = o.checks ?? CHECK_NAMES;
  if (checks.length === 0) issues.push({ path: 'checks', message: `must name at least one of ${CHECK_NAMES.join(', ')}` });
  checks.forEach((c, i) => {
    if (!isCheckName(c)) issues.push({ path: `checks[${i}]`, message: `must be one of ${CHECK_NAMES.join(', ')}` });
  });
  if (new Set(checks).size !== checks.length) issues.push({ path: 'checks', message: 'must not repeat a check' });
  if (o.flowId !== undefined && (typeof o.flowId !== 'string' || o.flowId === '')) issues.push({ path: 'flowId', message: 'must be a non-empty string' });
  const targetName = o.target?.name ?? (base === undefined ? undefined : targetNameOf(base.href));
  // Without a base URL there is no default to judge: that problem is said already.
  if ((o.target?.name !== undefined || base !== undefined) && !isTargetName(targetName)) issues.push({ path: 'target.name', message: `must be ${TARGET_NAME_HELP}` });
  const resolved = {
    intervalMs: positive(o.intervalMs, 30_000, 'intervalMs', issues),
    timeoutMs: positive(o.timeoutMs, 10_000, 'timeoutMs', issues),
    failuresToOpen: positive(o.failuresToOpen, DEFAULT_FAILURES_TO_OPEN, 'failuresToOpen', issues, true),
    certMinDays: o.certMinDays ?? DEFAULT_CERT_MIN_DAYS,
  };
  if (!(typeof resolved.certMinDays === 'number' && Number.isFinite(resolved.certMinDays) && resolved.certMinDays >= 0)) {
    issues.push({ path: 'certMinDays', message: 'must be a number of days >= 0 (0 switches the certificate judgement off)' });
  }
  if (issues.length > 0 || base === undefined || hook === undefined || !isTargetName(targetName)) throw new ConfigError(issues, 'probe options');
  const trim = (u: URL): string => `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
  return Object.freeze({
    targetName,
    baseUrl: trim(base),
    webhookHost: o.target.webhookHost === undefined ? base.origin : trim(hook),
    checks: Object.freeze([...checks]),
    ...resolved,
    flowId: o.flowId,
    tls: Object.freeze({ ...(o.target.tls ?? {}) }),
    clock: o.clock ?? createSystemClock(),
    instanceId: o.instanceId ?? randomBytes(4).toString('hex'),
  });
}
