/**
 * Validation of reference-service options coming from code or from a JSON/YAML file. Every
 * problem is reported with its path; token values never appear in a path or message (tokens
 * are named by their position, `tokens[1]`).
 */
import { ConfigError } from '../core/errors.js';
import type { Tier } from '../core/tiers.js';
import { parseFaultPatch } from './faults.js';
import { RATE_LIMIT_SHAPES } from './limiters.js';
import type { NotificationSpec, ReferenceServiceOptions, TokenSpec } from './option-shapes.js';
import {
  at,
  checkKeys,
  isRecord,
  readBoolean,
  readDurationMs,
  readEnum,
  readNumber,
  readRate,
  readString,
  type Issues,
} from './validate.js';

/** Event names a receiver may subscribe to (both sets of the interface, plus `*`). */
export const NOTIFICATION_EVENT_NAMES = [
  'flow.run.started',
  'flow.run.completed',
  'flow.run.failed',
  'flow.completed',
  'flow.failed',
  'session.created',
  'session.ended',
  '*',
] as const;

const FILE_KEYS = [
  'port',
  'host',
  'seed',
  'accounts',
  'tokens',
  'adminToken',
  'rateLimit',
  'flows',
  'latency',
  'runMode',
  'failureRate',
  'eventNames',
  'notifications',
  'delivery',
  'pricePer1kTokens',
  'faults',
  'quirks',
  'maxRecords',
  'maxRecordBytes',
] as const;
const CODE_KEYS = [...FILE_KEYS, 'clock', 'onRequest'] as const;

/** Enterprise limit used when a config file says `tier: enterprise`. */
const ENTERPRISE_FILE_LIMIT = 100_000;

/**
 * Reads reference-service options from a parsed JSON/YAML object. Functions (`clock`,
 * `onRequest`) cannot come from a file. Throws `ConfigError` listing every problem by path.
 * `tier: "enterprise"` is accepted and means `{ limitPerMinute: 100000 }`.
 */
export function parseReferenceConfig(raw: unknown): ReferenceServiceOptions {
  const issues = readOptions(raw, false);
  if (issues.length > 0) throw new ConfigError(issues, 'reference service configuration');
  const obj = raw as Record<string, unknown>;
  if (!isRecord(obj.tokens)) return obj as ReferenceServiceOptions;
  const tokens: Record<string, TokenSpec> = {};
  for (const [token, spec] of Object.entries(obj.tokens)) {
    const s = spec as { account: string; tier: unknown };
    tokens[token] = { account: s.account, tier: s.tier === 'enterprise' ? { limitPerMinute: ENTERPRISE_FILE_LIMIT } : (s.tier as Tier) };
  }
  return { ...(obj as ReferenceServiceOptions), tokens };
}

/** Checks options (from code when `allowCode`, else from a file); returns every problem. */
export function readOptions(raw: unknown, allowCode: boolean): Issues {
  const issues: Issues = [];
  if (!isRecord(raw)) {
    issues.push({ path: '', message: 'must be an object' });
    return issues;
  }
  checkKeys(raw, allowCode ? CODE_KEYS : FILE_KEYS, '', issues);
  if (raw.port !== undefined) readNumber(raw.port, 'port', issues, { integer: true, min: 0, max: 65535 });
  if (raw.host !== undefined) readString(raw.host, 'host', issues);
  if (raw.seed !== undefined) readNumber(raw.seed, 'seed', issues, { integer: true });
  if (raw.adminToken !== undefined) readTokenString(raw.adminToken, 'adminToken', issues);
  if (raw.accounts !== undefined) readStringList(raw.accounts, 'accounts', issues);
  if (raw.tokens !== undefined) readTokens(raw.tokens, allowCode, issues);
  if (raw.rateLimit !== undefined) readRateLimit(raw.rateLimit, issues);
  if (raw.flows !== undefined) readFlows(raw.flows, issues);
  if (raw.latency !== undefined) readLatency(raw.latency, issues);
  if (raw.runMode !== undefined) readEnum(raw.runMode, ['sync', 'async'], 'runMode', issues);
  if (raw.failureRate !== undefined) readRate(raw.failureRate, 'failureRate', issues);
  if (raw.eventNames !== undefined) readEnum(raw.eventNames, ['flow.run', 'flow'], 'eventNames', issues);
  if (raw.notifications !== undefined) readNotifications(raw.notifications, issues);
  if (raw.delivery !== undefined) readDelivery(raw.delivery, issues);
  if (raw.pricePer1kTokens !== undefined) readNumber(raw.pricePer1kTokens, 'pricePer1kTokens', issues, { min: 0 });
  if (raw.faults !== undefined) parseFaultPatch(raw.faults, 'faults', issues);
  if (raw.quirks !== undefined) readQuirks(raw.quirks, issues);
  if (raw.maxRecords !== undefined) readNumber(raw.maxRecords, 'maxRecords', issues, { integer: true, min: 1 });
  if (raw.maxRecordBytes !== undefined) readNumber(raw.maxRecordBytes, 'maxRecordBytes', issues, { integer: true, min: 1 });
  if (allowCode) {
    const clock = raw.clock as Record<string, unknown> | undefined;
    if (clock !== undefined && (!isRecord(clock) || typeof clock.nowNs !== 'function' || typeof clock.setTimer !== 'function')) {
      issues.push({ path: 'clock', message: 'must be a Clock (see core/clock.ts)' });
    }
    if (raw.onRequest !== undefined && typeof raw.onRequest !== 'function') {
      issues.push({ path: 'onRequest', message: 'must be a function' });
    }
  }
  return issues;
}

function readTokenString(v: unknown, path: string, issues: Issues): void {
  // The value is a secret: say what is wrong without echoing it.
  if (typeof v !== 'string' || !/^[\x21-\x7e]{1,512}$/.test(v)) {
    issues.push({ path, message: 'must be 1–512 printable characters without spaces' });
  }
}

function readStringList(v: unknown, path: string, issues: Issues): void {
  if (!Array.isArray(v)) {
    issues.push({ path, message: 'must be an array of strings' });
    return;
  }
  v.forEach((s, i) => readString(s, at(path, i), issues));
}

function readTokens(v: unknown, allowCode: boolean, issues: Issues): void {
  if (!isRecord(v)) {
    issues.push({ path: 'tokens', message: 'must be an object mapping token → { account, tier }' });
    return;
  }
  const entries = Object.entries(v);
  if (entries.length === 0) issues.push({ path: 'tokens', message: 'must define at least one token' });
  entries.forEach(([token, spec], i) => {
    const path = `tokens[${i}]`;
    readTokenString(token, `${path} (key)`, issues);
    if (!isRecord(spec)) {
      issues.push({ path, message: 'must be an object { account, tier }' });
      return;
    }
    checkKeys(spec, ['account', 'tier'], path, issues);
    readString(spec.account, at(path, 'account'), issues);
    readTier(spec.tier, at(path, 'tier'), allowCode, issues);
  });
}

function readTier(v: unknown, path: string, allowCode: boolean, issues: Issues): void {
  if (v === 'free' || v === 'pro' || (!allowCode && v === 'enterprise')) return;
  if (isRecord(v)) {
    checkKeys(v, ['limitPerMinute'], path, issues);
    readNumber(v.limitPerMinute, at(path, 'limitPerMinute'), issues, { integer: true, min: 1 });
    return;
  }
  const names = allowCode ? '"free", "pro"' : '"free", "pro", "enterprise"';
  issues.push({ path, message: `must be ${names} or { limitPerMinute }` });
}

function readRateLimit(v: unknown, issues: Issues): void {
  if (!isRecord(v)) {
    issues.push({ path: 'rateLimit', message: 'must be an object' });
    return;
  }
  checkKeys(v, ['windowMs', 'reset', 'headers', 'shape', 'burst'], 'rateLimit', issues);
  if (v.windowMs !== undefined) {
    const ms = readDurationMs(v.windowMs, 'rateLimit.windowMs', issues);
    if (ms !== undefined && ms < 1) issues.push({ path: 'rateLimit.windowMs', message: 'must be at least 1 ms' });
  }
  if (v.reset !== undefined) readEnum(v.reset, ['delta-seconds', 'epoch-seconds'], 'rateLimit.reset', issues);
  if (v.headers !== undefined) readBoolean(v.headers, 'rateLimit.headers', issues);
  const shape = v.shape === undefined ? 'fixed' : readEnum(v.shape, RATE_LIMIT_SHAPES, 'rateLimit.shape', issues);
  if (v.burst !== undefined) {
    const burst = readNumber(v.burst, 'rateLimit.burst', issues, { integer: true, min: 0 });
    // A burst on another shape would silently do nothing: say so rather than let a test believe it.
    if (burst !== undefined && burst > 0 && shape !== undefined && shape !== 'token-bucket') {
      issues.push({ path: 'rateLimit.burst', message: 'only applies to shape "token-bucket"' });
    }
  }
}

function readFlows(v: unknown, issues: Issues): void {
  if (typeof v === 'number') {
    readNumber(v, 'flows', issues, { integer: true, min: 0, max: 10_000 });
    return;
  }
  if (!Array.isArray(v)) {
    issues.push({ path: 'flows', message: 'must be a number of flows per account or an array of flows' });
    return;
  }
  const seen = new Set<string>();
  v.forEach((f: unknown, i) => {
    const path = at('flows', i);
    if (!isRecord(f)) {
      issues.push({ path, message: 'must be an object' });
      return;
    }
    checkKeys(f, ['id', 'account', 'name', 'description', 'status', 'input_schema', 'output_schema', 'template'], path, issues);
    const id = readString(f.id, at(path, 'id'), issues);
    if (id !== undefined && !/^[^\s/?#%]+$/.test(id)) issues.push({ path: at(path, 'id'), message: 'must not contain spaces, /, ?, # or %' });
    if (id !== undefined && seen.has(id)) issues.push({ path: at(path, 'id'), message: 'duplicate flow id' });
    if (id !== undefined) seen.add(id);
    readString(f.account, at(path, 'account'), issues);
    for (const key of ['name', 'description', 'template'] as const) {
      if (f[key] !== undefined) readString(f[key], at(path, key), issues, true);
    }
    if (f.status !== undefined) readEnum(f.status, ['published', 'draft'], at(path, 'status'), issues);
    for (const key of ['input_schema', 'output_schema'] as const) {
      if (f[key] !== undefined && !isRecord(f[key])) issues.push({ path: at(path, key), message: 'must be an object' });
    }
  });
}

function readLatency(v: unknown, issues: Issues): void {
  if (v === 'none') return;
  if (!isRecord(v)) {
    issues.push({ path: 'latency', message: 'must be "none" or an object' });
    return;
  }
  checkKeys(v, ['ttftMs', 'itlMs', 'jitter', 'tokens', 'runOverheadMs', 'prefillMsPerWord'], 'latency', issues);
  if (v.prefillMsPerWord !== undefined) readNumber(v.prefillMsPerWord, 'latency.prefillMsPerWord', issues, { min: 0, max: 1000 });
  for (const key of ['ttftMs', 'itlMs', 'runOverheadMs'] as const) {
    if (v[key] !== undefined) readDurationMs(v[key], at('latency', key), issues);
  }
  if (v.jitter !== undefined) readNumber(v.jitter, 'latency.jitter', issues, { min: 0, max: 1 });
  if (v.tokens !== undefined) {
    const t = v.tokens;
    if (!isRecord(t)) {
      issues.push({ path: 'latency.tokens', message: 'must be an object { min, max }' });
      return;
    }
    checkKeys(t, ['min', 'max'], 'latency.tokens', issues);
    const min = t.min === undefined ? 8 : readNumber(t.min, 'latency.tokens.min', issues, { integer: true, min: 1, max: 100_000 });
    const max = t.max === undefined ? undefined : readNumber(t.max, 'latency.tokens.max', issues, { integer: true, min: 1, max: 100_000 });
    if (min !== undefined && max !== undefined && max < min) issues.push({ path: 'latency.tokens.max', message: 'must be at least min' });
  }
}

function readNotifications(v: unknown, issues: Issues): void {
  if (!Array.isArray(v)) {
    issues.push({ path: 'notifications', message: 'must be an array of { webhook_url, events, secret }' });
    return;
  }
  v.forEach((n: unknown, i) => {
    const path = at('notifications', i);
    if (!isRecord(n)) {
      issues.push({ path, message: 'must be an object { webhook_url, events, secret }' });
      return;
    }
    checkKeys(n, ['webhook_url', 'events', 'secret'] satisfies readonly (keyof NotificationSpec)[], path, issues);
    const url = readString(n.webhook_url, at(path, 'webhook_url'), issues);
    if (url !== undefined && !/^https?:\/\//.test(url)) issues.push({ path: at(path, 'webhook_url'), message: 'must be an http(s) URL' });
    else if (url !== undefined && !URL.canParse(url)) issues.push({ path: at(path, 'webhook_url'), message: 'is not a valid URL' });
    if (!Array.isArray(n.events) || n.events.length === 0) {
      issues.push({ path: at(path, 'events'), message: 'must be a non-empty array of event names' });
    } else {
      n.events.forEach((e: unknown, j) => readEnum(e, NOTIFICATION_EVENT_NAMES, at(at(path, 'events'), j), issues));
    }
    if (typeof n.secret !== 'string' || n.secret === '') issues.push({ path: at(path, 'secret'), message: 'must be a non-empty string' });
  });
}

function readDelivery(v: unknown, issues: Issues): void {
  if (!isRecord(v)) {
    issues.push({ path: 'delivery', message: 'must be an object' });
    return;
  }
  checkKeys(v, ['attempts', 'backoffMs', 'timeoutMs'], 'delivery', issues);
  if (v.attempts !== undefined) readNumber(v.attempts, 'delivery.attempts', issues, { integer: true, min: 1, max: 20 });
  if (v.backoffMs !== undefined) readDurationMs(v.backoffMs, 'delivery.backoffMs', issues);
  if (v.timeoutMs !== undefined) readDurationMs(v.timeoutMs, 'delivery.timeoutMs', issues);
}

function readQuirks(v: unknown, issues: Issues): void {
  const keys = ['sseCrlf', 'sseComments', 'sseUnknownEvents', 'errorExtraFields'] as const;
  if (!isRecord(v)) {
    issues.push({ path: 'quirks', message: 'must be an object' });
    return;
  }
  checkKeys(v, keys, 'quirks', issues);
  for (const k of keys) if (v[k] !== undefined) readBoolean(v[k], at('quirks', k), issues);
}
