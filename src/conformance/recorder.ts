/**
 * What the battery found, collected as it goes: explicit observations, violations (deduplicated
 * with a count), and the checks every answer gets whatever it was sent for — the error body,
 * status and code agreeing, JSON content types, rate-limit headers, request ids.
 */
import type { z } from 'zod';
import { errorBodySchema } from '../api/index.js';
import { violationsOf } from '../api/validate.js';
import { API_ERROR_STATUS, isApiErrorCode } from '../core/codes.js';
import type { ExchangeAnswer } from './exchange.js';
import type { Observation, ObservationStatus, Violation } from './model.js';

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const;
const NO_REDACT = (s: string): string => s;

/** One Reset value and when it arrived. */
export interface ResetSample {
  readonly value: number;
  readonly atMs: number;
  /** `Date` header of the response, in ms, when it had one. */
  readonly dateMs: number | undefined;
}

/** Tallies the automatic checks keep, for the observations made at the end. */
export interface AnswerTallies {
  /** Responses to `/v1` requests (the ones rate-limit headers are expected on). */
  apiResponses: number;
  missingRateHeaders: Record<(typeof RATE_HEADERS)[number], number>;
  resets: ResetSample[];
  limits: number[];
  lastRemaining: number | undefined;
  responses429: ExchangeAnswer[];
  retryAfterOn429: number;
  successWithRequestIdHeader: number;
  successes: number;
  errorsWithRequestIdHeader: number;
  errors: number;
  /** Content type per `op kind` (`run json`, `stream`, `error`), as sent. */
  contentTypes: Record<string, Set<string>>;
  errorCodesBeyondTable: Set<string>;
  errorExtraFields: Set<string>;
}

/** The recorder. */
export interface Recorder {
  observe(o: { id: string; topic: string; question: string; answer: string; status?: ObservationStatus; value?: unknown }): void;
  violate(v: Omit<Violation, 'count'>): void;
  /**
   * Checks a body against one of the interface's schemas, each mismatch a violation under
   * `rule`; `ignore` skips paths where the interface allows more than the schema does.
   */
  schema(rule: string, schema: z.ZodType, value: unknown, a: ExchangeAnswer, ignore?: (path: string) => boolean): void;
  /** The automatic checks; called for every answer. */
  check(a: ExchangeAnswer): void;
  readonly tallies: AnswerTallies;
  observations(): Observation[];
  violations(): Violation[];
}

function intHeader(v: string | undefined): number | undefined {
  return v !== undefined && /^-?\d+$/.test(v.trim()) ? Number(v.trim()) : undefined;
}

/** `GET /flows?limit=1` style name of an answer's request. */
export function labelOf(a: ExchangeAnswer): string {
  return a.request.label;
}

/** Creates an empty recorder. */
export function createRecorder(): Recorder {
  const observations: Observation[] = [];
  const violations = new Map<string, { v: Omit<Violation, 'count'>; count: number }>();
  const tallies: AnswerTallies = {
    apiResponses: 0,
    missingRateHeaders: { 'x-ratelimit-limit': 0, 'x-ratelimit-remaining': 0, 'x-ratelimit-reset': 0 },
    resets: [],
    limits: [],
    lastRemaining: undefined,
    responses429: [],
    retryAfterOn429: 0,
    successWithRequestIdHeader: 0,
    successes: 0,
    errorsWithRequestIdHeader: 0,
    errors: 0,
    contentTypes: {},
    errorCodesBeyondTable: new Set(),
    errorExtraFields: new Set(),
  };

  const violate = (v: Omit<Violation, 'count'>): void => {
    const key = `${v.rule}\u0000${v.path}\u0000${v.expected}\u0000${v.got}`;
    const e = violations.get(key);
    if (e === undefined) violations.set(key, { v, count: 1 });
    else e.count++;
  };

  const contentType = (kind: string, ct: string | undefined): void => {
    (tallies.contentTypes[kind] ??= new Set()).add(ct ?? '(none)');
  };

  const checkError = (a: ExchangeAnswer): void => {
    tallies.errors++;
    if (a.headers['x-request-id'] !== undefined) tallies.errorsWithRequestIdHeader++;
    contentType('error', a.contentType);
    const label = labelOf(a);
    if (typeof a.json !== 'object' || a.json === null || Array.isArray(a.json)) {
      violate({ rule: 'errors.body', path: '(root)', expected: 'error object { error: { code, message, details }, request_id }', got: a.text === '' ? 'empty body' : 'not a JSON object', request: label });
      return;
    }
    for (const v of violationsOf(a.request.op, errorBodySchema, a.json, NO_REDACT)) {
      violate({ rule: 'errors.body', path: v.path, expected: v.expected, got: v.got, request: label });
    }
    const body = a.json as { error?: { code?: unknown; [k: string]: unknown }; [k: string]: unknown };
    const code = body.error?.code;
    for (const k of Object.keys(body)) if (k !== 'error' && k !== 'request_id') tallies.errorExtraFields.add(k);
    for (const k of Object.keys(body.error ?? {})) if (!['code', 'message', 'details'].includes(k)) tallies.errorExtraFields.add(`error.${k}`);
    if (typeof code !== 'string') return;
    if (!isApiErrorCode(code)) {
      tallies.errorCodesBeyondTable.add(code);
      return;
    }
    if (API_ERROR_STATUS[code] !== a.status) {
      violate({ rule: 'errors.statusForCode', path: 'status', expected: `HTTP ${API_ERROR_STATUS[code]} with ${code}`, got: `HTTP ${a.status}`, request: label });
    }
  };

  const checkRateHeaders = (a: ExchangeAnswer): void => {
    tallies.apiResponses++;
    for (const h of RATE_HEADERS) {
      const raw = a.headers[h];
      if (raw === undefined) {
        tallies.missingRateHeaders[h]++;
        continue;
      }
      const n = intHeader(raw);
      if (n === undefined) {
        violate({ rule: 'rateLimit.headers', path: h, expected: 'integer', got: JSON.stringify(raw.slice(0, 40)), request: labelOf(a) });
        continue;
      }
      if (h === 'x-ratelimit-reset') {
        const date = a.headers.date === undefined ? Number.NaN : Date.parse(a.headers.date);
        tallies.resets.push({ value: n, atMs: a.atMs, dateMs: Number.isFinite(date) ? date : undefined });
      } else if (a.request.auth !== undefined && a.request.auth !== 'token') {
        // Answers without our token speak of another window (or none): not ours to count.
      } else if (h === 'x-ratelimit-limit') tallies.limits.push(n);
      else tallies.lastRemaining = n;
    }
  };

  return {
    tallies,
    observe(o) {
      observations.push({ status: 'observed', ...o });
    },
    violate,
    schema(rule, schema, value, a, ignore) {
      for (const v of violationsOf(a.request.op, schema, value, NO_REDACT)) {
        if (ignore?.(v.path) !== true) violate({ rule, path: v.path, expected: v.expected, got: v.got, request: labelOf(a) });
      }
    },
    check(a) {
      if (a.status === 0) return;
      if (a.transportError !== undefined) {
        // A head, then a body that never completed: too large, past the deadline, or cut.
        violate({ rule: 'body.complete', path: 'body', expected: 'a whole body, within the size cap and the request deadline', got: `HTTP ${a.status}, then ${a.transportError}`, request: labelOf(a) });
        return;
      }
      const isApi = a.request.host !== 'webhook';
      if (isApi) checkRateHeaders(a);
      if (a.status === 429) {
        tallies.responses429.push(a);
        if (a.headers['retry-after'] !== undefined) tallies.retryAfterOn429++;
        const code = (a.json as { error?: { code?: unknown } } | undefined)?.error?.code;
        if (code !== undefined && code !== 'RATE_LIMITED') {
          violate({ rule: 'rateLimit.code', path: 'error.code', expected: 'RATE_LIMITED for a request over the limit', got: JSON.stringify(code), request: labelOf(a) });
        }
      }
      if (a.status < 200 || a.status >= 300) {
        checkError(a);
        return;
      }
      tallies.successes++;
      if (a.headers['x-request-id'] !== undefined) tallies.successWithRequestIdHeader++;
      if (a.sse !== undefined) {
        contentType(`${a.request.op} (events)`, a.contentType);
        return;
      }
      contentType(a.request.op, a.contentType);
      if (a.json !== undefined && a.contentType?.toLowerCase().startsWith('application/json') !== true) {
        violate({ rule: 'content.json', path: 'content-type', expected: 'application/json for a JSON body', got: a.contentType ?? '(none)', request: labelOf(a) });
      }
    },
    observations: () => [...observations],
    violations: () => [...violations.values()].map(({ v, count }) => ({ ...v, count })),
  };
}
